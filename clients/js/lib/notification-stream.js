/**
 * Server notifications as an async iterator.
 *
 * Guarantees: the iterator sees every matching notification emitted after it was created, in
 * order, each exactly once (it buffers while the consumer is busy); it finishes when the
 * connection closes (after yielding what was buffered), when `signal` aborts, or when the
 * consumer stops (`break`), and then stops listening.
 */

/**
 * @param {import('node:events').EventEmitter} source emits 'notification' {method, params} and 'close'
 * @param {string|undefined} method only this method, or every notification when undefined
 * @param {AbortSignal|undefined} signal
 * @param {boolean} [closed] the source already closed: the iterator is finished at once
 * @returns {AsyncIterableIterator<{method: string, params: any}>}
 */
export function notificationStream(source, method, signal, closed = false) {
  const buffered = [];
  let waiting = null; // the resolve of a pending next()
  let finished = false;

  const onNotification = (message) => {
    if (finished || (method !== undefined && message.method !== method)) return;
    if (waiting) {
      const resolve = waiting;
      waiting = null;
      resolve({ value: message, done: false });
    } else buffered.push(message);
  };
  const finish = () => {
    if (finished) return;
    finished = true;
    source.off('notification', onNotification);
    source.off('close', finish);
    signal?.removeEventListener('abort', stop);
    if (waiting) {
      const resolve = waiting;
      waiting = null;
      resolve({ value: undefined, done: true });
    }
  };
  // Aborting drops what is buffered: the consumer asked to stop now.
  const stop = () => {
    buffered.length = 0;
    finish();
  };

  source.on('notification', onNotification);
  source.once('close', finish);
  if (closed) finish();
  else if (signal?.aborted) stop();
  else signal?.addEventListener('abort', stop, { once: true });

  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next() {
      if (buffered.length > 0) return Promise.resolve({ value: buffered.shift(), done: false });
      if (finished) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    return() {
      stop();
      return Promise.resolve({ value: undefined, done: true });
    },
  };
}
