/**
 * Errors a WorkspaceBridge client raises.
 *
 * Guarantees: every error answer from the server rejects with a `WorkspaceBridgeError`
 * carrying the JSON-RPC `code`, the server's `message`, its `data` unchanged, and
 * `kind` = `data.code` (the stable, machine-readable reason such as "NotFound").
 * A request that can no longer be answered because the connection ended rejects with a
 * `ConnectionClosedError` (`kind` = "ConnectionClosed").
 */

/** JSON-RPC `error.code` values the server uses (docs/protocol.md, "Errors"). */
export const ErrorCodes = Object.freeze({
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ServerNotInitialized: -32002,
  RequestCancelled: -32800,
  RequestFailed: -32803,
});

/** An error answer of the server (or, for cancellation before sending, of this client). */
export class WorkspaceBridgeError extends Error {
  /**
   * @param {{code: number, message: string, data?: any}} error the JSON-RPC error object
   * @param {{method?: string, cause?: unknown}} [context]
   */
  constructor(error, context = {}) {
    super(String(error?.message ?? 'unknown error'), context.cause === undefined ? undefined : { cause: context.cause });
    this.name = 'WorkspaceBridgeError';
    /** @type {number} JSON-RPC error.code */
    this.code = typeof error?.code === 'number' ? error.code : ErrorCodes.InternalError;
    /** @type {any} error.data as sent */
    this.data = error?.data;
    /** @type {string|null} error.data.code: "NotFound", "RequestCancelled", ... */
    this.kind = typeof error?.data?.code === 'string' ? error.data.code : null;
    /** @type {string|null} the method of the request that failed */
    this.method = context.method ?? null;
  }

  /** True when the request was cancelled (by an AbortSignal or the server). */
  get cancelled() {
    return this.code === ErrorCodes.RequestCancelled;
  }
}

/** The connection ended (the server exited or the streams closed) before an answer. */
export class ConnectionClosedError extends Error {
  /**
   * @param {string} message
   * @param {{exitCode?: number|null, signal?: string|null, stderr?: string, method?: string}} [details]
   */
  constructor(message, details = {}) {
    super(message);
    this.name = 'ConnectionClosedError';
    this.kind = 'ConnectionClosed';
    this.exitCode = details.exitCode ?? null;
    this.signal = details.signal ?? null;
    this.stderr = details.stderr ?? '';
    this.method = details.method ?? null;
  }
}
