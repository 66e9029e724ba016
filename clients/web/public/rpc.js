// The page's link to the host: JSON-RPC over POST /rpc, cancellation over POST /cancel, and
// the server's notifications over Server-Sent Events (/events).

/** A JSON-RPC error answered by the server; `code` is `error.data.code` (e.g. "PreconditionFailed"). */
export class RpcError extends Error {
  constructor(method, error) {
    super(error.message);
    this.method = method;
    this.rpcCode = error.code;
    this.code = error.data?.code ?? 'InternalError';
    this.data = error.data ?? {};
  }
}

const pagePrefix = Math.random().toString(36).slice(2, 10);
let nextId = 1;

/** A fresh id, unique for this page (also used as a workDoneToken). */
export function freshId(kind = 'r') {
  return `${pagePrefix}-${kind}-${nextId++}`;
}

/**
 * Calls a server method. Resolves with `result`; rejects with RpcError for a JSON-RPC error.
 * Pass `id` to be able to `cancel(id)` while it runs.
 */
export async function rpc(method, params = {}, { id = freshId() } = {}) {
  const res = await fetch('/rpc', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ id, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new RpcError(method, body.error);
  return body.result;
}

/** Asks the server to cancel the in-flight request `id`; resolves with whether it was in flight. */
export async function cancel(id) {
  const res = await fetch('/cancel', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ id }),
  });
  return (await res.json()).cancelled;
}

const listeners = new Map();

/** Calls `fn(params)` for each server notification `method`; `*` receives every message. */
export function on(method, fn) {
  if (!listeners.has(method)) listeners.set(method, new Set());
  listeners.get(method).add(fn);
  return () => listeners.get(method).delete(fn);
}

function emit(method, payload) {
  for (const fn of listeners.get(method) ?? []) fn(payload);
}

/** Opens the event stream; `onStatus('open'|'retrying'|'stopped')` reports the link's health. */
export function connectEvents(onStatus) {
  const source = new EventSource('/events');
  source.onopen = () => onStatus('open');
  source.onerror = () => onStatus(source.readyState === EventSource.CLOSED ? 'stopped' : 'retrying');
  source.onmessage = (event) => {
    const message = JSON.parse(event.data);
    emit(message.method, message.params);
    emit('*', message);
  };
  source.addEventListener('bridge-exit', () => {
    source.close();
    onStatus('stopped');
  });
  return source;
}

/**
 * Calls one function of the seeds' bridge (`window.AtomeFileSystem`, from /atome-filesystem.js)
 * and resolves with its `data`; a failure rejects with an RpcError carrying the server's code.
 */
export async function fileSystem(name, ...args) {
  const result = await window.AtomeFileSystem[name](...args);
  if (!result.success) throw new RpcError(name, { code: 0, message: result.error, data: { code: result.code ?? 'InternalError' } });
  return result.data;
}
