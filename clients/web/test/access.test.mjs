// The web host is its user's alone: `run.mjs` (what `make run` starts) on a demo workspace with
// `--app`, driven with curl as another local account would (no secret: nothing; the printed
// secret: a cookie, then everything) and in headless Chromium (the UI from the printed address;
// a page on another origin framing it gets nothing). Dotfiles under `--app` are never served.
//
//   node --test clients/web/test/access.test.mjs      (needs `curl` and `chromium`; WB_BIN or .build/debug)
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { AccessGate, sameSecret } from '../access.mjs';
import { launchBrowser } from './browser.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
let tmp, appDir, child, printed, base, cookie, browser, page;

/** Starts `run.mjs` as `make run` does and reads the addresses it prints. */
async function startRun() {
  child = spawn(process.execPath, [path.join(here, '..', 'run.mjs'), '--port', '0', '--dir', path.join(tmp, 'demo'), '--app', appDir],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => { out += chunk; });
  for (const deadline = Date.now() + 60000; !/^Open .*$/m.test(out); await sleep(50)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`run.mjs did not print its address: ${out}`);
  }
  return { open: /^Open (\S+)/m.exec(out)[1], app: /^Your front end: (\S+)/m.exec(out)[1] };
}

/** One curl request; `{status, headers, body}` (headers lower-cased, the last value of each). */
async function curl(pathname, { cookie: sent, method = 'GET', json, headers = {}, url } = {}) {
  const args = ['-s', '-i', '--path-as-is', '--max-time', '5', '-X', method];
  if (sent) args.push('-b', sent);
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  if (json !== undefined) args.push('-H', 'Content-Type: application/json', '--data-binary', JSON.stringify(json));
  args.push(url ?? `${base}${pathname.slice(1)}`);
  const stdout = await new Promise((resolve, reject) => {
    // The event stream never ends by itself: curl's --max-time ends it (exit 28) with what came.
    execFile('curl', args, { encoding: 'buffer' }, (error, out) => (error && error.code !== 28 ? reject(error) : resolve(out)));
  });
  const split = stdout.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = stdout.subarray(0, split).toString('latin1').split('\r\n');
  const parsed = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers: parsed, body: stdout.subarray(split + 4) };
}

/** Every file name under `dir`, recursively. */
const namesUnder = (dir) => readdirSync(dir, { recursive: true }).map(String);

/** The guard headers every response carries. */
function assertGuarded(res, what) {
  assert.match(res.headers['content-security-policy'] ?? '', /(^|; )frame-ancestors 'none'(;|$)/, what);
  assert.equal(res.headers['x-frame-options'], 'DENY', what);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
}

describe('the web host is its user\'s alone (run.mjs, as `make run` starts it)', () => {
  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-web-access-'));
    appDir = path.join(tmp, 'front');
    mkdirSync(path.join(appDir, '.git'), { recursive: true });
    mkdirSync(path.join(appDir, 'sub'));
    writeFileSync(path.join(appDir, 'index.html'), '<!doctype html><title>mine</title><p>my page</p>\n');
    writeFileSync(path.join(appDir, 'sub', 'page.html'), '<p>sub page</p>\n');
    writeFileSync(path.join(appDir, 'sub', '.hidden'), 'hidden\n');
    writeFileSync(path.join(appDir, '.env'), 'API_KEY=sk-not-for-the-web\n');
    writeFileSync(path.join(appDir, '.git', 'config'), '[remote "origin"]\n\turl = git@example.com:me/private.git\n');
    symlinkSync('.env', path.join(appDir, 'settings.txt')); // a link inside DIR to a dotfile
    symlinkSync('.git', path.join(appDir, 'assets')); // a link inside DIR to a dot-folder
    printed = await startRun();
    base = printed.open.replace(/\?.*$/, '');
  });

  after(async () => {
    await browser?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('prints the addresses with a fresh 256-bit secret, compared in constant time', () => {
    assert.match(printed.open, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    const secret = new URL(printed.open).searchParams.get('token');
    assert.equal(printed.app, `${base}app/?token=${secret}`);
    assert.notEqual(new AccessGate({ port: 1 }).secret, new AccessGate({ port: 1 }).secret); // a new one each run
    assert.equal(sameSecret(secret, secret), true);
    assert.equal(sameSecret(`${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`, secret), false);
    assert.equal(sameSecret(secret.slice(0, 10), secret), false);
    assert.equal(sameSecret(undefined, secret), false);
  });

  it('refuses every path without the secret (curl as another local account): 401, no data, no effect', async () => {
    const secret = new URL(printed.open).searchParams.get('token');
    const port = new URL(base).port;
    const wrong = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const attempts = [
      ['no secret', {}],
      ['a wrong cookie', { cookie: `workspace-bridge-${port}=${wrong}` }],
      ['the secret under another port\'s cookie name', { cookie: `workspace-bridge-1=${secret}` }],
    ];
    for (const [how, options] of attempts) {
      for (const pathname of ['/', '/app.js', '/style.css', '/api/hello', '/events', '/atome-filesystem.js', '/app/', '/app/index.html', '/app/.env', '/nowhere']) {
        const res = await curl(pathname, options);
        assert.equal(res.status, 401, `${how}: GET ${pathname}`);
        assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8', `${how}: GET ${pathname}`);
        assert.match(res.body.toString(), /open the address the host printed/, `${how}: GET ${pathname}`);
        assert.equal(res.headers['set-cookie'], undefined);
        assertGuarded(res, `${how}: GET ${pathname}`);
      }
      const listed = await curl('/rpc', { ...options, method: 'POST', json: { id: 1, method: 'listFiles', params: { path: '' } } });
      assert.equal(listed.status, 401, `${how}: listFiles`);
      assert.doesNotMatch(listed.body.toString(), /Research|Notes|ideas/);
      const planted = await curl('/rpc', { ...options, method: 'POST', json: { id: 2, method: 'saveFile', params: { path: 'planted.md', data: 'x' } } });
      assert.equal(planted.status, 401, `${how}: saveFile`);
      assert.equal((await curl('/cancel', { ...options, method: 'POST', json: { id: 3 } })).status, 401);
    }
    // A wrong secret in the address gets no cookie; the right one is no pass for a POST (it only opens the page).
    const guessed = await curl(`/?token=${wrong}`);
    assert.equal(guessed.status, 401);
    assert.equal(guessed.headers['set-cookie'], undefined);
    const posted = await curl(`/rpc?token=${secret}`, { method: 'POST', json: { id: 4, method: 'saveFile', params: { path: 'planted.md', data: 'x' } } });
    assert.equal(posted.status, 401);
    assert.ok(!namesUnder(tmp).some((name) => name.endsWith('planted.md')), 'nothing was written');
  });

  it('trades the printed secret for an HttpOnly, SameSite=Strict cookie and a refresh to the address without it; the cookie opens everything', async () => {
    const secret = new URL(printed.open).searchParams.get('token');
    const refreshTo = (res) => /<meta http-equiv="refresh" content="0; url=([^"]*)">/.exec(res.body.toString())?.[1];
    const opened = await curl('', { url: printed.open });
    assert.equal(opened.status, 200);
    assert.equal(refreshTo(opened), '/');
    assert.ok(!opened.body.toString().includes(secret), 'the page does not repeat the secret');
    assert.equal(opened.headers['set-cookie'], `workspace-bridge-${new URL(base).port}=${secret}; HttpOnly; SameSite=Strict; Path=/`);
    assertGuarded(opened, 'the refresh');
    assert.equal(refreshTo(await curl('', { url: printed.app })), '/app/');
    assert.equal(refreshTo(await curl(`/app/sub/page.html?token=${secret}&v=2&q=%22%3E`)), '/app/sub/page.html?v=2&amp;q=%22%3E');

    cookie = opened.headers['set-cookie'].split(';')[0];
    const pageRes = await curl('/', { cookie });
    assert.equal(pageRes.status, 200);
    assert.match(pageRes.body.toString(), /<script type="module" src="\/app.js">/);
    assert.match(pageRes.headers['content-security-policy'], /script-src 'self'/);
    assertGuarded(pageRes, 'the page');
    const saved = await curl('/rpc', { cookie, method: 'POST', json: { id: 5, method: 'saveFile', params: { path: 'by-the-user.md', data: 'mine' } } });
    assert.equal(saved.status, 200);
    assert.equal(JSON.parse(saved.body).result.size, 4);
    assertGuarded(saved, '/rpc');
    assert.ok(namesUnder(tmp).some((name) => name.endsWith('by-the-user.md')), 'written with the cookie');
    const stream = await curl('/events', { cookie, headers: { Accept: 'text/event-stream' } });
    assert.equal(stream.status, 200);
    assert.match(stream.body.toString(), /^: connected/);
    assertGuarded(stream, '/events');
    const app = await curl('/app/', { cookie });
    assert.equal(app.status, 200);
    assert.deepEqual(app.body, readFileSync(path.join(appDir, 'index.html')));
    assert.equal(app.headers['content-security-policy'], "frame-ancestors 'none'");
    assertGuarded(app, '/app/');
    for (const pathname of ['/atome-filesystem.js', '/api/hello', '/nowhere']) assertGuarded(await curl(pathname, { cookie }), pathname);
  });

  it('refuses, even with the cookie, another Host (DNS rebinding) and a POST from another origin', async () => {
    const port = new URL(base).port;
    const rebound = await curl('/', { cookie, headers: { Host: `attacker.example:${port}` } });
    assert.equal(rebound.status, 403);
    assertGuarded(rebound, 'another Host');
    for (const origin of ['http://attacker.example', `http://127.0.0.1:${Number(port) === 65535 ? 1 : Number(port) + 1}`, 'null']) {
      const res = await curl('/rpc', { cookie, method: 'POST', headers: { Origin: origin }, json: { id: 6, method: 'saveFile', params: { path: 'cross-site.md', data: 'x' } } });
      assert.equal(res.status, 403, origin);
    }
    assert.ok(!namesUnder(tmp).some((name) => name.endsWith('cross-site.md')));
  });

  it('serves no dotfile, dot-folder, link to one, or path leaving --app, however it is spelled', async () => {
    for (const pathname of ['/app/.env', '/app/.git/config', '/app/.git/', '/app/%2egit/config', '/app/%2Eenv', '/app/.%65nv',
      '/app/sub/.hidden', '/app/sub/%2ehidden', '/app/settings.txt', '/app/assets/config', '/app/../run.mjs', '/app/%2e%2e/run.mjs',
      '/app/..%2f..%2fetc%2fpasswd', '/app/sub/..%2f.env', '/app/sub/%2e%2e/.env']) {
      const res = await curl(pathname, { cookie });
      assert.equal(res.status, 404, pathname);
      assert.doesNotMatch(res.body.toString(), /API_KEY|remote|hidden/, pathname);
    }
    assert.deepEqual((await curl('/app/sub/page.html', { cookie })).body, readFileSync(path.join(appDir, 'sub', 'page.html')));
  });

  it('opens the UI in Chromium from the printed address only; the secret leaves the address bar and no script can read it', async () => {
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(base);
    assert.match(await page.eval('document.body.innerText'), /open the address the host printed/);
    assert.equal(await page.eval(`document.querySelector('nav') === null`), true);

    await page.goto(printed.open);
    assert.equal(await page.eval('location.href'), base);
    await page.waitFor(`document.body.dataset.ready === 'true'`);
    assert.equal(await page.eval('document.cookie'), '');
    const { cookies } = await page.send('Network.getCookies', { urls: [base] });
    assert.deepEqual(cookies.map((c) => [c.name, c.httpOnly, c.sameSite, c.path]),
      [[`workspace-bridge-${new URL(base).port}`, true, 'Strict', '/']]);
    // The page's own calls and its event stream carry the cookie.
    assert.equal(await page.eval(`fetch('/rpc', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'x', method: 'loadFile', params: { path: 'by-the-user.md' } }) }).then((r) => r.json()).then((b) => b.result.data)`), 'mine');
    assert.equal(await page.eval(`new Promise((resolve) => { const s = new EventSource('/events'); s.onopen = () => { s.close(); resolve('open'); };
      s.onerror = () => { s.close(); resolve('error'); }; })`), 'open');
    await page.goto(printed.app);
    assert.equal(await page.eval('location.href'), `${base}app/`);
    assert.equal(await page.text('p'), 'my page');
    assert.deepEqual(page.errors, []);
  });

  it('opens the UI from a link to the printed address on another site (the cookie is sent on from there)', async () => {
    const linking = http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(`<a id="printed" href="${printed.open}">the address from my notes</a>`);
    });
    await new Promise((resolve) => linking.listen(0, '127.0.0.1', resolve));
    try {
      await page.send('Network.clearBrowserCookies');
      await page.goto(`http://localhost:${linking.address().port}/`); // localhost is another site than 127.0.0.1
      await page.click('#printed');
      await page.waitFor(`location.href === ${JSON.stringify(base)} && document.body?.dataset.ready === 'true'`, { what: 'the UI, at the address without the secret' });
    } finally {
      linking.close();
    }
  });

  it('cannot be framed by a page on another origin, though that page is on the same machine and the cookie goes along', async () => {
    // The attacker's page is on 127.0.0.1 too (another port: the same site, so the SameSite
    // cookie is sent with the frame's request): only the frame-ancestors rule stops it. The
    // control frame (a third origin that allows framing) shows the check sees a loaded frame.
    const serve = (page) => http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(page());
    });
    let control = null;
    const framable = serve(() => '<p>framable</p>');
    const attacker = serve(() => `<iframe name="ui" src="${base}"></iframe><iframe name="app" src="${base}app/"></iframe>`
      + `<iframe name="control" src="${control}"></iframe>`);
    for (const server of [framable, attacker]) await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    control = `http://127.0.0.1:${framable.address().port}/framable`;
    try {
      await page.goto(`http://127.0.0.1:${attacker.address().port}/`);
      let frames = {};
      for (const deadline = Date.now() + 10000; Date.now() < deadline; await sleep(50)) {
        const { frameTree } = await page.send('Page.getFrameTree');
        frames = Object.fromEntries((frameTree.childFrames ?? []).map(({ frame }) => [frame.name, frame]));
        if (['ui', 'app', 'control'].every((name) => frames[name] && (frames[name].url.startsWith('chrome-error:') || frames[name].url.endsWith('framable')))) break;
      }
      assert.equal(frames.control?.url, control, 'the control frame loaded');
      for (const [name, url] of [['ui', base], ['app', `${base}app/`]]) {
        assert.equal(frames[name]?.url, 'chrome-error://chromewebdata/', `${name}: blocked`);
        assert.equal(frames[name]?.unreachableUrl, url, name);
      }
    } finally {
      attacker.close();
      framable.close();
    }
  });
});
