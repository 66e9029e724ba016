// Types of the client's runtime API (hand-written); protocol types are generated into protocol.d.ts.
import { EventEmitter } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type {
  ClientNotificationMap, ClientNotificationMethod, InitializeParams, InitializeResult, ParamsOf,
  ProgressValue, RequestMethod, ResultOf, ServerCapabilities, ServerInfo, ServerNotificationMap,
  ServerNotificationMethod, WorkspaceBridgeMethods,
} from './protocol.js';

export * from './protocol.js';
export { createFileSystemBridge } from './filesystem-bridge.js';
export type { FileSystemBridge, FileSystemBridgeOptions, FileData, BridgeResult, BridgeTransport } from './filesystem-bridge.js';

export interface RequestOptions {
  /** Aborting sends $/cancelRequest; the promise settles with the server's answer (usually RequestCancelled). */
  signal?: AbortSignal;
  /** Receives every $/progress value of this request (a workDoneToken is added to the params). */
  onProgress?: (value: ProgressValue) => void;
}

export interface SpawnOptions {
  /** The server binary; default $WB_BIN, else `workspace-bridge` on PATH. */
  bin?: string;
  localRoot?: string;
  cloudRoot?: string;
  configDir?: string;
  logLevel?: 'trace' | 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical';
  /** Adds --enable-debug-methods (debug/* methods). */
  debugMethods?: boolean;
  /** Extra command-line arguments. */
  args?: string[];
  framing?: 'lsp' | 'ndjson';
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** 'pipe' (default: kept as a tail for errors and emitted as 'stderr') or 'inherit'. */
  stderr?: 'pipe' | 'inherit';
  /** Params merged into initialize, or false to initialize later by hand. */
  initialize?: Partial<InitializeParams> | boolean;
}

export interface AttachOptions {
  framing?: 'lsp' | 'ndjson';
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export type NotificationMessage<M extends ServerNotificationMethod = ServerNotificationMethod> =
  { [K in M]: { method: K; params: ServerNotificationMap[K] } }[M];

type ParamsArgs<M extends RequestMethod> = {} extends ParamsOf<M>
  ? [params?: ParamsOf<M>, options?: RequestOptions]
  : [params: ParamsOf<M>, options?: RequestOptions];

export interface WorkspaceBridgeClient extends WorkspaceBridgeMethods {}
export declare class WorkspaceBridgeClient extends EventEmitter {
  static spawn(options?: SpawnOptions): Promise<WorkspaceBridgeClient>;
  static attach(input: Readable, output: Writable, options?: AttachOptions): WorkspaceBridgeClient;
  readonly process: ChildProcess | null;
  readonly serverInfo: ServerInfo | null;
  readonly capabilities: ServerCapabilities | null;
  readonly closed: boolean;
  /** The last 64 KiB the spawned server wrote to stderr. */
  readonly stderrTail: string;
  initialize(params?: Partial<InitializeParams>): Promise<InitializeResult>;
  request<M extends RequestMethod>(method: M, ...args: ParamsArgs<M>): Promise<ResultOf<M>>;
  notify<M extends ClientNotificationMethod>(method: M, params?: ClientNotificationMap[M]): void;
  notifications<M extends ServerNotificationMethod>(method: M, options?: { signal?: AbortSignal }): AsyncIterableIterator<NotificationMessage<M>>;
  notifications(method?: undefined, options?: { signal?: AbortSignal }): AsyncIterableIterator<NotificationMessage>;
  shutdown(options?: { timeoutMs?: number }): Promise<ExitStatus>;
  kill(signal?: NodeJS.Signals): Promise<ExitStatus>;
  on<M extends ServerNotificationMethod>(event: M, listener: (params: ServerNotificationMap[M]) => void): this;
  on(event: 'notification', listener: (message: NotificationMessage) => void): this;
  on(event: 'protocolError' | 'stderr' | 'close', listener: (value?: any) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
  once<M extends ServerNotificationMethod>(event: M, listener: (params: ServerNotificationMap[M]) => void): this;
  once(event: string | symbol, listener: (...args: any[]) => void): this;
}

export declare class JsonRpcConnection extends EventEmitter {
  constructor(input: Readable, output: Writable, options?: AttachOptions);
  readonly closed: boolean;
  request(method: string, params?: object, options?: RequestOptions): Promise<unknown>;
  notify(method: string, params?: object): void;
  end(): void;
}

export declare class WorkspaceBridgeError extends Error {
  /** JSON-RPC error.code (-32803 for domain failures). */
  readonly code: number;
  /** error.data as sent by the server. */
  readonly data: any;
  /** error.data.code: "NotFound", "RequestCancelled", ... */
  readonly kind: string | null;
  readonly method: string | null;
  readonly cancelled: boolean;
}

export declare class ConnectionClosedError extends Error {
  readonly kind: 'ConnectionClosed';
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stderr: string;
  readonly method: string | null;
}

export declare const ErrorCodes: Readonly<{
  ParseError: -32700; InvalidRequest: -32600; MethodNotFound: -32601; InvalidParams: -32602;
  InternalError: -32603; ServerNotInitialized: -32002; RequestCancelled: -32800; RequestFailed: -32803;
}>;
export declare const CLIENT_INFO: Readonly<{ name: string; version: string }>;
export declare const REQUEST_METHODS: readonly RequestMethod[];
export declare const SERVER_NOTIFICATIONS: readonly ServerNotificationMethod[];
export declare const CLIENT_NOTIFICATIONS: readonly ClientNotificationMethod[];
