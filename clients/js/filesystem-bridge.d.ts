// Types of filesystem-bridge.js (the seeds' JavaScript file bridge).
import type { DeleteResult, FileEntry, StorageInfo, WriteResult } from './protocol.js';

export type BridgeResult<T> = { success: true; data: T } | { success: false; error: string; code: string | null };
export type BridgeTransport = ((method: string, params: object) => Promise<any>) | { request(method: string, params: object): Promise<any> };

/** getStorageInfo's data: the seeds' fields plus the server's. */
export type SeedStorageInfo = Omit<StorageInfo, 'storageType'> & {
  storageType: 'icloud' | 'local';
  storageLocation: StorageInfo['storageType'];
  isICloudEnabled: boolean;
  isICloudAvailable: boolean;
};

type Callback<T> = (result: BridgeResult<T>) => void;
type FileData = string | ArrayBuffer | ArrayBufferView;

export interface FileSystemBridge {
  saveFile(path: string, data: FileData, callback?: Callback<WriteResult>): Promise<BridgeResult<WriteResult>>;
  loadFile(path: string, callback?: Callback<string>): Promise<BridgeResult<string>>;
  loadFile(path: string, options: { binary: true }, callback?: Callback<Uint8Array>): Promise<BridgeResult<Uint8Array>>;
  listFiles(folder: string, callback?: Callback<FileEntry[]>): Promise<BridgeResult<FileEntry[]>>;
  deleteFile(path: string, callback?: Callback<DeleteResult>): Promise<BridgeResult<DeleteResult>>;
  getStorageInfo(callback?: Callback<SeedStorageInfo>): Promise<BridgeResult<SeedStorageInfo>>;
  showStorageSettings(callback?: Callback<unknown>): Promise<BridgeResult<unknown>>;
  readonly promises: {
    saveFile(path: string, data: FileData): Promise<WriteResult>;
    loadFile(path: string): Promise<string>;
    loadFile(path: string, options: { binary: true }): Promise<Uint8Array>;
    listFiles(folder: string): Promise<FileEntry[]>;
    deleteFile(path: string): Promise<DeleteResult>;
    getStorageInfo(): Promise<SeedStorageInfo>;
    showStorageSettings(): Promise<unknown>;
  };
}

export declare function createFileSystemBridge(transport: BridgeTransport, options?: { showStorageSettings?: () => unknown }): FileSystemBridge;
