// The page side of /atome-filesystem.js: the seeds' `window.AtomeFileSystem` over this host's
// POST /rpc, `window.fileSystemCallback`, and the seeds' convenience functions. The host serves
// this file after `clients/js/filesystem-bridge.js` inside one function scope (a classic
// script: no modules, no build step); `createFileSystemBridge` comes from there.
//
// Guarantees:
// - every AtomeFileSystem function takes the seeds' callback last and also returns a Promise;
//   both get `{success: true, data}` or `{success: false, error, code}`, and then
//   `window.fileSystemCallback` (if the page has set one) is called with the same object;
// - loadFile gives a string when the file is UTF-8 and an ArrayBuffer otherwise;
// - saveFile and exportAudio take strings, ArrayBuffers, typed arrays, DataViews and Blobs and
//   put exactly those bytes on disk;
// - requests go to this page's own origin only (the host refuses any other).

let nextId = 1;
const idPrefix = `atome-${Math.random().toString(36).slice(2, 10)}`;

async function rpcCall(method, params) {
  const res = await fetch('/rpc', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ id: `${idPrefix}-${nextId++}`, method, params }),
  });
  let body;
  try {
    body = await res.json();
  } catch {
    throw Object.assign(new Error(`the workspace host answered HTTP ${res.status}`), { kind: 'InternalError' });
  }
  if (body.error) {
    throw Object.assign(new Error(body.error.message), { kind: body.error.data?.code ?? 'InternalError', data: body.error.data });
  }
  if (!res.ok) throw Object.assign(new Error(body.error ?? `HTTP ${res.status}`), { kind: 'InternalError' });
  return body.result;
}

/** The front end's storage settings, for a page that has none of its own. */
const settingsUrl = '/#storage';

const bridge = createFileSystemBridge(rpcCall, {
  loadAs: 'auto',
  onResult: (result) => {
    if (typeof window.fileSystemCallback === 'function') window.fileSystemCallback(result);
  },
  showStorageSettings: () => {
    const own = window.AtomeFileSystem.onShowStorageSettings;
    if (typeof own === 'function') return own() ?? { shown: 'page' };
    const opened = window.open(settingsUrl, 'workspace-storage-settings');
    if (!opened) throw new Error(`the browser blocked the storage settings window; open ${settingsUrl} on this host`);
    return { shown: 'window', url: new URL(settingsUrl, location.href).href };
  },
});

window.AtomeFileSystem = {
  saveFile: (path, data, callback) => bridge.saveFile(path, data, callback),
  loadFile: (path, callback) => bridge.loadFile(path, callback),
  listFiles: (folder, callback) => bridge.listFiles(folder, callback),
  deleteFile: (path, callback) => bridge.deleteFile(path, callback),
  getStorageInfo: (callback) => bridge.getStorageInfo(callback),
  showStorageSettings: (callback) => bridge.showStorageSettings(callback),
  /** Set to a function to show your own settings; by default /#storage opens in a window. */
  onShowStorageSettings: null,
};

/** The seeds' Promise form: resolves with `data`, rejects with an Error carrying `code`. */
function settle(resolve, reject) {
  return (result) => (result.success ? resolve(result.data) : reject(Object.assign(new Error(result.error), { code: result.code })));
}

window.saveProject = (projectData, name) => new Promise((resolve, reject) => {
  window.AtomeFileSystem.saveFile(`Projects/${name}.atome`, JSON.stringify(projectData), settle(resolve, reject));
});

window.loadProject = (name) => new Promise((resolve, reject) => {
  window.AtomeFileSystem.loadFile(`Projects/${name}.atome`, settle((data) => {
    if (typeof data !== 'string') return reject(Object.assign(new Error(`Projects/${name}.atome is not text`), { code: 'NotText' }));
    try {
      resolve(JSON.parse(data));
    } catch (error) {
      reject(Object.assign(new Error(`Projects/${name}.atome is not a project (${error.message})`), { code: 'InvalidProject' }));
    }
  }, reject));
});

window.exportAudio = (audioData, name) => new Promise((resolve, reject) => {
  window.AtomeFileSystem.saveFile(`Exports/${name}.wav`, audioData, settle(resolve, reject));
});
