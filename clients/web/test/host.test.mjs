// The host process on its own (no browser): what it relays, what it refuses, and that
// server notifications reach the event stream.
//
//   node --test clients/web/test/host.test.mjs      (WB_BIN or .build/debug)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

  it('does not relay lifecycle, host-path or debug methods', async () => {
    for (const method of ['shutdown', 'exportFile', 'importFile', 'debug/echo']) {
      const body = await (await post('/rpc', { id: 2, method, params: {} })).json();
      assert.equal(body.error.data.code, 'MethodNotFound', method);
    }
    assert.deepEqual((await host.bridge.call('ping')), {}); // the server is still serving
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
