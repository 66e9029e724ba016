// The page's entry point: navigation between the views, the live-update wiring
// (`workspace/didChangeFiles`, `session/didChangeState`, `session/deferredReady`, `queue/ready`, `settings/didChange`),
// the seeds' `AtomeFileSystem.showStorageSettings()` (opens Storage here), and the first load.
import { refreshConflicts, setupConflicts } from './conflicts.js';
import { externalChange, setupEditor } from './editor.js';
import { go, refresh as refreshFiles, setupFiles } from './files.js';
import { refreshDevice, setupDevice } from './device.js';
import { queueReady, refreshQueue } from './queue.js';
import { connectEvents, on } from './rpc.js';
import { setupSessionSearch } from './session-search.js';
import { refreshSessions } from './sessions.js';
import { refreshSettings, settingsChanged, setupSettings } from './settings.js';
import { filesChanged, refreshStorage, setupStorage } from './storage.js';

const views = ['files', 'conflicts', 'sessions', 'device', 'queue', 'settings', 'storage'];
const onShow = { device: refreshDevice, queue: refreshQueue, settings: refreshSettings };

function showView() {
  const name = views.includes(location.hash.slice(1)) ? location.hash.slice(1) : 'files';
  for (const view of views) document.getElementById(`view-${view}`).hidden = view !== name;
  for (const item of document.querySelectorAll('.nav-item')) item.classList.toggle('active', item.dataset.view === name);
  document.body.dataset.view = name;
  return name;
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
  window.addEventListener('hashchange', () => onShow[showView()]?.());
  showView();
  window.AtomeFileSystem.onShowStorageSettings = () => {
    location.hash = 'storage';
    return { shown: 'page' };
  };

  setupEditor({ saved: () => afterFileChanges() });
  setupFiles();
  setupConflicts({ resolved: () => refreshFiles() });
  setupStorage({ switched: reloadAll });
  setupDevice({ changed: refreshQueue });
  setupSettings();
  setupSessionSearch();

  on('workspace/didChangeFiles', ({ changes }) => {
    for (const change of changes) externalChange(change.path, change.type);
    afterFileChanges();
  });
  on('session/didChangeState', debounce(refreshSessions, 100));
  on('session/deferredReady', debounce(refreshSessions, 100));
  on('queue/ready', queueReady);
  on('settings/didChange', settingsChanged);
  connectEvents(connection);

  refreshStorage();
  Promise.all([reloadAll(), refreshQueue(), refreshSettings(), refreshDevice()]).then(() => { document.body.dataset.ready = 'true'; });
}

start();
