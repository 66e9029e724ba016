// The host process on its own (no browser): what it relays, what it refuses, and that
// server notifications reach the event stream.
//
//   node --test clients/web/test/host.test.mjs      (WB_BIN or .build/debug)
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseHostArgs, startHost } from '../host.mjs';

let tmp, host;

/** POST with the run's secret (the page's cookie); `access.test.mjs` checks what happens without. */
function post(pathname, body, headers = {}) {
  return fetch(new URL(pathname, host.url), {
    method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: host.cookie, ...headers }, body: JSON.stringify(body),
  });
}

/** GET with the run's secret. */
function get(pathname, options = {}) {
  return fetch(new URL(pathname, host.url), { ...options, headers: { Cookie: host.cookie } });
}

/** GET with a raw Host header (fetch does not allow setting it). */
function getWithHost(hostHeader) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: host.port, path: '/', headers: { Host: hostHeader, Cookie: host.cookie } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject);
  });
}

describe('the web host', () => {
  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-web-host-'));
    host = await startHost({ port: 0, quiet: true, serverArgs: ['--local-root', tmp, '--config-dir', path.join(tmp, '.cfg'), '--enable-debug-methods'] });
  });

  after(async () => {
    await host?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 only and serves the page', async () => {
    assert.match(host.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const res = await get('/');
    assert.equal(res.status, 200);
    assert.match(await res.text(), /<script type="module" src="\/app.js">/);
  });

  it('relays a request and answers with the page\'s own id', async () => {
    const res = await post('/rpc', { id: 'page-1', method: 'saveFile', params: { path: 'a.txt', data: 'hi' } });
    const body = await res.json();
    assert.equal(body.id, 'page-1');
    assert.equal(body.result.size, 2);
  });

  it('refuses other Host headers, other origins and non-JSON posts', async () => {
    assert.equal(await getWithHost('attacker.example:80'), 403);
    assert.equal((await post('/rpc', { id: 1, method: 'ping' }, { Origin: 'http://attacker.example' })).status, 403);
    const form = await fetch(new URL('/rpc', host.url), { method: 'POST', headers: { 'Content-Type': 'text/plain', Cookie: host.cookie }, body: '{"id":1,"method":"ping"}' });
    assert.equal(form.status, 415);
    assert.equal((await get('/..%2fhost.mjs')).status, 404);
  });

  it('relays no call that reaches host paths, debugging or the lifecycle, by any name', async () => {
    const expected = { shutdown: 'CapabilityDenied', exportFile: 'CapabilityDenied', importFile: 'CapabilityDenied',
      getFileUri: 'CapabilityDenied', 'debug/echo': 'CapabilityDenied', initialize: 'AlreadyInitialized', exit: 'MethodNotFound' };
    for (const [method, code] of Object.entries(expected)) {
      const body = await (await post('/rpc', { id: 2, method, params: {} })).json();
      assert.equal(body.error.data.code, code, method);
    }
    assert.deepEqual((await host.bridge.call('ping')), {}); // the server is still serving
  });

  it('refuses a page\'s wsb.importFile, wsb.exportFile and wsb.getFileUri, and reads or writes no host file', async () => {
    const secret = path.join(tmp, '..', `${path.basename(tmp)}-host-secret.txt`);
    const target = path.join(tmp, '..', `${path.basename(tmp)}-host-target.txt`);
    writeFileSync(secret, 'host only\n');
    try {
      await post('/rpc', { id: 'w', method: 'saveFile', params: { path: 'w.txt', data: 'workspace\n' } });
      const calls = {
        importFile: { source: secret, path: 'stolen.txt' },
        exportFile: { path: 'w.txt', destination: target },
        getFileUri: { path: 'w.txt' },
      };
      for (const [method, params] of Object.entries(calls)) {
        const body = await (await post('/rpc', { id: `c-${method}`, method: 'workspace/executeCommand',
          params: { command: `wsb.${method}`, arguments: [params] } })).json();
        assert.equal(body.id, `c-${method}`);
        assert.equal(body.error.data.code, 'CapabilityDenied', method);
        assert.deepEqual(body.error.data.capabilities, ['host-paths'], method);
        assert.equal(body.error.data.through, 'workspace/executeCommand', method);
      }
      // A batch is not relayed (one request per POST), whatever it holds.
      const batch = await post('/rpc', Object.entries(calls).map(([method, params], i) => ({ id: i, method, params })));
      assert.equal(batch.status, 400);
      assert.equal(existsSync(path.join(tmp, 'stolen.txt')), false);
      assert.equal(existsSync(target), false);
      assert.equal(readFileSync(secret, 'utf8'), 'host only\n');
      const load = await (await post('/rpc', { id: 'l', method: 'loadFile', params: { path: 'w.txt' } })).json();
      assert.equal(load.error, undefined); // the workspace itself is served
    } finally {
      rmSync(secret, { force: true });
      rmSync(target, { force: true });
    }
  });

  it('streams server notifications as Server-Sent Events', async () => {
    const controller = new AbortController();
    const res = await get('/events', { signal: controller.signal });
    assert.match(res.headers.get('content-type'), /^text\/event-stream/);
    const reader = res.body.getReader();
    writeFileSync(path.join(tmp, 'outside.txt'), 'x');
    let text = '';
    while (!text.includes('outside.txt')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const event = JSON.parse(text.split('\n').find((line) => line.includes('outside.txt')).slice('data: '.length));
    assert.equal(event.method, 'workspace/didChangeFiles');
    assert.ok(event.params.changes.some((c) => c.path === 'outside.txt'));
  });

  it('serves no /app/ without --app, includes the seeds\' bridge in its page, and reads --app', async () => {
    assert.equal((await get('/app/')).status, 404);
    assert.match(await (await get('/')).text(), /<script src="\/atome-filesystem.js"><\/script>/);
    assert.equal(parseHostArgs(['--app', 'front', '--', '--template', 'atome']).appDir, path.resolve('front'));
    assert.deepEqual(parseHostArgs(['--app', 'front', '--', '--template', 'atome']).serverArgs, ['--template', 'atome']);
    assert.throws(() => parseHostArgs(['--app']), /--app needs a folder/);
    await assert.rejects(startHost({ port: 0, quiet: true, appDir: path.join(tmp, 'missing') }), /is not a folder/);
  });

  it('reports that there was nothing to cancel for an id not in flight', async () => {
    // (cancelling one in flight is exercised end to end by web.test.mjs: the migration's Cancel)
    const body = await (await post('/cancel', { id: 'nothing-here' })).json();
    assert.equal(body.cancelled, false);
  });
});
