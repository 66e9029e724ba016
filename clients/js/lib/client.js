/**
 * The WorkspaceBridge client: spawns the server (or attaches to given streams), runs the LSP
 * lifecycle, and offers typed requests, notifications, cancellation and progress.
 *
 * Guarantees:
 * - `spawn` resolves only once the server answered `initialize` (and `initialized` was sent),
 *   unless `initialize: false`; it rejects when the binary cannot be started;
 * - `shutdown` sends `shutdown`, then `exit`, closes the server's input and resolves with the
 *   process's exit status ({code: 0} for a clean exit) or, for attached streams, when the
 *   server's output ends;
 * - every server notification is emitted twice: as `'notification'` ({method, params}) and under
 *   its method name (params); `notifications()` gives them as an async iterator;
 * - the schema's request methods are available as `client.loadFile(params, options)` and
 *   `client.session.create(params, options)` (see lib/convenience.js).
 */
import { spawn as spawnProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { JsonRpcConnection } from './connection.js';
import { ConnectionClosedError } from './errors.js';
import { convenienceTable } from './convenience.js';
import { REQUEST_METHODS } from './methods.generated.js';
import { notificationStream } from './notification-stream.js';

export const CLIENT_INFO = Object.freeze({ name: 'workspace-bridge-js', version: '0.1.0' });
const STDERR_TAIL = 64 * 1024;

export class WorkspaceBridgeClient extends EventEmitter {
  /**
   * Starts `workspace-bridge serve` and (by default) initializes it.
   * @param {import('../index.js').SpawnOptions} [options]
   * @returns {Promise<WorkspaceBridgeClient>}
   */
  static async spawn(options = {}) {
    const bin = options.bin ?? process.env.WB_BIN ?? 'workspace-bridge';
    const args = ['serve', '--framing', options.framing ?? 'lsp'];
    if (options.localRoot) args.push('--local-root', options.localRoot);
    if (options.cloudRoot) args.push('--cloud-root', options.cloudRoot);
    if (options.configDir) args.push('--config-dir', options.configDir);
    if (options.logLevel) args.push('--log-level', options.logLevel);
    if (options.debugMethods) args.push('--enable-debug-methods');
    args.push(...(options.args ?? []));
    const child = spawnProcess(bin, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', options.stderr === 'inherit' ? 'inherit' : 'pipe'],
    });
    await new Promise((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => reject(new Error(`cannot start ${bin}: ${error.message}`, { cause: error })));
    });
    const client = new WorkspaceBridgeClient(child.stdout, child.stdin, { framing: options.framing ?? 'lsp', process: child });
    if (options.initialize !== false) {
      try {
        await client.initialize(options.initialize === true ? {} : options.initialize ?? {});
      } catch (error) {
        child.kill('SIGKILL');
        throw error;
      }
    }
    return client;
  }

  /**
   * Speaks to a server over given streams (its stdout as `input`, its stdin as `output`).
   * Call `initialize()` before other requests.
   */
  static attach(input, output, options = {}) {
    return new WorkspaceBridgeClient(input, output, options);
  }

  /** Prefer `spawn` or `attach`. */
  constructor(input, output, options = {}) {
    super();
    /** @type {import('node:child_process').ChildProcess|null} */
    this.process = options.process ?? null;
    this.stderrTail = '';
    this.initializeResult = null;
    this.exitStatus = null;
    this.connection = new JsonRpcConnection(input, output, { framing: options.framing ?? 'lsp' });
    this.inputEnded = new Promise((resolve) => this.connection.once('close', resolve));
    if (this.process) {
      const child = this.process;
      this.exited = new Promise((resolve) => child.once('exit', (code, signal) => {
        this.exitStatus = { code, signal };
        resolve(this.exitStatus);
      }));
      child.stderr?.on('data', (chunk) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
        this.emit('stderr', chunk.toString('utf8'));
      });
      this.connection.closeReason = () => new ConnectionClosedError(
        `the server closed its output${this.exitStatus ? ` (exit ${this.exitStatus.code ?? this.exitStatus.signal})` : ''}`,
        { exitCode: this.exitStatus?.code, signal: this.exitStatus?.signal, stderr: this.stderrTail });
    }
    this.connection.on('notification', (message) => {
      this.emit('notification', message);
      this.emit(message.method, message.params);
    });
    this.connection.on('protocolError', (error) => this.emit('protocolError', error));
    this.connection.on('close', () => this.emit('close'));
    installConvenienceMethods(this);
  }

  /** Sends `initialize` (with this process's id and client info) then `initialized`. */
  async initialize(params = {}) {
    const result = await this.request('initialize', { processId: process.pid, clientInfo: CLIENT_INFO, capabilities: {}, ...params });
    this.connection.notify('initialized', {});
    this.initializeResult = result;
    return result;
  }

  /** The server's answer to initialize (null before). */
  get serverInfo() {
    return this.initializeResult?.serverInfo ?? null;
  }

  get capabilities() {
    return this.initializeResult?.capabilities ?? null;
  }

  /** Sends a request; see lib/connection.js for cancellation and progress. */
  request(method, params, options) {
    return this.connection.request(method, params, options);
  }

  /** Sends a notification. */
  notify(method, params) {
    this.connection.notify(method, params);
  }

  /** Notifications as an async iterator (all of them, or one method's), until close or abort. */
  notifications(method, options = {}) {
    return notificationStream(this.connection, method, options.signal, this.connection.closed);
  }

  /** True once the server's output ended. */
  get closed() {
    return this.connection.closed;
  }

  /**
   * Clean shutdown: `shutdown`, `exit`, end of input; resolves with {code, signal} of the
   * process (spawned) or {code: null, signal: null} once the output ended (attached).
   * @param {{timeoutMs?: number}} [options] after this the process is killed and this rejects
   */
  async shutdown(options = {}) {
    const timeoutMs = options.timeoutMs ?? 10_000;
    if (!this.connection.closed) {
      await this.request('shutdown');
      this.notify('exit');
      this.connection.end();
    }
    const done = this.process ? this.exited : this.inputEnded.then(() => ({ code: null, signal: null }));
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => {
        this.process?.kill('SIGKILL');
        reject(new Error(`the server did not exit within ${timeoutMs} ms of shutdown`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([done, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Kills a spawned server at once (tests, emergencies); resolves with its exit status. */
  async kill(signal = 'SIGKILL') {
    if (!this.process) throw new Error('kill() needs a spawned server');
    if (this.exitStatus === null) this.process.kill(signal);
    return this.exited;
  }
}

const RESERVED = new Set([
  ...Object.getOwnPropertyNames(WorkspaceBridgeClient.prototype),
  ...Object.getOwnPropertyNames(EventEmitter.prototype),
  'process', 'connection', 'stderrTail', 'initializeResult', 'exitStatus', 'exited', 'inputEnded',
]);

function installConvenienceMethods(client) {
  for (const { method, path } of convenienceTable(REQUEST_METHODS)) {
    if (RESERVED.has(path[0])) throw new Error(`method ${method} would hide the client's own ${path[0]}`);
    const call = (params, options) => client.request(method, params, options);
    if (path.length === 1) client[path[0]] = call;
    else (client[path[0]] ??= {})[path[1]] = call;
  }
}
