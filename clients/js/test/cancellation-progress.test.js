import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCodes, WorkspaceBridgeError } from '../index.js';
import { spawnClient } from './helpers.js';

test('aborting a signal cancels a running request: it rejects with RequestCancelled long before it would finish', async (t) => {
  const { client } = await spawnClient(t);
  const controller = new AbortController();
  const started = Date.now();
  const outcome = client.request('debug/sleep', { ms: 120_000 }, { signal: controller.signal }).then(() => null, (e) => e);
  setTimeout(() => controller.abort(), 100);
  const error = await outcome;
  assert.ok(error instanceof WorkspaceBridgeError);
  assert.equal(error.code, ErrorCodes.RequestCancelled);
  assert.equal(error.kind, 'RequestCancelled');
  assert.equal(error.cancelled, true);
  assert.ok(Date.now() - started < 10_000, 'cancelled promptly: not after the two minutes (10 s is a hang guard)');
  assert.deepEqual(await client.request('ping'), {}, 'the server keeps serving');
});

test('a large searchFiles (seconds of work) is cancelled by its AbortSignal', async (t) => {
  const { client, workspace } = await spawnClient(t);
  const folder = join(workspace.localRoot, 'big');
  mkdirSync(folder);
  const line = 'the quick brown fox jumps over the lazy dog\n'.repeat(2_000);
  for (let i = 0; i < 400; i++) writeFileSync(join(folder, `f${i}.txt`), line);
  const controller = new AbortController();
  const progress = [];
  // No line matches, so every file is searched: seconds of work for a debug build. A cancellation,
  // not a result, is the claim (a finished search answers its matches).
  const outcome = client.searchFiles({ query: 'fox\\s+zebra', regex: true }, {
    signal: controller.signal,
    onProgress: (value) => {
      progress.push(value);
      if (value.kind === 'begin') controller.abort();
    },
  }).then((r) => r, (e) => e);
  const error = await outcome;
  assert.ok(error instanceof WorkspaceBridgeError, `expected a cancellation, got ${JSON.stringify(error)?.slice(0, 200)}`);
  assert.equal(error.kind, 'RequestCancelled');
  assert.equal(progress[0].kind, 'begin');
  assert.equal(progress.at(-1).kind, 'end', 'progress ends before the answer');
});

test('a signal aborted before the call rejects at once and sends nothing', async (t) => {
  const { client } = await spawnClient(t);
  const controller = new AbortController();
  controller.abort(new Error('user gave up'));
  const error = await client.saveFile({ path: 'never.txt', data: 'x' }, { signal: controller.signal }).then(() => null, (e) => e);
  assert.equal(error.kind, 'RequestCancelled');
  assert.equal(error.cause.message, 'user gave up');
  const missing = await client.getFileInfo({ path: 'never.txt' }).then(() => null, (e) => e);
  assert.equal(missing.kind, 'NotFound', 'the save was never sent');
});

test('aborting after the answer changes nothing', async (t) => {
  const { client } = await spawnClient(t);
  const controller = new AbortController();
  const result = await client.request('debug/echo', { value: 42 }, { signal: controller.signal });
  controller.abort();
  assert.deepEqual(result, { value: 42 });
  assert.deepEqual(await client.request('ping'), {});
});

test('onProgress receives begin, reports and end, in order, before the result', async (t) => {
  const { client } = await spawnClient(t);
  const seen = [];
  const result = await client.request('debug/sleep', { ms: 400, label: 'p' }, {
    onProgress: (value) => seen.push(value),
  });
  seen.push('result');
  assert.equal(result.label, 'p');
  assert.equal(seen[0].kind, 'begin');
  assert.equal(seen[0].cancellable, true);
  assert.equal(seen.at(-2).kind, 'end');
  assert.equal(seen.at(-1), 'result');
  const reports = seen.filter((v) => v.kind === 'report');
  assert.ok(reports.length >= 1, 'at least one report');
  const percentages = reports.map((r) => r.percentage).filter((p) => p !== undefined);
  assert.deepEqual(percentages, [...percentages].sort((a, b) => a - b), 'percentages never go down');
});

test('progress of concurrent requests goes to the right callback; a given workDoneToken is kept', async (t) => {
  const { client } = await spawnClient(t);
  const a = [];
  const b = [];
  const tokens = new Set();
  client.on('$/progress', (params) => tokens.add(params.token));
  await Promise.all([
    client.request('debug/sleep', { ms: 200, key: 'a', workDoneToken: 'mine' }, { onProgress: (v) => a.push(v.kind) }),
    client.request('debug/sleep', { ms: 200, key: 'b' }, { onProgress: (v) => b.push(v.kind) }),
  ]);
  for (const kinds of [a, b]) {
    assert.equal(kinds[0], 'begin');
    assert.equal(kinds.at(-1), 'end');
    assert.equal(kinds.filter((k) => k === 'begin').length, 1);
  }
  assert.ok(tokens.has('mine'));
  assert.equal(tokens.size, 2);
});
