import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnClient, waitFor } from './helpers.js';

/** Reads an async iterator until `accept` returns true for an item, within ms. */
async function readUntil(iterator, accept, ms) {
  const seen = [];
  const timer = setTimeout(() => iterator.return(), ms);
  try {
    for await (const item of iterator) {
      seen.push(item);
      if (accept(item)) return seen;
    }
  } finally {
    clearTimeout(timer);
  }
  throw new Error(`not seen within ${ms} ms; got ${JSON.stringify(seen)}`);
}

test('after watchFiles, a change made outside the server arrives as an event and through the iterator', async (t) => {
  const { client, workspace } = await spawnClient(t);
  assert.deepEqual(await client.watchFiles({ glob: '**/*.md' }), { watching: true });
  const iterator = client.notifications('workspace/didChangeFiles');
  const events = [];
  client.on('workspace/didChangeFiles', (params) => events.push(params));
  writeFileSync(join(workspace.localRoot, 'Research/outside.md'), 'written by a shell');
  const seen = await readUntil(iterator, (m) => m.params.changes.some((c) => c.path === 'Research/outside.md'), 3_000);
  assert.equal(seen.at(-1).method, 'workspace/didChangeFiles');
  const change = seen.at(-1).params.changes.find((c) => c.path === 'Research/outside.md');
  assert.ok(['created', 'changed'].includes(change.type));
  assert.ok(events.some((p) => p.changes.some((c) => c.path === 'Research/outside.md')), 'also emitted as an event');
});

test('the glob filters notifications; unwatchFiles stops them', async (t) => {
  const { client, workspace } = await spawnClient(t);
  await client.watchFiles({ glob: '**/*.md' });
  const paths = [];
  client.on('workspace/didChangeFiles', (params) => paths.push(...params.changes.map((c) => c.path)));
  await client.saveFile({ path: 'skip.txt', data: 'x' });
  await client.saveFile({ path: 'keep.md', data: 'x' });
  await waitFor('keep.md to be notified', 10_000, () => paths.includes('keep.md'));
  assert.ok(!paths.includes('skip.txt'));
  assert.deepEqual(await client.unwatchFiles(), { watching: false });
  const before = paths.length;
  writeFileSync(join(workspace.localRoot, 'late.md'), 'x');
  await new Promise((r) => setTimeout(r, 800));
  assert.equal(paths.length, before, 'nothing after unwatchFiles');
});

test('notifications() without a method yields every notification as {method, params}', async (t) => {
  const { client } = await spawnClient(t);
  const iterator = client.notifications();
  await client.request('debug/sleep', { ms: 50 }, { onProgress: () => {} });
  const seen = await readUntil(iterator, (m) => m.method === '$/progress' && m.params.value.kind === 'end', 2_000);
  assert.equal(seen[0].method, '$/progress');
  assert.equal(seen[0].params.value.kind, 'begin');
});

test('the iterator ends when its signal aborts, and when the connection closes', async (t) => {
  const { client } = await spawnClient(t);
  const controller = new AbortController();
  const aborted = client.notifications('workspace/didChangeFiles', { signal: controller.signal });
  const pending = aborted.next();
  controller.abort();
  assert.deepEqual(await pending, { value: undefined, done: true });

  const open = client.notifications();
  const collected = (async () => {
    let count = 0;
    for await (const _ of open) count++;
    return count;
  })();
  await client.shutdown();
  assert.equal(typeof (await collected), 'number', 'the loop finished on close');
  const afterClose = client.notifications();
  assert.deepEqual(await afterClose.next(), { value: undefined, done: true });
});

test('initialize with capabilities.workspace.didChangeFiles sends changes without watchFiles', async (t) => {
  const { client } = await spawnClient(t, { spawn: { initialize: { capabilities: { workspace: { didChangeFiles: true } } } } });
  const iterator = client.notifications('workspace/didChangeFiles');
  await client.saveFile({ path: 'Chats/new.json', data: '{}' });
  const seen = await readUntil(iterator, (m) => m.params.changes.some((c) => c.path === 'Chats/new.json'), 3_000);
  assert.ok(seen.length >= 1);
});
