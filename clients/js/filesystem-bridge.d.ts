// Types of filesystem-bridge.js (the seeds' JavaScript file bridge).
import type { DeleteResult, FileEntry, StorageInfo, WriteResult } from './protocol.js';

export type BridgeResult<T> = { success: true; data: T } | { success: false; error: string; code: string | null };
export type BridgeTransport = ((method: string, params: object) => Promise<any>) | { request(method: string, params: object): Promise<any> };

/**
 * getStorageInfo's data: the seeds' fields with the seeds' meaning (`isICloudEnabled`: the
 * workspace is in the cloud root now) plus the server's (`isCloudEnabled`: a cloud root is configured).
 */
export type SeedStorageInfo = Omit<StorageInfo, 'storageType'> & {
  storageType: 'icloud' | 'local';
  storageLocation: StorageInfo['storageType'];
  isICloudEnabled: boolean;
  isICloudAvailable: boolean;
};

type Callback<T> = (result: BridgeResult<T>) => void;
export type FileData = string | ArrayBuffer | ArrayBufferView | Blob;

export interface FileSystemBridgeOptions {
  /** Opens the host's storage settings (showStorageSettings fails without it). */
  showStorageSettings?: () => unknown;
  /** "auto": loadFile gives a string for UTF-8 content, else an ArrayBuffer. Default "text". */
  loadAs?: 'text' | 'auto';
  /** Called with every result object, after its callback (the seeds' window.fileSystemCallback). */
  onResult?: (result: BridgeResult<unknown>) => void;
}

/** `Text` is what loadFile gives without `{binary: true}`: a string, or with loadAs "auto" string | ArrayBuffer. */
export interface FileSystemBridge<Text = string> {
  saveFile(path: string, data: FileData, callback?: Callback<WriteResult>): Promise<BridgeResult<WriteResult>>;
  loadFile(path: string, callback?: Callback<Text>): Promise<BridgeResult<Text>>;
  loadFile(path: string, options: { binary: true }, callback?: Callback<Uint8Array>): Promise<BridgeResult<Uint8Array>>;
  listFiles(folder: string, callback?: Callback<FileEntry[]>): Promise<BridgeResult<FileEntry[]>>;
  deleteFile(path: string, callback?: Callback<DeleteResult>): Promise<BridgeResult<DeleteResult>>;
  getStorageInfo(callback?: Callback<SeedStorageInfo>): Promise<BridgeResult<SeedStorageInfo>>;
  showStorageSettings(callback?: Callback<unknown>): Promise<BridgeResult<unknown>>;
  readonly promises: {
    saveFile(path: string, data: FileData): Promise<WriteResult>;
    loadFile(path: string): Promise<Text>;
    loadFile(path: string, options: { binary: true }): Promise<Uint8Array>;
    listFiles(folder: string): Promise<FileEntry[]>;
    deleteFile(path: string): Promise<DeleteResult>;
    getStorageInfo(): Promise<SeedStorageInfo>;
    showStorageSettings(): Promise<unknown>;
  };
}

export declare function createFileSystemBridge(transport: BridgeTransport, options: FileSystemBridgeOptions & { loadAs: 'auto' }): FileSystemBridge<string | ArrayBuffer>;
export declare function createFileSystemBridge(transport: BridgeTransport, options?: FileSystemBridgeOptions): FileSystemBridge;
