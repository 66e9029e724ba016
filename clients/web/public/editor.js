// The file editor: open, edit, save with `ifMatch`, and what to do when the file changed
// elsewhere. Guarantees: a save never silently overwrites a change made by someone else (the
// server refuses a stale `ifMatch` and the page asks); a clean editor follows external changes;
// a dirty one is never replaced without the user's say.
import { rpc } from './rpc.js';
import { describeError, formatBytes, formatTime, toast } from './ui.js';

const $ = (id) => document.getElementById(id);

/** What is open: {path, etag, text, dirty, binary} or null. */
let open = null;
let onSaved = () => {};

export function currentPath() {
  return open?.path ?? null;
}

function setStatus(text, kind = '') {
  const status = $('editor-status');
  status.textContent = text;
  status.className = `status ${kind}`;
}

function showMeta(info) {
  $('editor-meta').textContent = `${formatBytes(info.size)} · modified ${formatTime(info.modified)} · etag ${info.etag}`;
}

function show(visible) {
  $('editor').hidden = !visible;
  $('editor-empty').hidden = visible;
}

/** Opens `path` (replacing what is open); `line` (1-based) puts the caret on that line. */
export async function openFile(path, { line } = {}) {
  $('stale-warning').hidden = true;
  const text = $('editor-text');
  try {
    const file = await rpc('loadFile', { path });
    open = { path, etag: file.etag, text: file.data, dirty: false, binary: false };
    text.value = file.data;
    text.readOnly = false;
    showMeta(file);
    setStatus('Saved', 'ok');
  } catch (error) {
    if (error.code !== 'NotText' && error.code !== 'TooLarge' && error.code !== 'NotDownloaded') {
      toast(`Could not open ${path}: ${describeError(error)}`, 'error');
      return;
    }
    const info = await rpc('getFileInfo', { path }).catch(() => null);
    open = { path, etag: info?.etag ?? null, text: '', dirty: false, binary: true };
    text.value = error.code === 'NotDownloaded'
      ? 'This file is not downloaded to this computer yet.'
      : `This file is not text (${formatBytes(info?.size)}); it cannot be edited here.`;
    text.readOnly = true;
    if (info) showMeta(info);
    setStatus('Read only');
  }
  $('editor-path').textContent = path;
  show(true);
  document.dispatchEvent(new CustomEvent('editor-opened', { detail: { path } }));
  if (line && !open.binary) {
    const lines = text.value.split('\n');
    const start = lines.slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0);
    text.focus();
    text.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
  }
}

/** Closes the editor (after a delete, say). */
export function closeFile() {
  open = null;
  show(false);
}

/** The open file was renamed to `to`. */
export function renamed(from, to) {
  if (open?.path === from) {
    open.path = to;
    $('editor-path').textContent = to;
  }
}

/** Saves the open file; with `force`, against the etag the server last reported. */
async function save({ force = false } = {}) {
  if (!open || open.binary) return;
  const data = $('editor-text').value;
  const params = { path: open.path, data };
  if (force) {
    if (open.theirEtag) params.ifMatch = open.theirEtag;
  } else if (open.etag) {
    params.ifMatch = open.etag;
  }
  setStatus('Saving…');
  try {
    const saved = await rpc('saveFile', params);
    open = { ...open, etag: saved.etag, text: data, dirty: false, theirEtag: undefined };
    $('stale-warning').hidden = true;
    showMeta(saved);
    setStatus(`Saved at ${formatTime(saved.modified)}`, 'ok');
    onSaved(open.path);
  } catch (error) {
    if (error.code === 'PreconditionFailed') {
      open.theirEtag = error.data.currentEtag ?? undefined;
      $('stale-detail').textContent = error.data.currentEtag
        ? 'Someone (or something) saved a newer version. Saving now would overwrite it.'
        : 'The file was deleted elsewhere. Saving will create it again.';
      $('stale-warning').hidden = false;
      setStatus('Not saved', 'warn');
    } else {
      setStatus('Not saved', 'warn');
      toast(`Could not save: ${describeError(error)}`, 'error');
    }
  }
}

/** A change notification for `path` (created, changed or deleted by anyone). */
export async function externalChange(path, type) {
  if (!open || open.path !== path) return;
  if (type === 'deleted') {
    setStatus('Deleted elsewhere', 'warn');
    return;
  }
  const info = await rpc('getFileInfo', { path }).catch(() => null);
  if (!info || info.etag === open.etag) return;
  if (!$('stale-warning').hidden) open.theirEtag = info.etag; // the warning already says so
  else if (open.dirty) setStatus('Changed elsewhere: saving will ask', 'warn');
  else await openFile(path);
}

/** Wires the editor's controls; `saved(path)` is called after every successful save. */
export function setupEditor({ saved }) {
  onSaved = saved;
  const text = $('editor-text');
  text.addEventListener('input', () => {
    if (!open || open.binary) return;
    open.dirty = text.value !== open.text;
    setStatus(open.dirty ? 'Unsaved changes' : 'Saved', open.dirty ? 'dirty' : 'ok');
  });
  $('editor-save').addEventListener('click', () => save());
  $('editor-reload').addEventListener('click', () => open && openFile(open.path));
  $('stale-overwrite').addEventListener('click', () => save({ force: true }));
  $('stale-reload').addEventListener('click', () => open && openFile(open.path));
  document.addEventListener('keydown', (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === 's') {
      event.preventDefault();
      save();
    }
  });
  window.addEventListener('beforeunload', (event) => {
    if (open?.dirty) event.preventDefault();
  });
}
