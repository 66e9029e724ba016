/**
 * The seeds' JavaScript file bridge (`window.AtomeFileSystem`), served by WorkspaceBridge.
 *
 *   const fs = createFileSystemBridge(client);            // Node: a WorkspaceBridgeClient
 *   const fs = createFileSystemBridge((m, p) => rpc(m, p)); // browser: any transport
 *   fs.saveFile('Projects/a.atome', text, (result) => { if (result.success) ... });
 *
 * Every call takes an optional callback and also returns a Promise; both receive the seeds'
 * result object `{success: true, data}` or `{success: false, error, code}` (`error` is a
 * message, `code` the server's `data.code` such as "NotFound"). These forms never throw.
 * `bridge.promises.*` are the same calls resolving with `data` or rejecting with the error.
 *
 * Guarantees (what `data` is):
 * - saveFile(path, data): `data` a string (saved as UTF-8) or bytes (an ArrayBuffer, any typed
 *   array or DataView, or a Blob), saved exactly; parents are created; result data is
 *   {path, size, etag, modified};
 * - loadFile(path[, {binary}]): the whole content as a string (or a Uint8Array with
 *   `binary: true`; with the option `loadAs: "auto"`, a string when the bytes are UTF-8, else an
 *   ArrayBuffer), read in pages of at most 16 MiB; if the file changes between pages the call
 *   fails instead of returning a mix;
 * - listFiles(folder): every entry of the folder (all pages), each {path, name, type, size,
 *   modified, etag, state};
 * - deleteFile(path): {path, deleted: true};
 * - getStorageInfo(): the seeds' fields with the seeds' meaning: `isICloudEnabled` (the
 *   workspace is in the cloud root now), `isICloudAvailable` (the cloud root is there),
 *   `storageType` ("icloud" when the cloud root is active, else "local"), `isInitialized` (the
 *   user has chosen); plus the server's own fields beside them (`storageLocation` carries its
 *   "local"/"cloud", and `isCloudEnabled` (a cloud root is configured), `roots`, `usage`, … as
 *   the server reports them);
 * - showStorageSettings(): calls the host's `options.showStorageSettings` (a front end opens its
 *   settings view there); without one it reports `{success: false}`.
 *
 * `options.onResult(result)`, when given, is called with every result object after its callback
 * (the browser script hands it to `window.fileSystemCallback`, the seeds' native-to-page hook).
 *
 * No Node API is used: the module runs unchanged in a browser given a transport (the web host
 * serves it, wrapped as a classic script, inside `/atome-filesystem.js`).
 */

const PAGE_BYTES = 16 * 1024 * 1024;

/**
 * @param {((method: string, params: object) => Promise<any>) | {request(method: string, params: object): Promise<any>}} transport
 * @param {{showStorageSettings?: () => unknown, loadAs?: 'text' | 'auto', onResult?: (result: object) => void}} [options]
 */
export function createFileSystemBridge(transport, options = {}) {
  const call = typeof transport === 'function'
    ? transport
    : (method, params) => transport.request(method, params);
  if (typeof call !== 'function' || (typeof transport !== 'function' && typeof transport?.request !== 'function')) {
    throw new TypeError('createFileSystemBridge needs a function (method, params) => Promise or an object with request()');
  }

  const operations = {
    saveFile: (path, data) => {
      const params = encodeForSave(path, data);
      return params instanceof Promise ? params.then((p) => call('saveFile', p)) : call('saveFile', params);
    },
    loadFile: (path, loadOptions = {}) => (loadOptions.binary === true
      ? loadWhole(call, path, true)
      : options.loadAs === 'auto' ? loadWhole(call, path, true).then(textOrBuffer) : loadWhole(call, path, false)),
    listFiles: (folder) => listAll(call, folder ?? ''),
    deleteFile: (path) => call('deleteFile', { path }),
    getStorageInfo: async () => seedStorageInfo(await call('getStorageInfo', {})),
    showStorageSettings: async () => {
      if (typeof options.showStorageSettings !== 'function') throw new Error('this host has no storage settings view');
      return (await options.showStorageSettings()) ?? null;
    },
  };

  const promises = {};
  const bridge = { promises };
  for (const [name, operation] of Object.entries(operations)) {
    promises[name] = (...args) => operation(...args);
    bridge[name] = (...args) => {
      // The callback is the last function argument (the seeds' signatures put it last).
      const callback = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
      // Called synchronously, so requests go out in call order (before a later shutdown, say).
      let settled;
      try {
        settled = Promise.resolve(operation(...args)).then((data) => ({ success: true, data }), failure);
      } catch (error) {
        settled = Promise.resolve(failure(error));
      }
      if (callback) settled.then(callback);
      if (typeof options.onResult === 'function') settled.then(options.onResult);
      return settled;
    };
  }
  return bridge;
}

/** The seeds' failure shape, keeping the server's machine-readable reason. */
function failure(error) {
  const code = error?.kind ?? error?.data?.code ?? (typeof error?.code === 'string' ? error.code : null);
  return { success: false, error: String(error?.message ?? error), code };
}

function encodeForSave(path, data) {
  if (typeof data === 'string') return { path, data, encoding: 'utf8' };
  if (data instanceof ArrayBuffer) return { path, data: toBase64(new Uint8Array(data)), encoding: 'base64' };
  if (ArrayBuffer.isView(data)) return { path, data: toBase64(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)), encoding: 'base64' };
  if (typeof Blob !== 'undefined' && data instanceof Blob) {
    return data.arrayBuffer().then((buffer) => ({ path, data: toBase64(new Uint8Array(buffer)), encoding: 'base64' }));
  }
  throw new TypeError('saveFile data must be a string, an ArrayBuffer, a typed array, a DataView or a Blob');
}

/** A string when the bytes are UTF-8 (a byte-order mark is kept), else the bytes as an ArrayBuffer. */
function textOrBuffer(bytes) {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  }
}

async function loadWhole(call, path, binary) {
  const encoding = binary ? 'base64' : 'utf8';
  const pieces = [];
  let offset = 0;
  let etag = null;
  for (;;) {
    const page = await call('loadFile', { path, encoding, offset, length: PAGE_BYTES });
    if (etag !== null && page.etag !== etag) {
      throw Object.assign(new Error(`'${path}' changed while it was being read`), { kind: 'PreconditionFailed' });
    }
    etag = page.etag;
    pieces.push(binary ? fromBase64(page.data) : page.data);
    offset += page.length;
    if (page.eof) break;
  }
  if (!binary) return pieces.join('');
  const bytes = new Uint8Array(offset);
  let at = 0;
  for (const piece of pieces) {
    bytes.set(piece, at);
    at += piece.length;
  }
  return bytes;
}

async function listAll(call, folder) {
  const entries = [];
  let cursor;
  do {
    const page = await call('listFiles', cursor === undefined ? { path: folder } : { path: folder, cursor });
    entries.push(...page.entries);
    cursor = page.nextCursor;
  } while (cursor !== undefined && cursor !== null);
  return entries;
}

function seedStorageInfo(info) {
  const { storageType, ...rest } = info;
  return {
    ...rest,
    storageType: storageType === 'cloud' ? 'icloud' : 'local',
    storageLocation: storageType,
    isICloudEnabled: storageType === 'cloud',
    isICloudAvailable: info.isCloudAvailable,
    isInitialized: info.isInitialized,
  };
}

function toBase64(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
