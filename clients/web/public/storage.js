// Storage: the first-run choice and the settings view (current storage, cloud availability
// and provider, usage, moving the workspace with live progress and cancel, resetting the
// choice). Everything shown is what `getStorageInfo` last answered.
import { cancel, freshId, on, rpc } from './rpc.js';
import { ask, describeError, formatBytes, formatTime, h, toast } from './ui.js';

const $ = (id) => document.getElementById(id);

let info = null;
let migration = null; // {id, token, to, percentage, message} while a migration runs
let lastResult = null;
let onSwitched = () => {};
let askedThisVisit = false;

const providerNames = {
  icloud: 'iCloud Drive', syncthing: 'Syncthing', nextcloud: 'Nextcloud', dropbox: 'Dropbox',
  unison: 'Unison', rclone: 'rclone', folder: 'a synced folder',
};
const placeName = (location) => (location === 'cloud' ? `Cloud (${providerNames[info?.cloudProvider] ?? 'cloud'})` : 'This computer');

export function storageInfo() {
  return info;
}

/** Fetches the storage info and redraws; shows the first-run choice when it is still to be made. */
export async function refreshStorage() {
  try {
    info = await rpc('getStorageInfo');
  } catch (error) {
    toast(`Could not read storage info: ${describeError(error)}`, 'error');
    return;
  }
  render();
  if (info.needsChoice && !askedThisVisit) showChoice();
}

/** Opens the first-run choice (also how the choice is reset from the settings). */
export function showChoice() {
  askedThisVisit = true;
  const cloudOk = info.isCloudAvailable;
  $('choice-cloud').hidden = !cloudOk;
  if (cloudOk) $('choice-cloud-text').textContent = `Synced across your devices by ${providerNames[info.cloudProvider] ?? 'your sync engine'}: ${info.roots.cloud}`;
  $('choice-local-text').textContent = `Files stay on this machine only: ${info.roots.local}`;
  for (const el of document.querySelectorAll('#first-run .choice')) el.classList.toggle('current', info.isInitialized && el.dataset.location === info.storageType);
  $('first-run').showModal();
}

async function choose(place) {
  if (place === 'cloud' && info.storageType === 'local' && info.usage.files > 0) {
    const answer = await ask({
      title: 'Bring your files to the cloud?',
      message: `${info.usage.files} files (${formatBytes(info.usage.bytes)}) are on this computer. Moving copies each one to the cloud folder, verifies it, then switches. Or switch now and use the cloud folder as it is.`,
      confirm: 'Move my files',
      alternate: 'Switch without them',
    });
    if (!answer) return;
    if (!answer.alternate) {
      $('first-run').close();
      location.hash = 'storage';
      await runMigration('cloud', 'copy', { confirmed: true });
      return;
    }
  }
  try {
    info = await rpc('chooseStorage', { location: place });
    $('first-run').close();
    render();
    toast(place === 'decideLater' ? 'Using this computer for now.' : `Your workspace now lives in: ${placeName(info.storageType)}.`, 'success');
    onSwitched();
  } catch (error) {
    toast(`Could not choose ${place}: ${describeError(error)}`, 'error');
  }
}

function stat(label, value, id) {
  return h('div.stat', {}, h('div.stat-value', { id }, value), h('div.stat-label', {}, label));
}

function card(title, ...body) {
  return h('section.card', {}, h('h3', {}, title), ...body);
}

function migrationCard() {
  const to = info.storageType === 'cloud' ? 'local' : 'cloud';
  const targetOk = to === 'local' || info.isCloudAvailable;
  const mode = h('select', { id: 'migrate-mode', disabled: !!migration },
    h('option', { value: 'copy' }, 'Copy (keep the originals)'),
    h('option', { value: 'move' }, 'Move (delete each original once verified)'));
  const body = [h('p.muted', {}, `Copies every file to ${to === 'cloud' ? 'the cloud folder' : 'this computer'}, verifies each one, then switches. Nothing is switched if you cancel.`)];
  const pending = info.pendingMigration;
  if (pending && !migration) {
    body.push(h('div.banner.info', { id: 'pending-migration' },
      h('div', {}, h('strong', {}, `A move to ${placeName(pending.to)} stopped at ${pending.filesDone} of ${pending.filesTotal} files.`),
        h('div', {}, `Started ${formatTime(pending.startedAt)}. Resuming skips the files already verified.`)),
      h('button.btn.primary', { id: 'migrate-resume', onclick: () => runMigration(pending.to, pending.mode) }, 'Resume')));
  }
  if (migration) {
    const fill = h('div.progress-fill', { id: 'migrate-fill' });
    fill.style.width = `${migration.percentage ?? 0}%`;
    body.push(h('div.progress', { id: 'migrate-progress', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': migration.percentage ?? 0 }, fill),
      h('div.progress-row', {},
        h('span.muted', { id: 'migrate-message' }, migration.message ?? 'Starting…'),
        h('span.progress-pct', { id: 'migrate-pct' }, `${migration.percentage ?? 0}%`)),
      h('div.actions', {}, h('button.btn.danger', { id: 'migrate-cancel', onclick: cancelMigration }, 'Cancel')));
  } else if (!pending) {
    body.push(h('div.actions', {}, mode,
      h('button.btn.primary', { id: 'migrate-start', disabled: !targetOk, onclick: () => runMigration(to, $('migrate-mode').value) },
        to === 'cloud' ? 'Move to cloud…' : 'Move to this computer…')));
    if (!targetOk) body.push(h('p.muted', {}, 'The cloud folder is not available right now.'));
  }
  if (lastResult && !migration) body.push(h('p.result', { id: 'migrate-result' }, lastResult));
  return card('Move your workspace', ...body);
}

function render() {
  if (!info) return;
  const cloud = info.storageType === 'cloud';
  $('storage-badge').replaceChildren(h('span.badge-title', {}, placeName(info.storageType)), h('span.badge-sub', {}, `${info.usage.files} files · ${formatBytes(info.usage.bytes)}`));
  const availability = !info.isCloudEnabled ? ['Not configured', 'off'] : info.isCloudAvailable ? ['Available', 'ok'] : ['Not available', 'warn'];
  $('storage-grid').replaceChildren(
    card('Current storage',
      h('div.big', { id: 'storage-current' }, placeName(info.storageType)),
      h('code.path', {}, cloud ? info.roots.cloud : info.roots.local),
      h('p.muted', { id: 'storage-choice' }, info.needsChoice ? 'No choice made yet: using this computer for now.' : 'Chosen on this computer.'),
      h('div.actions', {}, h('button.btn', { id: 'reset-choice', disabled: !!migration, onclick: showChoice }, info.needsChoice ? 'Choose now…' : 'Reset choice…'))),
    card('Cloud',
      h('div.big', {}, h('span', { class: `dot ${availability[1]}` }), h('span', { id: 'cloud-status' }, availability[0])),
      h('dl.facts', {},
        h('dt', {}, 'Provider'), h('dd', { id: 'cloud-provider' }, info.cloudProvider ? providerNames[info.cloudProvider] : '—'),
        h('dt', {}, 'Folder'), h('dd', {}, info.roots.cloud ? h('code', {}, info.roots.cloud) : '—'))),
    card('Usage',
      h('div.stats', {},
        stat('files', info.usage.files.toLocaleString(), 'usage-files'),
        stat('used', formatBytes(info.usage.bytes), 'usage-bytes'),
        stat('free', formatBytes(info.freeBytes), 'usage-free'))),
    migrationCard());
}

/** Moves the workspace; unless `confirmed`, first shows what a dry run says and asks. */
async function runMigration(to, mode, { confirmed = false } = {}) {
  if (!confirmed) {
    let plan;
    try {
      plan = await rpc('migrate', { to, mode, dryRun: true });
    } catch (error) {
      toast(`Cannot move: ${describeError(error)}`, 'error');
      return;
    }
    const ok = await ask({
      title: `Move your workspace to ${placeName(to)}?`,
      message: `${plan.copied} files (${formatBytes(plan.bytes)}) will be copied and verified${mode === 'move' ? ', then deleted here' : ''}; ${plan.skipped} are already there${plan.conflicts ? `; ${plan.conflicts} differ and will be kept side by side` : ''}.`,
      confirm: 'Move',
    });
    if (!ok) return;
  }
  migration = { id: freshId('migrate'), token: freshId('progress'), to, percentage: 0, message: 'Starting…' };
  render();
  try {
    const result = await rpc('migrate', { to, mode, workDoneToken: migration.token }, { id: migration.id });
    lastResult = result.alreadyActive ? `Already in ${to} storage: nothing to migrate.` : `${result.resumed ? 'Resumed and finished' : 'Done'}: ${result.copied} files copied (${formatBytes(result.bytes)}), ${result.verified} verified, ${result.skipped} already there${result.conflicts ? `, ${result.conflicts} kept side by side` : ''}${result.notDownloaded.length ? `, ${result.notDownloaded.length} not downloaded` : ''}.`;
    toast(`Your workspace is now in ${to === 'cloud' ? 'the cloud' : 'this computer'}.`, 'success');
  } catch (error) {
    lastResult = error.code === 'RequestCancelled' ? 'Cancelled: nothing was switched. You can resume later.' : `Failed: ${describeError(error)}`;
    toast(lastResult, error.code === 'RequestCancelled' ? 'info' : 'error');
  } finally {
    migration = null;
    await refreshStorage();
    onSwitched();
  }
}

async function cancelMigration() {
  if (!migration) return;
  $('migrate-cancel').disabled = true;
  $('migrate-cancel').textContent = 'Cancelling…';
  await cancel(migration.id);
}

function progress({ token, value }) {
  if (!migration || token !== migration.token) return;
  if (value.percentage !== undefined) migration.percentage = value.percentage;
  if (value.message) migration.message = value.message;
  const fill = $('migrate-fill');
  if (!fill) return;
  fill.style.width = `${migration.percentage}%`;
  $('migrate-progress').setAttribute('aria-valuenow', migration.percentage);
  $('migrate-pct').textContent = `${migration.percentage}%`;
  $('migrate-message').textContent = migration.message;
}

/** Wires the choice dialog and progress; `switched()` runs after the active root may have changed. */
export function setupStorage({ switched }) {
  onSwitched = switched;
  for (const el of document.querySelectorAll('#first-run [data-location]')) el.addEventListener('click', () => choose(el.dataset.location));
  $('first-run').addEventListener('cancel', (event) => {
    if (info?.needsChoice && !info.isInitialized) event.preventDefault();
  });
  on('$/progress', progress);
}

/** Usage changes with every file change: a light refresh (skipped while a migration runs). */
export function filesChanged() {
  if (!migration) refreshStorage();
}
