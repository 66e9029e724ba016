// The file browser: a folder listing with breadcrumbs, create, rename, delete, and content
// search. The listing is always what the server last answered; live changes re-list it.
import { closeFile, currentPath, openFile, renamed } from './editor.js';
import { fileSystem, rpc } from './rpc.js';
import { ask, describeError, formatBytes, formatTime, h, toast } from './ui.js';

const $ = (id) => document.getElementById(id);

let folder = '';
let searching = null; // the query whose results are shown, or null for the listing

const join = (dir, name) => (dir ? `${dir}/${name}` : name);
const parentOf = (path) => path.split('/').slice(0, -1).join('/');
const baseName = (path) => path.split('/').pop();

/** Every entry of the folder, through the seeds' bridge (it follows every page). */
async function listAll(path) {
  const entries = await fileSystem('listFiles', path);
  return entries.sort((a, b) => (a.type === 'directory') !== (b.type === 'directory')
    ? (a.type === 'directory' ? -1 : 1)
    : a.name.localeCompare(b.name));
}

function crumbs() {
  const parts = folder ? folder.split('/') : [];
  const items = [h('button.crumb', { onclick: () => go('') }, 'Workspace')];
  parts.forEach((part, i) => {
    items.push(h('span.sep', {}, '/'));
    items.push(h('button.crumb', { onclick: () => go(parts.slice(0, i + 1).join('/')) }, part));
  });
  $('crumbs').replaceChildren(...items);
}

function icon(type) {
  const paths = type === 'directory'
    ? '<path d="M3 6.5A1.5 1.5 0 0 1 4.5 5H9l2 2h8.5A1.5 1.5 0 0 1 21 8.5v9a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 17.5z"/>'
    : '<path d="M6 3h8l4 4v14H6z"/><path d="M14 3v4h4"/>';
  const span = h(`span.file-icon.${type === 'directory' ? 'dir' : 'doc'}`);
  span.innerHTML = `<svg viewBox="0 0 24 24" aria-hidden="true">${paths}</svg>`;
  return span;
}

function statePill(entry) {
  if (entry.state === 'conflicted') {
    return h('button.pill.warn', { title: 'Resolve in Conflicts', onclick: (e) => { e.stopPropagation(); location.hash = 'conflicts'; } }, 'conflict');
  }
  if (entry.state === 'notDownloaded') return h('span.pill', {}, 'in cloud');
  return null;
}

function row(entry) {
  const isDir = entry.type === 'directory';
  const meta = isDir ? 'Folder' : `${formatBytes(entry.size)} · ${formatTime(entry.modified)}`;
  return h('li.file-row', {
    dataset: { path: entry.path, type: entry.type },
    class: `file-row${entry.path === currentPath() ? ' active' : ''}`,
    onclick: () => (isDir ? go(entry.path) : openFile(entry.path)),
  },
  icon(entry.type),
  h('span.file-name', {}, entry.name),
  statePill(entry),
  h('span.file-meta', {}, meta),
  h('span.row-actions', {},
    h('button.icon-btn.rename', { title: 'Rename', onclick: (e) => { e.stopPropagation(); rename(entry); } }, 'Rename'),
    h('button.icon-btn.delete', { title: 'Delete', onclick: (e) => { e.stopPropagation(); remove(entry); } }, 'Delete')));
}

/** Lists the current folder again (keeps search results if a search is shown). */
export async function refresh() {
  if (searching !== null) return;
  crumbs();
  let entries;
  try {
    entries = await listAll(folder);
  } catch (error) {
    if (error.code === 'NotFound' && folder) return go(parentOf(folder));
    toast(`Could not list ${folder || 'the workspace'}: ${describeError(error)}`, 'error');
    return;
  }
  $('list-title').textContent = folder ? baseName(folder) : 'Workspace';
  const list = $('file-list');
  list.replaceChildren(...entries.map(row));
  if (!entries.length) list.append(h('li.empty-row.muted', {}, 'This folder is empty.'));
}

/** Shows `path` (a folder). */
export function go(path) {
  folder = path;
  searching = null;
  $('search-input').value = '';
  return refresh();
}

async function create(kind) {
  const values = await ask({
    title: kind === 'file' ? 'New file' : 'New folder',
    message: `In ${folder || 'the workspace root'}. Use / to create inside subfolders.`,
    fields: [{ name: 'name', label: 'Name', value: kind === 'file' ? 'Untitled.md' : 'New folder' }],
    confirm: 'Create',
  });
  if (!values?.name) return;
  const path = join(folder, values.name);
  try {
    if (kind === 'file') await rpc('saveFile', { path, data: '', exclusive: true });
    else await rpc('createFolder', { path });
    await refresh();
    if (kind === 'file') await openFile(path);
    toast(`Created ${path}`, 'success');
  } catch (error) {
    toast(`Could not create ${path}: ${describeError(error)}`, 'error');
  }
}

async function rename(entry) {
  const values = await ask({ title: `Rename ${entry.name}`, fields: [{ name: 'name', label: 'New name', value: entry.name }], confirm: 'Rename' });
  if (!values?.name || values.name === entry.name) return;
  const to = join(parentOf(entry.path), values.name);
  try {
    await rpc('moveFile', { from: entry.path, to });
    renamed(entry.path, to);
    await refresh();
    toast(`Renamed to ${values.name}`, 'success');
  } catch (error) {
    toast(`Could not rename: ${describeError(error)}`, 'error');
  }
}

async function remove(entry) {
  const isDir = entry.type === 'directory';
  const ok = await ask({
    title: `Delete ${entry.name}?`,
    message: isDir ? 'The folder and everything in it will be deleted.' : 'This cannot be undone.',
    confirm: 'Delete',
    danger: true,
  });
  if (!ok) return;
  try {
    if (isDir) await rpc('deleteFile', { path: entry.path, recursive: true });
    else await fileSystem('deleteFile', entry.path);
    if (currentPath() === entry.path || currentPath()?.startsWith(`${entry.path}/`)) closeFile();
    await refresh();
    toast(`Deleted ${entry.name}`, 'success');
  } catch (error) {
    toast(`Could not delete: ${describeError(error)}`, 'error');
  }
}

function highlight(text, query) {
  const at = text.toLowerCase().indexOf(query.toLowerCase());
  if (at < 0) return [text];
  return [text.slice(0, at), h('mark', {}, text.slice(at, at + query.length)), text.slice(at + query.length)];
}

async function search(query) {
  if (!query) return go(folder);
  searching = query;
  try {
    const found = await rpc('searchFiles', { query, maxResults: 500 });
    const files = new Set(found.matches.map((m) => m.path));
    const n = found.matches.length;
    $('list-title').textContent = `${n}${found.truncated ? '+' : ''} match${n === 1 ? '' : 'es'} in ${files.size} file${files.size === 1 ? '' : 's'} for “${query}”`;
    $('file-list').replaceChildren(...found.matches.map((match) => h('li.search-hit', {
      dataset: { path: match.path, line: match.line },
      onclick: () => openFile(match.path, { line: match.line }),
    },
    h('div.hit-path', {}, match.path, h('span.muted', {}, `:${match.line}`)),
    h('div.hit-text', {}, highlight(match.text.trim(), query)))));
    if (!found.matches.length) $('file-list').append(h('li.empty-row.muted', {}, 'Nothing found.'));
  } catch (error) {
    toast(`Search failed: ${describeError(error)}`, 'error');
  }
}

export function setupFiles() {
  $('new-file').addEventListener('click', () => create('file'));
  $('new-folder').addEventListener('click', () => create('folder'));
  $('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    search($('search-input').value.trim());
  });
  $('search-input').addEventListener('search', () => {
    if (!$('search-input').value.trim()) go(folder);
  });
  document.addEventListener('editor-opened', ({ detail }) => {
    for (const el of document.querySelectorAll('.file-row')) el.classList.toggle('active', el.dataset.path === detail.path);
  });
}
