// The page's entry point: navigation between the four views, the live-update wiring
// (`workspace/didChangeFiles`, `session/didChangeState`), and the first load.
import { refreshConflicts, setupConflicts } from './conflicts.js';
import { externalChange, setupEditor } from './editor.js';
import { go, refresh as refreshFiles, setupFiles } from './files.js';
import { connectEvents, on } from './rpc.js';
import { refreshSessions } from './sessions.js';
import { filesChanged, refreshStorage, setupStorage } from './storage.js';

const views = ['files', 'conflicts', 'sessions', 'storage'];

function showView() {
  const name = views.includes(location.hash.slice(1)) ? location.hash.slice(1) : 'files';
  for (const view of views) document.getElementById(`view-${view}`).hidden = view !== name;
  for (const item of document.querySelectorAll('.nav-item')) item.classList.toggle('active', item.dataset.view === name);
  document.body.dataset.view = name;
}

function debounce(fn, ms) {
  let timer = null;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(fn, ms);
  };
}

/** Everything that depends on which root is active. */
async function reloadAll() {
  await Promise.all([go(''), refreshConflicts(), refreshSessions()]);
}

const afterFileChanges = debounce(() => {
  refreshFiles();
  refreshConflicts();
  filesChanged();
}, 120);

function connection(status) {
  const conn = document.getElementById('conn');
  conn.dataset.status = status;
  document.getElementById('conn-text').textContent = {
    open: 'Live', retrying: 'Reconnecting…', stopped: 'Server stopped',
  }[status];
}

function start() {
  for (const item of document.querySelectorAll('.nav-item')) {
    item.addEventListener('click', () => { location.hash = item.dataset.view; });
  }
  window.addEventListener('hashchange', showView);
  showView();

  setupEditor({ saved: () => afterFileChanges() });
  setupFiles();
  setupConflicts({ resolved: () => refreshFiles() });
  setupStorage({ switched: reloadAll });

  on('workspace/didChangeFiles', ({ changes }) => {
    for (const change of changes) externalChange(change.path, change.type);
    afterFileChanges();
  });
  on('session/didChangeState', debounce(refreshSessions, 100));
  connectEvents(connection);

  refreshStorage();
  reloadAll().then(() => { document.body.dataset.ready = 'true'; });
}

start();
