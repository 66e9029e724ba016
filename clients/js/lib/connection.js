/**
 * A JSON-RPC 2.0 peer over a pair of byte streams (the server's stdout and stdin).
 *
 * Guarantees:
 * - every `request` settles exactly once: with the result, with a `WorkspaceBridgeError` for an
 *   error answer, or with a `ConnectionClosedError` when the input ends first;
 * - aborting a request's `signal` sends `$/cancelRequest {id}` once; the request then settles
 *   with the server's answer (normally -32800 RequestCancelled, or the result when the work had
 *   already finished, so the caller always learns what the server did); a signal aborted before
 *   the call rejects at once with RequestCancelled and sends nothing;
 * - `onProgress` receives the `value` of every `$/progress` for the request's `workDoneToken`,
 *   in arrival order, before the request settles (the server sends progress before the answer);
 * - every server notification is emitted as `'notification'` with `{method, params}`;
 * - a request from the server is answered with -32601 (this client offers no methods).
 */
import { EventEmitter } from 'node:events';
import { createDecoder, encode } from './framing.js';
import { ConnectionClosedError, ErrorCodes, WorkspaceBridgeError } from './errors.js';

export class JsonRpcConnection extends EventEmitter {
  /**
   * @param {import('node:stream').Readable} input the server's output
   * @param {import('node:stream').Writable} output the server's input
   * @param {{framing?: 'lsp'|'ndjson'}} [options]
   */
  constructor(input, output, options = {}) {
    super();
    this.framing = options.framing ?? 'lsp';
    this.output = output;
    this.nextId = 1;
    /** @type {Map<number, {method: string, resolve: Function, reject: Function, token?: string, cleanup: Function}>} */
    this.pending = new Map();
    /** @type {Map<string|number, (value: any) => void>} */
    this.progress = new Map();
    this.closed = false;
    /** @type {() => ConnectionClosedError} */
    this.closeReason = () => new ConnectionClosedError('the connection to the server closed');
    const decoder = createDecoder(this.framing, (m) => this.receive(m), (e) => this.emit('protocolError', e));
    input.on('data', (chunk) => decoder.push(chunk));
    input.once('end', () => this.close());
    input.once('close', () => this.close());
    input.once('error', () => this.close());
    output.on('error', () => this.close());
  }

  /**
   * Sends a request and resolves with its result.
   * @param {string} method
   * @param {object} [params]
   * @param {{signal?: AbortSignal, onProgress?: (value: any) => void}} [options]
   */
  request(method, params, options = {}) {
    const { signal, onProgress } = options;
    if (signal?.aborted) {
      return Promise.reject(new WorkspaceBridgeError(
        { code: ErrorCodes.RequestCancelled, message: 'cancelled before it was sent', data: { code: 'RequestCancelled' } },
        { method, cause: signal.reason }));
    }
    if (this.closed) return Promise.reject(this.closedError(method));
    const id = this.nextId++;
    let sentParams = params;
    let token;
    if (onProgress) {
      token = params?.workDoneToken ?? `js-${id}`;
      sentParams = { ...(params ?? {}), workDoneToken: token };
      this.progress.set(token, onProgress);
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => this.notify('$/cancelRequest', { id });
      const cleanup = () => {
        signal?.removeEventListener('abort', onAbort);
        if (token !== undefined) this.progress.delete(token);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, { method, resolve, reject, cleanup });
      const message = { jsonrpc: '2.0', id, method };
      if (sentParams !== undefined) message.params = sentParams;
      this.send(message);
    });
  }

  /** Sends a notification (no answer). Ignored once the connection is closed. */
  notify(method, params) {
    if (this.closed) return;
    const message = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    this.send(message);
  }

  /** Ends the output stream (the server then finishes what it received and exits). */
  end() {
    if (!this.output.writableEnded) this.output.end();
  }

  /** Marks the connection closed and rejects every pending request. Idempotent. */
  close() {
    if (this.closed) return;
    this.closed = true;
    for (const [, entry] of this.pending) {
      entry.cleanup();
      entry.reject(this.closedError(entry.method));
    }
    this.pending.clear();
    this.emit('close');
  }

  closedError(method) {
    const error = this.closeReason();
    error.method = method;
    return error;
  }

  send(message) {
    try {
      this.output.write(encode(this.framing, message));
    } catch {
      this.close();
    }
  }

  receive(message) {
    if (Array.isArray(message)) {
      for (const item of message) this.receive(item);
      return;
    }
    if (message === null || typeof message !== 'object') {
      this.emit('protocolError', new Error(`the server sent a message that is not an object: ${JSON.stringify(message)}`));
      return;
    }
    if (typeof message.method === 'string') {
      if (message.id !== undefined && message.id !== null) {
        this.send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCodes.MethodNotFound, message: `the client offers no method ${message.method}`, data: { code: 'MethodNotFound', method: message.method } } });
        return;
      }
      if (message.method === '$/progress') {
        const handler = this.progress.get(message.params?.token);
        if (handler) handler(message.params.value);
      }
      this.emit('notification', { method: message.method, params: message.params });
      return;
    }
    const entry = this.pending.get(message.id);
    if (!entry) {
      // id null: the server could not read a request (ParseError, MessageTooLarge, ...).
      if (message.error) this.emit('protocolError', new WorkspaceBridgeError(message.error));
      return;
    }
    this.pending.delete(message.id);
    entry.cleanup();
    if (message.error) entry.reject(new WorkspaceBridgeError(message.error, { method: entry.method }));
    else entry.resolve(message.result);
  }
}
