// The offline queue: work waiting for the network (or done, or failed), with complete, fail and
// retry. Follows `queue/ready` (the server's "the network is back, these are due").
import { rpc } from './rpc.js';
import { describeError, formatTime, h, toast } from './ui.js';

const $ = (id) => document.getElementById(id);

let items = [];

const statusText = { pending: 'Waiting', completed: 'Done', failed: 'Failed' };
const pillClass = { pending: 'accent', completed: 'ok', failed: 'warn' };

function json(value) {
  return value === undefined ? '' : JSON.stringify(value);
}

function errorText(error) {
  if (error === undefined || error === null) return null;
  return typeof error === 'object' && typeof error.message === 'string' ? error.message : json(error);
}

async function act(item, method, params, done) {
  try {
    await rpc(method, { id: item.id, ...params });
    toast(done, 'success');
  } catch (error) {
    toast(`Could not update ${item.kind}: ${describeError(error)}`, 'error');
  }
  await refreshQueue();
}

function card(item) {
  const error = errorText(item.error);
  // The server's two outcomes besides done: a failure to retry (the item stays pending, one more
  // failed attempt) or a failure for good. A failed item can be put back the same way.
  const failure = { message: 'Marked failed in the web front end' };
  const actions = item.status === 'pending'
    ? [
      h('button.btn.primary.complete', { onclick: () => act(item, 'queue/complete', { result: { completedFrom: 'web' } }, `Completed ${item.kind}`) }, 'Mark done'),
      h('button.btn.retry-later', { onclick: () => act(item, 'queue/fail', { error: failure, retry: true }, `${item.kind} failed; it will be retried`) }, 'Failed, retry later'),
      h('button.btn.danger.give-up', { onclick: () => act(item, 'queue/fail', { error: failure }, `Gave up on ${item.kind}`) }, 'Give up'),
    ]
    : item.status === 'failed'
      ? [h('button.btn.primary.retry', { onclick: () => act(item, 'queue/fail', { error: item.error ?? failure, retry: true }, `${item.kind} will be retried`) }, 'Retry')]
      : [];
  return h('article.card.queue-item', { dataset: { id: item.id, status: item.status } },
    h('div.card-head', {},
      h('div', {}, h('div.card-title', {}, item.kind), h('div.muted', {}, `Queued ${formatTime(item.createdAt)} · key ${item.idempotencyKey}`)),
      h(`span.pill.${pillClass[item.status]}`, {}, statusText[item.status] ?? item.status)),
    h('dl.facts', {},
      h('dt', {}, 'Needs the network'), h('dd', {}, item.requiresNetwork ? 'Yes' : 'No'),
      h('dt', {}, 'Failed attempts'), h('dd.attempts', {}, String(item.attempts)),
      h('dt', {}, 'Payload'), h('dd', {}, h('code', {}, json(item.payload))),
      item.result !== undefined ? [h('dt', {}, 'Result'), h('dd', {}, h('code', {}, json(item.result)))] : null,
      error ? [h('dt', {}, 'Last error'), h('dd.error-text', {}, error)] : null),
    actions.length ? h('div.actions', {}, actions) : null);
}

function render() {
  const pending = items.filter((i) => i.status === 'pending').length;
  const count = $('queue-count');
  count.textContent = String(pending);
  count.hidden = pending === 0;
  const order = { failed: 0, pending: 1, completed: 2 };
  const sorted = [...items].sort((a, b) => order[a.status] - order[b.status] || a.createdAt.localeCompare(b.createdAt));
  $('queue-list').replaceChildren(...(sorted.length ? sorted.map(card) : [h('p.muted', { id: 'no-queue' }, 'Nothing is queued.')]));
}

/** Lists the queue again and redraws. */
export async function refreshQueue() {
  try {
    ({ items } = await rpc('queue/list'));
    render();
  } catch (error) {
    toast(`Could not read the queue: ${describeError(error)}`, 'error');
  }
}

/** `queue/ready`: the network is back and these items are due. */
export function queueReady({ items: ready }) {
  toast(`Back online: ${ready.length} queued item${ready.length === 1 ? '' : 's'} ready to run`, 'info');
  $('queue-ready').hidden = false;
  $('queue-ready').textContent = `Back online — ready to run: ${ready.map((i) => i.kind).join(', ')}`;
  refreshQueue();
}
