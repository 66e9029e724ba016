// A connection to one `workspace-bridge serve` child process over the LSP base protocol
// (Content-Length framing), on Node built-ins only.
//
// Guarantees:
// - `request()` resolves with the JSON-RPC response object (result or error, never throws
//   for a JSON-RPC error) and rejects only when the server exits before answering.
// - Every server notification and server-to-client message without a pending id is passed
//   to the `onMessage` listeners, in the order the server wrote them.
// - `$/progress` for a request always arrives before that request's response (the server
//   guarantees it; this reader preserves the order).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The server binary: `$WB_BIN`, else `<repo>/.build/debug/workspace-bridge`. */
export function defaultBinary() {
  if (process.env.WB_BIN) return process.env.WB_BIN;
  const debug = path.resolve(here, '../../.build/debug/workspace-bridge');
  const release = path.resolve(here, '../../.build/release/workspace-bridge');
  return existsSync(debug) || !existsSync(release) ? debug : release;
}

/** Splits a byte stream into LSP-framed JSON messages. */
export class FrameReader {
  constructor(onMessage) {
    this.buffer = Buffer.alloc(0);
    this.onMessage = onMessage;
  }

  push(chunk) {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const header = this.buffer.subarray(0, headerEnd).toString('ascii');
      const match = /content-length:\s*(\d+)/i.exec(header);
      if (!match) throw new Error(`bad frame header from server: ${header}`);
      const length = Number(match[1]);
      const start = headerEnd + 4;
      if (this.buffer.length < start + length) return;
      const body = this.buffer.subarray(start, start + length).toString('utf8');
      this.buffer = this.buffer.subarray(start + length);
      this.onMessage(JSON.parse(body));
    }
  }
}

/** Encodes one message as an LSP frame. */
export function frame(message) {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
}

export class Bridge {
  /**
   * Spawns the server. `args` are passed after `serve`; stderr is inherited unless `quiet`.
   * @param {{binary?: string, args?: string[], quiet?: boolean}} options
   */
  constructor({ binary = defaultBinary(), args = [], quiet = false } = {}) {
    this.binary = binary;
    this.pending = new Map();
    this.listeners = new Set();
    this.exitListeners = new Set();
    this.nextId = 1;
    this.exited = null;
    this.child = spawn(binary, ['serve', '--framing', 'lsp', ...args], {
      stdio: ['pipe', 'pipe', quiet ? 'ignore' : 'inherit'],
    });
    const reader = new FrameReader((message) => this.#dispatch(message));
    this.child.stdout.on('data', (chunk) => reader.push(chunk));
    this.child.stdin.on('error', () => {}); // an exit is reported through 'exit' below
    this.child.on('error', (error) => this.#finish({ code: null, error }));
    this.child.on('exit', (code, signal) => this.#finish({ code, signal }));
  }

  /**
   * Sends a request with `id` (default: the next `host-N`); `response` resolves with the whole
   * response `{id, result}` or `{id, error}`. Refuses an id that is still in flight.
   */
  send(method, params, id = `host-${this.nextId++}`) {
    if (this.exited) return { id, response: Promise.reject(new Error(`server exited (${JSON.stringify(this.exited)})`)) };
    if (this.pending.has(id)) return { id, response: Promise.reject(new Error(`request id ${id} is in flight`)) };
    const message = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    const response = new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(frame(message));
    });
    return { id, response };
  }

  /** Sends a request; resolves with the whole response `{id, result}` or `{id, error}`. */
  request(method, params) {
    return this.send(method, params).response;
  }

  /** Whether a request with this id is waiting for its answer. */
  isPending(id) {
    return this.pending.has(id);
  }

  /** Like `request`, but resolves with `result` and rejects with the JSON-RPC error. */
  async call(method, params) {
    const response = await this.request(method, params);
    if (response.error) {
      const error = new Error(`${method}: ${response.error.message}`);
      error.rpc = response.error;
      throw error;
    }
    return response.result;
  }

  /** Sends a notification (no answer). */
  notify(method, params) {
    if (this.exited) return;
    const message = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    this.child.stdin.write(frame(message));
  }

  /** Listens to server notifications; returns a function that stops listening. */
  onMessage(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called once with `{code, signal?, error?}` when the server process ends. */
  onExit(listener) {
    if (this.exited) listener(this.exited);
    else this.exitListeners.add(listener);
  }

  /**
   * Lifecycle `shutdown` then `exit`, then end of input; resolves when the process has ended (or
   * was killed). A server denied the lifecycle (the web host's, `--deny lifecycle`) refuses both
   * and ends at the end of input, finishing what runs, with status 0.
   */
  async close(timeoutMs = 3000) {
    if (this.exited) return this.exited;
    const ended = new Promise((resolve) => this.onExit(resolve));
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    try {
      await Promise.race([this.request('shutdown'), ended]);
      this.notify('exit');
      this.child.stdin.end();
    } catch {
      // already gone
    }
    const result = await ended;
    clearTimeout(timer);
    return result;
  }

  #dispatch(message) {
    if (message.id !== undefined && message.method === undefined && this.pending.has(message.id)) {
      const { resolve } = this.pending.get(message.id);
      this.pending.delete(message.id);
      resolve(message);
      return;
    }
    for (const listener of this.listeners) listener(message);
  }

  #finish(status) {
    if (this.exited) return;
    this.exited = status;
    for (const { reject } of this.pending.values()) reject(new Error(`server exited (${JSON.stringify(status)})`));
    this.pending.clear();
    for (const listener of this.exitListeners) listener(status);
    this.exitListeners.clear();
  }
}
