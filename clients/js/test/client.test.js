import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConnectionClosedError, ErrorCodes, REQUEST_METHODS, WorkspaceBridgeClient, WorkspaceBridgeError } from '../index.js';
import { serverBinary, spawnClient, tempWorkspace } from './helpers.js';

test('spawn initializes the server and exposes its identity and method table', async (t) => {
  const { client, workspace } = await spawnClient(t);
  assert.equal(client.serverInfo.name, 'workspace-bridge');
  assert.equal(client.capabilities.workspace.root, workspace.localRoot);
  // Every method the server offers is known to the client (the generated list is not behind).
  for (const method of client.capabilities.methods) assert.ok(REQUEST_METHODS.includes(method), `${method} missing from the generated list`);
});

test('typed convenience methods round-trip a file through the real server', async (t) => {
  const { client, workspace } = await spawnClient(t);
  const saved = await client.saveFile({ path: 'Research/notes.md', data: '# Notes\n' });
  assert.equal(saved.size, 8);
  assert.match(saved.etag, /^[0-9a-f]{16}$/);
  assert.equal(readFileSync(join(workspace.localRoot, 'Research/notes.md'), 'utf8'), '# Notes\n');
  const loaded = await client.loadFile({ path: 'Research/notes.md' });
  assert.equal(loaded.data, '# Notes\n');
  assert.equal(loaded.etag, saved.etag);
  assert.deepEqual(await client.request('ping'), {});
});

test('namespaced methods (session/*) are client.session.*', async (t) => {
  const { client } = await spawnClient(t);
  const session = await client.session.create({ title: 'Plan a trip' });
  assert.equal(session.state, 'idle');
  const listed = await client.session.list({});
  assert.deepEqual(listed.sessions.map((s) => s.id), [session.id]);
});

test('a domain error rejects with WorkspaceBridgeError carrying code, message, data and kind', async (t) => {
  const { client } = await spawnClient(t);
  const error = await client.loadFile({ path: 'missing.txt' }).then(() => null, (e) => e);
  assert.ok(error instanceof WorkspaceBridgeError);
  assert.equal(error.code, ErrorCodes.RequestFailed);
  assert.equal(error.kind, 'NotFound');
  assert.equal(error.data.path, 'missing.txt');
  assert.equal(error.method, 'loadFile');
  assert.match(error.message, /missing\.txt/);
});

test('bad params and unknown methods map to InvalidParams and MethodNotFound', async (t) => {
  const { client } = await spawnClient(t);
  const bad = await client.request('debug/sleep', { ms: -1 }).then(() => null, (e) => e);
  assert.equal(bad.code, ErrorCodes.InvalidParams);
  assert.equal(bad.kind, 'InvalidParams');
  assert.equal(bad.data.field, 'ms');
  const unknown = await client.request('no/such').then(() => null, (e) => e);
  assert.equal(unknown.code, ErrorCodes.MethodNotFound);
  assert.equal(unknown.data.method, 'no/such');
});

test('requests before initialize are refused with ServerNotInitialized', async (t) => {
  const { client } = await spawnClient(t, { spawn: { initialize: false } });
  const error = await client.request('ping').then(() => null, (e) => e);
  assert.equal(error.code, ErrorCodes.ServerNotInitialized);
  await client.initialize();
  assert.deepEqual(await client.request('ping'), {});
});

test('shutdown runs shutdown and exit, and the server exits with status 0', async (t) => {
  const { client } = await spawnClient(t);
  const status = await client.shutdown();
  assert.deepEqual(status, { code: 0, signal: null });
  assert.equal(client.closed, true);
  const after = await client.request('ping').then(() => null, (e) => e);
  assert.ok(after instanceof ConnectionClosedError);
});

test('a server that dies rejects pending requests with ConnectionClosedError', async (t) => {
  const { client } = await spawnClient(t);
  const outcome = client.request('debug/sleep', { ms: 60_000 }).then(() => null, (e) => e);
  await client.kill('SIGKILL');
  const error = await outcome;
  assert.ok(error instanceof ConnectionClosedError);
  assert.equal(error.kind, 'ConnectionClosed');
  assert.equal(error.method, 'debug/sleep');
});

test('spawn rejects when the binary cannot be started', async (t) => {
  const workspace = tempWorkspace(t);
  const missing = join(workspace.dir, 'no-such-binary');
  assert.equal(existsSync(missing), false);
  await assert.rejects(WorkspaceBridgeClient.spawn({ bin: missing, localRoot: workspace.localRoot }), /cannot start/);
});

test('initialize params are passed through (processId is this process)', async (t) => {
  const workspace = tempWorkspace(t);
  const client = await WorkspaceBridgeClient.spawn({
    bin: serverBinary(), localRoot: workspace.localRoot, configDir: workspace.configDir, debugMethods: true,
    initialize: { trace: 'verbose' },
  });
  t.after(() => client.exitStatus === null && client.kill());
  const logged = new Promise((resolve) => client.on('window/logMessage', (params) => params.message.includes('hello from js') && resolve(params)));
  await client.request('debug/log', { level: 'warning', message: 'hello from js' });
  const params = await logged;
  assert.equal(params.type, 2);
  await client.shutdown();
});
