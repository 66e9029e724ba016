// The seeds' JavaScript bridge in a browser: a page written only against seed 002's API
// (`window.AtomeFileSystem`, `window.fileSystemCallback`, saveProject/loadProject/exportAudio),
// served unchanged by `--app`, talking to the real server (Atome template) through the real
// host, in headless Chromium. Bytes are checked on disk; errors through the callback and the
// hook; the seeds' storage fields before and after a migration to the cloud folder.
//
//   node --test clients/web/test/atome.test.mjs      (needs `chromium`; WB_BIN or .build/debug)
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startHost } from '../host.mjs';
import { launchBrowser } from './browser.mjs';
import { saveScreenshot } from './screenshots.mjs';
import { hostRpc } from './host-rpc.mjs';
import { closeAll } from './ui-fixture.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
let tmp, roots, appDir, host, browser, page;

/** The pattern both sides compute: byte i is (i * 31 + 7) mod 256 (every byte value occurs). */
const pattern = (n) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + 7) % 256));
const pagePattern = (n) => `new Uint8Array(${n}).map((_, i) => (i * 31 + 7) % 256)`;

/** GET with the raw path (fetch would normalise `..` away) and the run's secret. */
function rawGet(pathname) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: host.port, path: pathname, headers: { Cookie: host.cookie } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

const rpc = (method, params) => hostRpc(host, method, params);

/** Calls AtomeFileSystem[name](...args, callback) in the page; returns what the callback got,
 *  whether fileSystemCallback got that very object, and how data looks (type, bytes as base64). */
function viaCallback(name, ...args) {
  return page.eval(`new Promise((resolve) => {
    const before = window.fileSystemResults.length;
    AtomeFileSystem.${name}(${args.join(', ')}${args.length ? ', ' : ''}(result) => {
      setTimeout(() => {
        const hooked = window.fileSystemResults.slice(before);
        const d = result.data;
        const kind = d instanceof ArrayBuffer ? 'ArrayBuffer' : Array.isArray(d) ? 'array' : typeof d;
        let bytes = null;
        if (d instanceof ArrayBuffer) { let s = ''; new Uint8Array(d).forEach((b) => { s += String.fromCharCode(b); }); bytes = btoa(s); }
        resolve({ result: d instanceof ArrayBuffer ? { ...result, data: null } : result, kind, bytes,
                  hookSawSameObject: hooked.length === 1 && hooked[0] === result });
      }, 0);
    });
  })`);
}

describe('window.AtomeFileSystem from /atome-filesystem.js, in a page of your own under --app', () => {
  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-web-atome-'));
    roots = { local: path.join(tmp, 'local'), cloud: path.join(tmp, 'cloud'), config: path.join(tmp, 'config') };
    mkdirSync(roots.cloud);
    writeFileSync(path.join(roots.cloud, '.stfolder'), '');
    appDir = path.join(tmp, 'app');
    cpSync(path.join(here, 'app'), appDir, { recursive: true });
    writeFileSync(path.join(tmp, 'secret.txt'), 'not for the page\n');
    symlinkSync(path.join(tmp, 'secret.txt'), path.join(appDir, 'leak.txt'));
    host = await startHost({
      port: 0, quiet: true, appDir,
      serverArgs: ['--local-root', roots.local, '--cloud-root', roots.cloud, '--config-dir', roots.config, '--template', 'atome', '--log-level', 'warning'],
    });
    browser = await launchBrowser();
    page = browser.page;
  });

  after(() => closeAll({ browser, host, tmp }));

  it('serves the --app folder at /app/ byte for byte, without the host\'s script rules, and nothing outside it', async () => {
    const index = await rawGet('/app/');
    assert.equal(index.status, 200);
    assert.equal(index.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(index.headers['content-security-policy'], "frame-ancestors 'none'"); // inline scripts are the page's business; framing is not
    assert.deepEqual(index.body, readFileSync(path.join(appDir, 'index.html')));
    assert.deepEqual((await rawGet('/app/index.html')).body, index.body);
    assert.equal((await rawGet('/app')).status, 301);
    for (const bad of ['/app/../host.mjs', '/app/%2e%2e/secret.txt', '/app/..%2fsecret.txt', '/app/leak.txt', '/app/missing.html', '/app/%00']) {
      assert.equal((await rawGet(bad)).status, 404, bad);
    }
  });

  it('serves /atome-filesystem.js as a classic script (no module syntax, no build step)', async () => {
    const res = await rawGet('/atome-filesystem.js');
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'], /^text\/javascript/);
    const source = res.body.toString('utf8');
    assert.doesNotThrow(() => new vm.Script(source)); // a module's import/export would not compile here
    // Run it against a fake window: it defines the seeds' globals, nothing else needed.
    const window = {};
    vm.runInNewContext(source, { window, fetch: () => { throw new Error('no network here'); }, location: { href: 'http://x/' }, TextDecoder, btoa, atob, Blob });
    assert.deepEqual(Object.keys(window.AtomeFileSystem).filter((k) => typeof window.AtomeFileSystem[k] === 'function').sort(),
      ['deleteFile', 'getStorageInfo', 'listFiles', 'loadFile', 'saveFile', 'showStorageSettings']);
    for (const fn of ['saveProject', 'loadProject', 'exportAudio']) assert.equal(typeof window[fn], 'function');
  });

  it('lays out the Atome template, and the page (unchanged) shows it through the bridge', async () => {
    await page.goto(host.appUrl); // the address the host prints: the secret becomes the page's cookie
    assert.equal(await page.eval('location.href'), `${host.url}app/`);
    await page.waitFor(`document.getElementById('storage').textContent.startsWith('Storage: local')`);
    assert.equal(await page.text('#storage'), 'Storage: local, iCloud available, not set up yet');
    const { result } = await viaCallback('listFiles', `''`);
    assert.equal(result.success, true);
    assert.deepEqual(result.data.map((e) => e.name).sort(), ['Exports', 'Projects', 'README.txt', 'Recordings', 'Templates']);
    const readme = result.data.find((e) => e.name === 'README.txt');
    assert.equal(readme.type, 'file');
    assert.equal(readme.size, readFileSync(path.join(roots.local, 'README.txt')).length);
    assert.ok(readme.modified && readme.etag, 'file objects carry metadata');
    const loaded = await viaCallback('loadFile', `'README.txt'`);
    assert.equal(loaded.kind, 'string');
    assert.equal(loaded.result.data, readFileSync(path.join(roots.local, 'README.txt'), 'utf8'));
  });

  it('round-trips text exactly: UTF-8 on disk, a string back', async () => {
    const text = 'Tempo 120 ♩ — «café» 🎹\r\nline two\n\uFEFF';
    const saved = await viaCallback('saveFile', `'Projects/notes.txt'`, JSON.stringify(text));
    assert.equal(saved.result.success, true);
    assert.equal(saved.hookSawSameObject, true);
    assert.equal(saved.result.data.path, 'Projects/notes.txt');
    assert.deepEqual(readFileSync(path.join(roots.local, 'Projects/notes.txt')), Buffer.from(text, 'utf8'));
    const loaded = await viaCallback('loadFile', `'Projects/notes.txt'`);
    assert.deepEqual([loaded.kind, loaded.result.data, loaded.hookSawSameObject], ['string', text, true]);
  });

  it('round-trips bytes exactly from ArrayBuffer, typed arrays, DataView and Blob; non-UTF-8 loads as an ArrayBuffer', async () => {
    const n = 300_000;
    const expected = pattern(n);
    const forms = {
      'Recordings/buffer.raw': `${pagePattern(n)}.buffer`,
      'Recordings/uint8.raw': pagePattern(n),
      'Recordings/offset.raw': `(() => { const b = new Uint8Array(${n} + 10); b.set(${pagePattern(n)}, 5); return b.subarray(5, 5 + ${n}); })()`,
      'Recordings/int16.raw': `new Int16Array(${pagePattern(n)}.buffer)`,
      'Recordings/view.raw': `new DataView(${pagePattern(n)}.buffer)`,
      'Recordings/blob.raw': `new Blob([${pagePattern(n)}.slice(0, 1000), ${pagePattern(n)}.slice(1000)])`,
    };
    for (const [file, expr] of Object.entries(forms)) {
      const saved = await viaCallback('saveFile', `'${file}'`, expr);
      assert.equal(saved.result.success, true, `${file}: ${saved.result.error}`);
      assert.equal(saved.result.data.size, n);
      assert.deepEqual(readFileSync(path.join(roots.local, file)), expected, `${file} on disk`);
    }
    const loaded = await viaCallback('loadFile', `'Recordings/blob.raw'`);
    assert.equal(loaded.kind, 'ArrayBuffer');
    assert.deepEqual(Buffer.from(loaded.bytes, 'base64'), expected);
  });

  it('saveProject, loadProject and exportAudio: Projects/<name>.atome as JSON, the object back, Exports/<name>.wav byte for byte', async () => {
    const project = { name: 'Night drive', bpm: 84, tracks: [{ name: 'Bass', muted: false, notes: [36, 43, 48] }], 'ünïcode': '✓' };
    const saved = await page.eval(`saveProject(${JSON.stringify(project)}, 'night-drive')`);
    assert.equal(saved.path, 'Projects/night-drive.atome');
    assert.equal(readFileSync(path.join(roots.local, 'Projects/night-drive.atome'), 'utf8'), JSON.stringify(project));
    assert.deepEqual(await page.eval(`loadProject('night-drive')`), project);
    assert.deepEqual(await page.eval(`loadProject('missing').then(() => 'resolved', (e) => [e instanceof Error, e.message, e.code])`),
      [true, "'Projects/missing.atome' does not exist", 'NotFound']);

    const n = 44_100;
    for (const [form, expr] of [['ArrayBuffer', `${pagePattern(n)}.buffer`], ['Blob', `new Blob([${pagePattern(n)}])`], ['Uint8Array', pagePattern(n)]]) {
      const result = await page.eval(`exportAudio(${expr}, 'mix-${form}')`);
      assert.equal(result.path, `Exports/mix-${form}.wav`);
      assert.deepEqual(readFileSync(path.join(roots.local, `Exports/mix-${form}.wav`)), pattern(n), form);
    }
    assert.equal(await page.eval(`exportAudio('RIFF-as-text', 'text')`).then((r) => r.size), 12);

    // The page's own buttons (real clicks): save+load a project, export a rendered tone.
    await page.click('#save-project');
    await page.waitFor(`document.getElementById('status').textContent === 'Saved and reloaded Demo song at 110 bpm'`);
    await page.waitFor(`document.querySelector('#projects li[data-name="demo-song.atome"]')`);
    await page.click('#export-audio');
    await page.waitFor(`document.getElementById('status').textContent.startsWith('Exported Exports/demo-song.wav')`);
    const wav = readFileSync(path.join(roots.local, 'Exports/demo-song.wav'));
    assert.equal(wav.toString('ascii', 0, 4), 'RIFF');
    assert.equal(wav.length, 44 + 2000 * 2);
    await page.waitFor(`document.querySelector('#exports li[data-name="demo-song.wav"]')`);
    await saveScreenshot(page, 'app-page');
  });

  it('deleteFile removes the file; errors reach the callback and fileSystemCallback as {success: false, error, code}', async () => {
    const deleted = await viaCallback('deleteFile', `'Projects/notes.txt'`);
    assert.equal(deleted.result.success, true);
    assert.equal(existsSync(path.join(roots.local, 'Projects/notes.txt')), false);

    const cases = [
      ['deleteFile', [`'Projects/notes.txt'`], 'NotFound'],
      ['loadFile', [`'Projects/nothing.atome'`], 'NotFound'],
      ['saveFile', [`'../outside.txt'`, `'x'`], 'OutsideWorkspace'],
      ['saveFile', [`'.workspace/steal.txt'`, `'x'`], 'PermissionDenied'],
      ['listFiles', [`'Projects/night-drive.atome'`], 'NotADirectory'],
      ['saveFile', [`'Projects/bad.bin'`, `{ not: 'bytes' }`], null],
    ];
    for (const [name, args, code] of cases) {
      const { result, hookSawSameObject } = await viaCallback(name, ...args);
      assert.equal(result.success, false, `${name} ${args}`);
      assert.equal(typeof result.error, 'string');
      assert.ok(result.error.length > 0);
      assert.equal(result.code, code, `${name} ${args}: ${result.error}`);
      assert.equal(hookSawSameObject, true, `${name}: fileSystemCallback got the same object`);
    }
    assert.equal(existsSync(path.join(tmp, 'outside.txt')), false);
  });

  it('getStorageInfo gives the seeds\' four fields with the seeds\' meaning, before and after a migration to the cloud folder', async () => {
    const seedFields = (d) => ({ isICloudEnabled: d.isICloudEnabled, isICloudAvailable: d.isICloudAvailable, storageType: d.storageType, isInitialized: d.isInitialized });
    const before = (await viaCallback('getStorageInfo')).result;
    assert.equal(before.success, true);
    assert.deepEqual(seedFields(before.data), { isICloudEnabled: false, isICloudAvailable: true, storageType: 'local', isInitialized: false });
    assert.equal(before.data.isCloudEnabled, true); // richer fields beside: a cloud root is configured
    assert.equal(before.data.storageLocation, 'local');
    assert.equal(before.data.cloudProvider, 'syncthing');

    const migrated = await rpc('migrate', { to: 'cloud', mode: 'copy' });
    assert.equal(migrated.conflicts, 0);
    const after = (await viaCallback('getStorageInfo')).result;
    assert.deepEqual(seedFields(after.data), { isICloudEnabled: true, isICloudAvailable: true, storageType: 'icloud', isInitialized: true });
    assert.equal(after.data.storageLocation, 'cloud');
    // The files followed: the bridge now reads and writes the cloud folder.
    assert.deepEqual(await page.eval(`loadProject('night-drive')`).then((p) => p.bpm), 84);
    await page.eval(`saveProject({ moved: true }, 'after-move')`);
    assert.equal(readFileSync(path.join(roots.cloud, 'Projects/after-move.atome'), 'utf8'), '{"moved":true}');
    assert.equal(existsSync(path.join(roots.local, 'Projects/after-move.atome')), false);
    await page.goto(`${host.url}app/`);
    await page.waitFor(`document.getElementById('storage').textContent === 'Storage: icloud (in iCloud), iCloud available'`);
  });

  it('showStorageSettings opens the front end\'s Storage view: a window from your page, the view itself in ours', async () => {
    await page.click('#open-settings');
    const result = await page.waitFor(`window.settingsResult`);
    assert.equal(result.success, true);
    assert.equal(result.data.shown, 'window');
    assert.equal(result.data.url, `${host.url}#storage`);
    let opened = null;
    let seen = [];
    for (const deadline = Date.now() + 10000; !opened && Date.now() < deadline; await sleep(50)) {
      const { targetInfos } = await page.cdp.send('Target.getTargets');
      seen = targetInfos.map((t) => t.url);
      opened = targetInfos.find((t) => t.type === 'page' && t.url === `${host.url}#storage`);
    }
    assert.ok(opened, `a window on ${host.url}#storage (targets: ${seen})`);
    await page.cdp.send('Target.closeTarget', { targetId: opened.targetId });

    await page.goto(host.url);
    await page.waitFor(`document.body.dataset.ready === 'true'`);
    if (await page.eval(`document.getElementById('first-run').open`)) await page.click('#choice-later');
    const ours = await page.eval(`AtomeFileSystem.showStorageSettings()`);
    assert.deepEqual(ours, { success: true, data: { shown: 'page' } });
    await page.waitFor(`location.hash === '#storage' && !document.getElementById('view-storage').hidden`);
  });

  it('keeps the host\'s rules for pages under /app/: no lifecycle, host-path or debug methods, no other origin', async () => {
    const refused = await page.eval(`Promise.all(['shutdown', 'exit', 'initialize', 'importFile', 'exportFile', 'getFileUri', 'debug/echo'].map((method) =>
      fetch('/rpc', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: method, method, params: {} }) })
        .then((r) => r.json()).then((b) => [method, b.error?.data?.code])))`);
    const expected = { shutdown: 'CapabilityDenied', exit: 'MethodNotFound', initialize: 'AlreadyInitialized', importFile: 'CapabilityDenied',
      exportFile: 'CapabilityDenied', getFileUri: 'CapabilityDenied', 'debug/echo': 'MethodNotFound' };
    for (const [method, code] of refused) assert.equal(code, expected[method], method);
    // The same methods under another name: refused by what they reach, and no host file is read or written.
    const secret = path.join(tmp, 'secret.txt');
    const exported = path.join(tmp, 'exported.txt');
    const commands = await page.eval(`Promise.all(${JSON.stringify([
      ['importFile', { source: secret, path: 'Exports/stolen.txt' }],
      ['exportFile', { path: 'README.txt', destination: exported }],
      ['getFileUri', { path: 'README.txt' }],
    ])}.map(([method, params]) => fetch('/rpc', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: method, method: 'workspace/executeCommand', params: { command: 'wsb.' + method, arguments: [params] } }) })
      .then((r) => r.json()).then((b) => [method, b.error?.data?.code, b.error?.data?.capabilities])))`);
    for (const [method, code, missing] of commands) {
      assert.equal(code, 'CapabilityDenied', method);
      assert.deepEqual(missing, ['host-paths'], method);
    }
    assert.equal(existsSync(exported), false);
    assert.equal(existsSync(path.join(roots.local, 'Exports', 'stolen.txt')), false);
    assert.equal(readFileSync(secret, 'utf8'), 'not for the page\n');
    const other = await fetch(new URL('/rpc', host.url), {
      method: 'POST', headers: { 'Content-Type': 'application/json', Origin: 'http://evil.example', Cookie: host.cookie },
      body: JSON.stringify({ id: 1, method: 'listFiles', params: {} }),
    });
    assert.equal(other.status, 403);
    assert.equal((await rpc('ping')) !== undefined, true); // the server is still up
  });

  it('runs the README\'s ten-line page as written', async () => {
    const readme = readFileSync(path.join(here, '..', 'README.md'), 'utf8');
    const block = /<!-- example: ten-line page[^>]*-->\n```html\n([\s\S]*?)```/.exec(readme);
    assert.ok(block, 'the README has the example');
    assert.equal(block[1].trimEnd().split('\n').length, 10);
    writeFileSync(path.join(appDir, 'hello.html'), block[1]);
    await page.goto(`${host.url}app/hello.html`);
    await page.waitFor(`document.getElementById('out').textContent.includes('storage')`);
    assert.deepEqual(JSON.parse(await page.text('#out')), { project: { bpm: 120 }, storage: 'icloud' }); // migrated above
    assert.equal(readFileSync(path.join(roots.cloud, 'Projects/hello.atome'), 'utf8'), '{"bpm":120}');
  });

  it('raised no errors in the pages', () => {
    assert.deepEqual(page.errors, []);
  });
});
