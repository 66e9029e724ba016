// Conflicts: files a sync engine kept in two versions. Shows each original next to its
// copies and resolves them through `resolveConflict` (keep current, keep a copy, keep both,
// or save a merge). The list is what `listConflicts` last answered.
import { rpc } from './rpc.js';
import { describeError, formatBytes, formatTime, h, toast } from './ui.js';

const $ = (id) => document.getElementById(id);
let onResolved = () => {};

async function text(path) {
  try {
    return (await rpc('loadFile', { path, length: 64 * 1024 })).data;
  } catch (error) {
    return error.code === 'NotText' ? null : `(${describeError(error)})`;
  }
}

function version(title, subtitle, body, action) {
  return h('div.version', {},
    h('div.version-head', {}, h('div', {}, h('div.version-title', {}, title), h('div.muted.small', {}, subtitle)), action),
    h('pre.preview', {}, body ?? 'Not text: no preview.'));
}

async function resolve(params, label) {
  try {
    await rpc('resolveConflict', params);
    toast(`${params.path}: ${label}`, 'success');
  } catch (error) {
    toast(`Could not resolve ${params.path}: ${describeError(error)}`, 'error');
  }
  await refreshConflicts();
  onResolved(params.path);
}

async function conflictCard(conflict) {
  const current = await text(conflict.path);
  const copies = await Promise.all(conflict.copies.map(async (copy) => ({ ...copy, text: await text(copy.path) })));
  const merge = h('textarea.merge', { spellcheck: 'false', hidden: true });
  merge.value = current ?? '';
  const mergeSave = h('button.btn.primary', { hidden: true, class: 'btn primary merge-save', onclick: () => resolve({ path: conflict.path, mergedData: merge.value }, 'merged') }, 'Save merged version');
  return h('section.card.conflict', { dataset: { path: conflict.path } },
    h('div.conflict-head', {},
      h('div', {}, h('h3', {}, conflict.path), h('div.muted', {}, `${conflict.copies.length} other version${conflict.copies.length > 1 ? 's' : ''}`)),
      h('div.actions', {},
        h('button.btn.keep-both', { onclick: () => resolve({ path: conflict.path, keep: 'both' }, 'kept both versions') }, 'Keep both'),
        h('button.btn.merge-open', { onclick: () => { merge.hidden = !merge.hidden; mergeSave.hidden = merge.hidden; } }, 'Merge…'))),
    h('div.versions', {},
      version('This version', 'the file as it is', current,
        h('button.btn.keep-current', { onclick: () => resolve({ path: conflict.path, keep: 'current' }, 'kept this version') }, 'Keep this')),
      copies.map((copy) => version(copy.device ? `From ${copy.device}` : 'Other version',
        `${copy.path.split('/').pop()} · ${formatBytes(copy.size)} · ${formatTime(copy.modified)}`, copy.text,
        h('button.btn.keep-copy', { dataset: { copy: copy.path }, onclick: () => resolve({ path: conflict.path, keep: 'copy', copyPath: copy.path }, 'kept the other version') }, 'Keep this')))),
    merge, h('div.actions.end', {}, mergeSave));
}

/** Lists conflicts again and updates the sidebar count. */
export async function refreshConflicts() {
  let conflicts;
  try {
    ({ conflicts } = await rpc('listConflicts', {}));
  } catch (error) {
    toast(`Could not list conflicts: ${describeError(error)}`, 'error');
    return;
  }
  const count = $('conflict-count');
  count.hidden = conflicts.length === 0;
  count.textContent = conflicts.length;
  const cards = await Promise.all(conflicts.map(conflictCard));
  $('conflict-list').replaceChildren(...cards);
  if (!cards.length) {
    $('conflict-list').append(h('div.empty.card', { id: 'no-conflicts' }, h('div.empty-title', {}, 'No conflicts'), h('div.muted', {}, 'Every file has one version.')));
  }
}

/** `resolved(path)` runs after each resolution (the file list may change). */
export function setupConflicts({ resolved }) {
  onResolved = resolved;
}
