// Types of /atome-filesystem.js (served by clients/web/host.mjs): the globals it defines in a
// web page, as seed 002's JavaScript bridge names them. Reference it from a page's TypeScript:
//   /// <reference path="path/to/clients/web/atome-filesystem.d.ts" />
// (needs the "dom" lib).

/** `data` on success; on failure a human message in `error` and the server's `data.code` in `code`. */
type AtomeResult<T> = { success: true; data: T } | { success: false; error: string; code: string | null };
type AtomeCallback<T> = (result: AtomeResult<T>) => void;
/** Saved exactly: a string as UTF-8, anything else byte for byte. */
type AtomeFileData = string | ArrayBuffer | ArrayBufferView | Blob;

/** saveFile's (and exportAudio's, saveProject's) data. */
interface AtomeSaved {
  path: string;
  size: number;
  etag: string;
  modified: string;
}

/** One entry of listFiles. */
interface AtomeFileEntry {
  path: string;
  name: string;
  /** "file", "directory", … (the server's EntryType). */
  type: string;
  size: number;
  modified: string;
  etag: string;
  /** "local", "notDownloaded", "conflicted", … (the server's FileState). */
  state: string;
}

/** getStorageInfo's data: the seeds' four fields, then the server's own beside them. */
interface AtomeStorageInfo {
  /** The workspace is in the cloud root now. */
  isICloudEnabled: boolean;
  /** The cloud root is configured and there. */
  isICloudAvailable: boolean;
  storageType: 'icloud' | 'local';
  /** The user has made the first-run choice. */
  isInitialized: boolean;
  /** The server's name for where the workspace is. */
  storageLocation: 'local' | 'cloud';
  /** A cloud root is configured (whether or not it is in use). */
  isCloudEnabled: boolean;
  isCloudAvailable: boolean;
  needsChoice: boolean;
  cloudProvider: string | null;
  roots: { local: string; cloud: string | null };
  usage: { files: number; bytes: number };
  [more: string]: unknown;
}

interface AtomeFileSystemAPI {
  saveFile(path: string, data: AtomeFileData, callback?: AtomeCallback<AtomeSaved>): Promise<AtomeResult<AtomeSaved>>;
  /** A string when the file is UTF-8, else an ArrayBuffer. */
  loadFile(path: string, callback?: AtomeCallback<string | ArrayBuffer>): Promise<AtomeResult<string | ArrayBuffer>>;
  listFiles(folder: string, callback?: AtomeCallback<AtomeFileEntry[]>): Promise<AtomeResult<AtomeFileEntry[]>>;
  deleteFile(path: string, callback?: AtomeCallback<{ path: string; deleted: boolean }>): Promise<AtomeResult<{ path: string; deleted: boolean }>>;
  getStorageInfo(callback?: AtomeCallback<AtomeStorageInfo>): Promise<AtomeResult<AtomeStorageInfo>>;
  /** Opens the front end's Storage settings: `onShowStorageSettings` when set, else /#storage in a window. */
  showStorageSettings(callback?: AtomeCallback<unknown>): Promise<AtomeResult<unknown>>;
  /** Set this to show your own settings instead. */
  onShowStorageSettings: (() => unknown) | null;
}

interface Window {
  AtomeFileSystem: AtomeFileSystemAPI;
  /** The seeds' native-to-page hook: called with every result object, after its callback. */
  fileSystemCallback?: (result: AtomeResult<unknown>) => void;
  /** Saves `Projects/<name>.atome` (JSON); rejects with an Error carrying `code`. */
  saveProject(projectData: unknown, name: string): Promise<AtomeSaved>;
  /** Loads and parses `Projects/<name>.atome`. */
  loadProject(name: string): Promise<any>;
  /** Saves `Exports/<name>.wav`, byte for byte. */
  exportAudio(audioData: AtomeFileData, name: string): Promise<AtomeSaved>;
}

declare var AtomeFileSystem: AtomeFileSystemAPI;
declare function saveProject(projectData: unknown, name: string): Promise<AtomeSaved>;
declare function loadProject(name: string): Promise<any>;
declare function exportAudio(audioData: AtomeFileData, name: string): Promise<AtomeSaved>;
