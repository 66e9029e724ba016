// Synced settings: the user's preferences that follow them across devices (the server's
// key-value store). List, add, edit (JSON values), remove; a change made on another device (or
// by another process) arrives as `settings/didChange` and is shown at once, highlighted.
import { rpc } from './rpc.js';
import { describeError, formatTime, h, toast } from './ui.js';

const $ = (id) => document.getElementById(id);

let values = {};
let updatedAt = null;
const recent = new Map(); // key -> 'remote' | 'local' for keys changed elsewhere since shown

function show(value) {
  return JSON.stringify(value);
}

/** A value typed by the user: JSON when it parses, else the text as a string. */
function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function save(key, text) {
  const value = parse(text);
  if (value === null) {
    toast('A setting cannot be null: remove it instead', 'error');
    return false;
  }
  try {
    ({ values } = await rpc('settings/set', { values: { [key]: value } }));
    recent.delete(key);
    updatedAt = new Date().toISOString();
    render();
    toast(`Saved ${key}`, 'success');
    return true;
  } catch (error) {
    toast(`Could not save ${key}: ${describeError(error)}`, 'error');
    return false;
  }
}

async function remove(key) {
  try {
    ({ values } = await rpc('settings/remove', { keys: [key] }));
    recent.delete(key);
    render();
    toast(`Removed ${key}`, 'success');
  } catch (error) {
    toast(`Could not remove ${key}: ${describeError(error)}`, 'error');
  }
}

function row(key) {
  const input = h('input.setting-value', { value: show(values[key]), spellcheck: 'false', 'aria-label': `Value of ${key}` });
  const source = recent.get(key);
  return h('tr.setting', { dataset: { key, source: source ?? '' }, class: `setting${source ? ' changed' : ''}` },
    h('th', { scope: 'row' }, h('code', {}, key)),
    h('td', {}, h('form.inline', { onsubmit: (e) => { e.preventDefault(); save(key, input.value); } }, input,
      h('button.btn.save', { type: 'submit' }, 'Save'))),
    h('td.setting-source', {}, source === 'remote' ? h('span.pill.accent', {}, 'from another device')
      : source === 'local' ? h('span.pill', {}, 'from another app') : ''),
    h('td', {}, h('button.icon-btn.remove', { title: `Remove ${key}`, onclick: () => remove(key) }, 'Remove')));
}

function render() {
  const keys = Object.keys(values).sort();
  $('settings-meta').textContent = `${keys.length} setting${keys.length === 1 ? '' : 's'} · last change ${formatTime(updatedAt)}`;
  $('settings-rows').replaceChildren(...(keys.length ? keys.map(row) : [h('tr', { id: 'no-settings' }, h('td.muted', { colspan: '4' }, 'No settings yet.'))]));
}

/** Reads every setting again and redraws. */
export async function refreshSettings() {
  try {
    ({ values, updatedAt } = await rpc('settings/get'));
    recent.clear();
    render();
  } catch (error) {
    toast(`Could not read the settings: ${describeError(error)}`, 'error');
  }
}

/** `settings/didChange`: apply the change at once and mark the keys. */
export function settingsChanged({ changed, source }) {
  for (const [key, value] of Object.entries(changed)) {
    if (value === null) delete values[key];
    else values[key] = value;
    recent.set(key, source);
  }
  updatedAt = new Date().toISOString();
  render();
  const keys = Object.keys(changed);
  toast(`${keys.join(', ')} changed ${source === 'remote' ? 'on another device' : 'in another app'}`, 'info');
}

export function setupSettings() {
  $('settings-add').addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = $('settings-new-key').value.trim();
    if (!key) return;
    if (await save(key, $('settings-new-value').value)) {
      $('settings-new-key').value = '';
      $('settings-new-value').value = '';
    }
  });
}
