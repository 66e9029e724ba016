import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createFileSystemBridge } from '../filesystem-bridge.js';
import { spawnClient } from './helpers.js';

/** Calls a seed-style method and returns what its callback received (and checks the returned Promise agrees). */
function viaCallback(bridge, name, ...args) {
  return new Promise((resolve, reject) => {
    const returned = bridge[name](...args, (result) => {
      returned.then((same) => (same === result ? resolve(result) : reject(new Error('callback and Promise disagree'))));
    });
  });
}

test('saveFile, loadFile, listFiles and deleteFile succeed with the seeds\' {success, data} results', async (t) => {
  const { client, workspace } = await spawnClient(t);
  const fs = createFileSystemBridge(client);

  const saved = await viaCallback(fs, 'saveFile', 'Projects/song.atome', JSON.stringify({ bpm: 120 }));
  assert.equal(saved.success, true);
  assert.equal(saved.data.path, 'Projects/song.atome');
  assert.equal(readFileSync(join(workspace.localRoot, 'Projects/song.atome'), 'utf8'), '{"bpm":120}');

  assert.deepEqual(await viaCallback(fs, 'loadFile', 'Projects/song.atome'), { success: true, data: '{"bpm":120}' });

  const listed = await viaCallback(fs, 'listFiles', 'Projects');
  assert.equal(listed.success, true);
  assert.deepEqual(listed.data.map((e) => [e.name, e.type]), [['song.atome', 'file']]);
  assert.equal(listed.data[0].size, 11);

  const deleted = await viaCallback(fs, 'deleteFile', 'Projects/song.atome');
  assert.deepEqual(deleted, { success: true, data: { path: 'Projects/song.atome', deleted: true } });
  assert.equal(existsSync(join(workspace.localRoot, 'Projects/song.atome')), false);
});

test('failures are {success: false, error, code} and never throw', async (t) => {
  const { client } = await spawnClient(t);
  const fs = createFileSystemBridge(client);
  const missing = await viaCallback(fs, 'loadFile', 'nope.txt');
  assert.equal(missing.success, false);
  assert.equal(missing.code, 'NotFound');
  assert.match(missing.error, /nope\.txt/);
  assert.equal('data' in missing, false);

  const outside = await fs.saveFile('../escape.txt', 'x');
  assert.deepEqual([outside.success, outside.code], [false, 'OutsideWorkspace']);
  const notEmpty = await fs.deleteFile('Journal');
  assert.deepEqual([notEmpty.success, notEmpty.code], [false, 'DirectoryNotEmpty']);
  const badData = await fs.saveFile('x.txt', 42);
  assert.equal(badData.success, false);
  assert.match(badData.error, /must be a string/);
});

test('promises.* resolve with data and reject with the server error', async (t) => {
  const { client } = await spawnClient(t);
  const fs = createFileSystemBridge(client);
  await fs.promises.saveFile('a.md', 'text');
  assert.equal(await fs.promises.loadFile('a.md'), 'text');
  await assert.rejects(fs.promises.loadFile('b.md'), (error) => error.kind === 'NotFound' && error.code === -32803);
});

test('bytes round-trip exactly through saveFile and loadFile {binary: true}', async (t) => {
  const { client, workspace } = await spawnClient(t);
  const fs = createFileSystemBridge(client);
  const bytes = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
  assert.equal((await fs.saveFile('Exports/take.wav', bytes)).success, true);
  assert.deepEqual(new Uint8Array(readFileSync(join(workspace.localRoot, 'Exports/take.wav'))), bytes);
  const loaded = await fs.loadFile('Exports/take.wav', { binary: true });
  assert.equal(loaded.success, true);
  assert.deepEqual(loaded.data, bytes);
  const asText = await fs.loadFile('Exports/take.wav');
  assert.deepEqual([asText.success, asText.code], [false, 'NotText']);
});

test('Blobs and DataViews are saved exactly; loadAs "auto" gives text for UTF-8 and an ArrayBuffer otherwise; onResult sees every result', async (t) => {
  const { client, workspace } = await spawnClient(t);
  const seen = [];
  const fs = createFileSystemBridge(client, { loadAs: 'auto', onResult: (r) => seen.push(r) });
  const bytes = new Uint8Array([0x52, 0x49, 0x46, 0x46, 0xff, 0xfe, 0x00, 0x80]);
  assert.equal((await fs.saveFile('blob.bin', new Blob([bytes.subarray(0, 4), bytes.subarray(4)]))).success, true);
  assert.deepEqual(new Uint8Array(readFileSync(join(workspace.localRoot, 'blob.bin'))), bytes);
  assert.equal((await fs.saveFile('view.bin', new DataView(bytes.buffer, 2, 4))).success, true);
  assert.deepEqual(new Uint8Array(readFileSync(join(workspace.localRoot, 'view.bin'))), bytes.subarray(2, 6));
  const loaded = await fs.loadFile('blob.bin');
  assert.ok(loaded.data instanceof ArrayBuffer);
  assert.deepEqual(new Uint8Array(loaded.data), bytes);
  await fs.saveFile('bom.txt', '\uFEFFhé');
  assert.equal((await fs.loadFile('bom.txt')).data, '\uFEFFhé');
  const missing = await fs.loadFile('nope.txt');
  assert.equal(seen.length, 6);
  assert.equal(seen[5], missing);
  assert.deepEqual([missing.success, missing.code], [false, 'NotFound']);
});

test('a file over one call\'s 16 MiB limit is loaded whole, page by page', async (t) => {
  const { client, workspace } = await spawnClient(t);
  const fs = createFileSystemBridge(client);
  // Multi-byte characters straddle the page boundary: pages are cut at whole characters.
  const text = 'é'.repeat(8 * 1024 * 1024) + 'tail ✓';
  writeFileSync(join(workspace.localRoot, 'big.txt'), text);
  const loaded = await fs.promises.loadFile('big.txt');
  assert.equal(loaded.length, text.length);
  assert.equal(loaded === text, true);
});

test('listFiles returns every entry of a folder past the server\'s page size', async (t) => {
  const { client, workspace } = await spawnClient(t);
  const fs = createFileSystemBridge(client);
  mkdirSync(join(workspace.localRoot, 'many'));
  for (let i = 0; i < 1_234; i++) writeFileSync(join(workspace.localRoot, 'many', `n${String(i).padStart(4, '0')}.txt`), '');
  const entries = await fs.promises.listFiles('many');
  assert.equal(entries.length, 1_234);
  assert.equal(new Set(entries.map((e) => e.path)).size, 1_234);
});

test('getStorageInfo gives the seeds\' fields: local, then "icloud" once the cloud root is chosen', async (t) => {
  const { client, workspace } = await spawnClient(t, { cloud: true });
  const fs = createFileSystemBridge(client);
  const before = await viaCallback(fs, 'getStorageInfo');
  assert.equal(before.success, true);
  assert.deepEqual(
    { storageType: before.data.storageType, isICloudEnabled: before.data.isICloudEnabled, isICloudAvailable: before.data.isICloudAvailable, isInitialized: before.data.isInitialized },
    { storageType: 'local', isICloudEnabled: false, isICloudAvailable: true, isInitialized: false });
  assert.equal(before.data.isCloudEnabled, true); // the server's own field: a cloud root is configured
  assert.equal(before.data.roots.cloud, workspace.cloudRoot);

  await client.chooseStorage({ location: 'cloud' });
  const after = await fs.promises.getStorageInfo();
  assert.equal(after.storageType, 'icloud');
  assert.equal(after.isICloudEnabled, true); // the seeds' meaning: the workspace is in the cloud now
  assert.equal(after.storageLocation, 'cloud');
  assert.equal(after.isInitialized, true);
});

test('the transport is pluggable: any (method, params) => Promise works, as in a browser page', async (t) => {
  const { client } = await spawnClient(t);
  const calls = [];
  const fs = createFileSystemBridge((method, params) => {
    calls.push(method);
    return client.request(method, params);
  });
  assert.equal((await fs.saveFile('via-transport.txt', 'ok')).success, true);
  assert.equal((await fs.loadFile('via-transport.txt')).data, 'ok');
  assert.deepEqual(calls, ['saveFile', 'loadFile']);
  assert.throws(() => createFileSystemBridge({}), /needs a function/);
});

test('showStorageSettings calls the host\'s view, and fails cleanly without one', async () => {
  let opened = 0;
  const withView = createFileSystemBridge(async () => ({}), { showStorageSettings: () => { opened++; } });
  assert.deepEqual(await withView.showStorageSettings(), { success: true, data: null });
  assert.equal(opened, 1);
  const without = createFileSystemBridge(async () => ({}));
  const result = await without.showStorageSettings();
  assert.equal(result.success, false);
  assert.match(result.error, /no storage settings view/);
});

test('a bridge call is sent when it is made: a shutdown right after it does not overtake it', async (t) => {
  const { client } = await spawnClient(t);
  const fs = createFileSystemBridge(client);
  const loaded = fs.loadFile('context.md');
  const status = client.shutdown();
  assert.equal((await loaded).success, true);
  assert.deepEqual(await status, { code: 0, signal: null });
});
