// End-to-end: the real server behind the real host, the page in headless Chromium driven
// through the DevTools protocol with real clicks and typing. Each step asserts the DOM and,
// where it matters, the files on disk; screenshots go to $WEB_TEST_OUT (default test/out/).
//
//   node --test clients/web/test/web.test.mjs      (needs `chromium`; WB_BIN or .build/debug)
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startHost } from '../host.mjs';
import { launchBrowser } from './browser.mjs';
import { hostRpc, showView } from './host-rpc.mjs';
import { closeAll } from './ui-fixture.mjs';

const out = process.env.WEB_TEST_OUT || path.join(path.dirname(fileURLToPath(import.meta.url)), 'out');
const bulkFiles = 900; // enough data that a migration takes long enough to watch and cancel
const bulkBytes = 256 * 1024;

let tmp, roots, host, browser, page;
let shot = 0;
const screenshot = (name) => page.screenshot(path.join(out, `${String(++shot).padStart(2, '0')}-${name}.png`));
const q = JSON.stringify;

const rpc = (method, params) => hostRpc(host, method, params);

const show = (view) => showView(page, view);

function hostArgs(withCloud) {
  const args = ['--local-root', roots.local, '--config-dir', roots.config, '--log-level', 'warning'];
  return withCloud ? [...args, '--cloud-root', roots.cloud] : args;
}

describe('the web front end on a workspace with a Syncthing cloud folder', () => {
  before(async () => {
    mkdirSync(out, { recursive: true });
    for (const name of readdirSync(out)) if (/^\d\d-[a-z-]+\.png$/.test(name)) rmSync(path.join(out, name)); // this test's own, from an earlier run
    tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-web-test-'));
    roots = { local: path.join(tmp, 'local'), cloud: path.join(tmp, 'cloud'), config: path.join(tmp, 'config') };
    for (const dir of Object.values(roots)) mkdirSync(dir);
    writeFileSync(path.join(roots.cloud, '.stfolder'), '');
    mkdirSync(path.join(roots.local, 'Bulk'));
    for (let i = 0; i < bulkFiles; i++) writeFileSync(path.join(roots.local, 'Bulk', `part-${i}.bin`), Buffer.alloc(bulkBytes, i % 251));
    browser = await launchBrowser();
    page = browser.page;
  });

  after(() => closeAll({ browser, host, tmp }));

  it('hides the cloud choice on first run when no cloud folder is configured', async () => {
    host = await startHost({ port: 0, serverArgs: hostArgs(false), quiet: true });
    await page.goto(host.openUrl);
    await page.waitFor(`document.getElementById('first-run').open`);
    assert.equal(await page.eval(`document.getElementById('choice-cloud').hidden`), true);
    assert.equal(await page.eval(`document.getElementById('choice-local').hidden`), false);
    await host.close();
    host = null;
  });

  it('offers cloud, this computer and decide later on first run when the cloud folder is there', async () => {
    host = await startHost({ port: 0, serverArgs: hostArgs(true), quiet: true });
    await page.goto(host.openUrl);
    await page.waitFor(`document.getElementById('first-run').open && !document.getElementById('choice-cloud').hidden`);
    assert.match(await page.text('#choice-cloud-text'), /Syncthing/);
    assert.match(await page.text('#choice-cloud-text'), new RegExp(roots.cloud));
    assert.match(await page.text('#choice-later'), /Decide later/);
    await screenshot('first-run-choice');
  });

  it('records the first-run choice of this computer', async () => {
    await page.click('#choice-local');
    await page.waitFor(`!document.getElementById('first-run').open`);
    await page.waitFor(`document.getElementById('storage-badge').textContent.includes('This computer')`);
    const info = await rpc('getStorageInfo');
    assert.equal(info.isInitialized, true);
    assert.equal(info.storageType, 'local');
  });

  it('creates a file, saves it, and shows it in the list; the bytes are on disk', async () => {
    await page.waitFor(`document.querySelector('.file-row[data-path="Bulk"]')`);
    await page.click('#new-file');
    await page.type('#modal input[name="name"]', 'todo.md', { replace: true });
    await page.click('#modal-confirm');
    await page.waitFor(`document.getElementById('editor-path').textContent === 'todo.md'`);
    await page.type('#editor-text', '# Todo\n\n- write the web client\n');
    assert.equal(await page.text('#editor-status'), 'Unsaved changes');
    await page.click('#editor-save');
    await page.waitFor(`document.getElementById('editor-status').textContent.startsWith('Saved at')`);
    assert.equal(readFileSync(path.join(roots.local, 'todo.md'), 'utf8'), '# Todo\n\n- write the web client\n');
    await page.waitFor(`document.querySelector('.file-row[data-path="todo.md"] .file-meta')?.textContent.startsWith('31 B')`);
    await screenshot('file-saved');
  });

  it('warns instead of overwriting when the file changed on disk after it was opened (ifMatch)', async () => {
    await page.type('#editor-text', '- my edit\n');
    writeFileSync(path.join(roots.local, 'todo.md'), '# Todo\n\n- edited in another app\n');
    await page.click('#editor-save');
    await page.waitFor(`!document.getElementById('stale-warning').hidden`);
    assert.equal(await page.text('#editor-status'), 'Not saved');
    assert.equal(readFileSync(path.join(roots.local, 'todo.md'), 'utf8'), '# Todo\n\n- edited in another app\n');
    await screenshot('ifmatch-warning');

    await page.click('#stale-overwrite');
    await page.waitFor(`document.getElementById('stale-warning').hidden && document.getElementById('editor-status').textContent.startsWith('Saved at')`);
    assert.equal(readFileSync(path.join(roots.local, 'todo.md'), 'utf8'), '# Todo\n\n- write the web client\n- my edit\n');
  });

  it('shows a file created outside the page without a reload (workspace/didChangeFiles)', async () => {
    writeFileSync(path.join(roots.local, 'from-outside.md'), 'Written by a shell.\nThe needle is here.\n');
    await page.waitFor(`document.querySelector('.file-row[data-path="from-outside.md"]')`, { timeout: 5000 });
  });

  it('searches file contents and opens a match on its line', async () => {
    await page.type('#search-input', 'needle');
    await page.press('Enter');
    await page.waitFor(`document.querySelector('.search-hit[data-path="from-outside.md"]')`);
    assert.match(await page.text('#list-title'), /^1 match in 1 file for “needle”$/);
    assert.equal(await page.text('.search-hit mark'), 'needle');
    await screenshot('search');
    await page.click('.search-hit[data-path="from-outside.md"]');
    await page.waitFor(`document.getElementById('editor-path').textContent === 'from-outside.md'`);
    const selected = await page.eval(`(() => { const t = document.getElementById('editor-text'); return t.value.slice(t.selectionStart, t.selectionEnd); })()`);
    assert.equal(selected, 'The needle is here.');
  });

  it('renames and deletes files', async () => {
    await page.eval(`document.getElementById('search-input').value = ''`);
    await page.click('.crumb');
    await page.click('.file-row[data-path="from-outside.md"] .rename');
    await page.type('#modal input[name="name"]', 'renamed.md', { replace: true });
    await page.click('#modal-confirm');
    await page.waitFor(`document.querySelector('.file-row[data-path="renamed.md"]') && !document.querySelector('.file-row[data-path="from-outside.md"]')`);
    assert.ok(existsSync(path.join(roots.local, 'renamed.md')));
    assert.equal(await page.text('#editor-path'), 'renamed.md');

    await page.click('.file-row[data-path="renamed.md"] .delete');
    await page.click('#modal-confirm');
    await page.waitFor(`!document.querySelector('.file-row[data-path="renamed.md"]')`);
    assert.equal(existsSync(path.join(roots.local, 'renamed.md')), false);
    assert.equal(await page.eval(`document.getElementById('editor').hidden`), true);
  });

  it('resolves a sync conflict by keeping the other device\'s version', async () => {
    writeFileSync(path.join(roots.local, 'notes.md'), 'mine\n');
    writeFileSync(path.join(roots.local, 'notes.sync-conflict-20251122-101010-K7XQ2PA.md'), 'from the laptop\n');
    await page.waitFor(`document.querySelector('.file-row[data-path="notes.md"] .pill.warn')`, { timeout: 5000 });
    await page.waitFor(`document.getElementById('conflict-count').textContent === '1'`);
    await show('conflicts');
    await page.waitFor(`document.querySelector('.conflict[data-path="notes.md"]')`);
    assert.match(await page.text('.conflict[data-path="notes.md"]'), /From K7XQ2PA/);
    assert.match(await page.text('.conflict[data-path="notes.md"]'), /from the laptop/);
    await screenshot('conflict');
    await page.click('.conflict[data-path="notes.md"] .keep-copy');
    await page.waitFor(`document.getElementById('no-conflicts')`);
    assert.equal(readFileSync(path.join(roots.local, 'notes.md'), 'utf8'), 'from the laptop\n');
    assert.equal(existsSync(path.join(roots.local, 'notes.sync-conflict-20251122-101010-K7XQ2PA.md')), false);
    assert.equal(await page.eval(`document.getElementById('conflict-count').hidden`), true);
  });

  it('lists sessions with state, usage, estimated cost and pending tool calls, and resumes one', async () => {
    const session = await rpc('session/create', { title: 'Weekly summary', agentType: 'researcher', config: { modelTier: 'balanced', maxCostUSD: 2 } });
    await rpc('session/transition', { id: session.id, to: 'running' });
    await rpc('session/appendMessages', { id: session.id, messages: [{ role: 'user', content: 'Summarise the week.' }] });
    await rpc('session/recordUsage', { id: session.id, inputTokens: 10000, outputTokens: 2000 });
    await rpc('session/checkpoint', { id: session.id, pendingToolCalls: [{ toolCallId: 'call-7', name: 'write_file', arguments: { path: 'summary.md', data: '' } }] });
    await rpc('host/didEnterBackground');
    await show('sessions');
    const card = `.session[data-id="${session.id}"]`;
    await page.waitFor(`document.querySelector('${card}')?.dataset.state === 'backgrounded'`);
    const text = await page.text(card);
    assert.match(text, /Weekly summary/);
    assert.match(text, /Paused/);
    assert.match(text, /\$0\.06estimated cost of \$2\.00/); // balanced: $3 in, $15 out per million
    assert.match(text, /10,000input tokens/);
    assert.match(text, /Pending tool calls \(1\)write_filepending/);
    await screenshot('sessions');
    await page.click(`${card} .resume`);
    await page.waitFor(`document.querySelector('${card}')?.dataset.state === 'running'`);
    assert.match(await page.text(`${card} .messages`), /Summarise the week\./);
    assert.equal((await rpc('session/get', { id: session.id })).state, 'running');
  });

  it('cancels a migration part-way: nothing switches, and the page offers to resume', async () => {
    await show('storage');
    await page.click('#migrate-start');
    await page.waitFor(`document.getElementById('modal').open`);
    assert.match(await page.text('#modal'), new RegExp(`^Move your workspace to Cloud \\(Syncthing\\)\\?${bulkFiles + 4} files \\(225 MB\\) will be copied`));
    await page.click('#modal-confirm');
    await page.waitFor(`parseFloat(document.getElementById('migrate-pct')?.textContent) >= 5`, { timeout: 20000 });
    await page.click('#migrate-cancel');
    await page.waitFor(`document.getElementById('migrate-result')?.textContent.startsWith('Cancelled')`, { timeout: 20000 });
    assert.equal(await page.text('#storage-current'), 'This computer');
    assert.match(await page.text('#pending-migration'), new RegExp(`stopped at \\d+ of ${bulkFiles + 4} files`));
    const info = await rpc('getStorageInfo');
    assert.equal(info.storageType, 'local');
    assert.ok(info.pendingMigration.filesDone < info.pendingMigration.filesTotal);
    await screenshot('migration-cancelled');
  });

  it('resumes the migration to the cloud folder with a progress bar that advances, then switches', async () => {
    await page.click('#migrate-resume');
    await page.click('#modal-confirm');
    const seen = [];
    let captured = false;
    for (const deadline = Date.now() + 60000; Date.now() < deadline;) {
      const pct = await page.eval(`document.getElementById('migrate-progress') ? parseFloat(document.getElementById('migrate-fill').style.width) : null`);
      if (pct === null && seen.length) break;
      if (pct !== null) seen.push(pct);
      if (!captured && pct > 20 && pct < 90) {
        await screenshot('migration-progress');
        captured = true;
      }
      await sleep(25);
    }
    const between = [...new Set(seen.filter((p) => p > 0 && p < 100))];
    assert.ok(between.length >= 2, `expected the bar to pass through several values, saw ${[...new Set(seen)]}`);
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b), 'the bar never goes backwards');
    await page.waitFor(`document.getElementById('migrate-result')?.textContent.startsWith('Resumed and finished')`);
    await page.waitFor(`document.getElementById('storage-current').textContent === 'Cloud (Syncthing)'`);
    assert.equal(readFileSync(path.join(roots.cloud, 'todo.md'), 'utf8'), '# Todo\n\n- write the web client\n- my edit\n');
    assert.ok(existsSync(path.join(roots.cloud, 'Bulk', `part-${bulkFiles - 1}.bin`)));
    assert.equal((await rpc('getStorageInfo')).storageType, 'cloud');
    await screenshot('migration-done');
    await show('files');
    await page.waitFor(`document.querySelector('.file-row[data-path="todo.md"]')`);
  });

  it('resets the storage choice: the first-run choice comes back', async () => {
    await show('storage');
    await page.click('#reset-choice');
    await page.waitFor(`document.getElementById('first-run').open`);
    assert.equal(await page.eval(`document.getElementById('choice-cloud').classList.contains('current')`), true);
    await page.click('#choice-later');
    await page.waitFor(`document.getElementById('storage-choice').textContent.startsWith('No choice made yet')`);
    assert.equal((await rpc('getStorageInfo')).needsChoice, true);
    await page.goto(host.openUrl);
    await page.waitFor(`document.getElementById('first-run').open`);
    await screenshot('choice-reset');
  });

  it('offers to bring the files along when cloud is chosen on first run, and moves them', async () => {
    await host.close();
    const fresh = { local: path.join(tmp, 'local2'), cloud: path.join(tmp, 'cloud2'), config: path.join(tmp, 'config2') };
    for (const dir of Object.values(fresh)) mkdirSync(dir);
    writeFileSync(path.join(fresh.cloud, '.stfolder'), '');
    writeFileSync(path.join(fresh.local, 'plan.md'), 'the plan\n');
    host = await startHost({ port: 0, quiet: true, serverArgs: ['--local-root', fresh.local, '--cloud-root', fresh.cloud, '--config-dir', fresh.config, '--log-level', 'warning'] });
    await page.goto(host.openUrl);
    await page.click('#choice-cloud');
    await page.waitFor(`document.getElementById('modal').open`);
    assert.match(await page.text('#modal h2'), /Bring your files to the cloud\?/);
    await page.click('#modal-confirm');
    await page.waitFor(`document.getElementById('storage-current')?.textContent === 'Cloud (Syncthing)' && document.getElementById('migrate-result')`);
    assert.equal(readFileSync(path.join(fresh.cloud, 'plan.md'), 'utf8'), 'the plan\n');
    const info = await rpc('getStorageInfo');
    assert.equal(info.storageType, 'cloud');
    assert.equal(info.needsChoice, false);
  });

  it('raised no errors in the page', () => {
    assert.deepEqual(page.errors, []);
  });
});
