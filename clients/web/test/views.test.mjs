// The views for device conditions, the offline queue and synced settings, in headless Chromium
// through the real host and server: real clicks; every change checked against the server; a
// settings change made on another device (a second server process on the same workspace with
// its own configuration folder, hence its own device id) arriving live. Also takes the
// README's screenshots of the main screens (UPDATE_SCREENSHOTS=1 writes them to screenshots/).
//
//   node --test clients/web/test/views.test.mjs      (needs `chromium`; WB_BIN or .build/debug)
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Bridge } from '../bridge.mjs';
import { seedDemo } from '../demo.mjs';
import { startHost } from '../host.mjs';
import { launchBrowser } from './browser.mjs';
import { saveScreenshot } from './screenshots.mjs';
import { hostRpc, showView } from './host-rpc.mjs';
import { closeAll } from './ui-fixture.mjs';

let tmp, roots, host, browser, page;

const rpc = (method, params) => hostRpc(host, method, params);

const show = (view) => showView(page, view);

const itemStatus = async (kind) => (await rpc('queue/list')).items.find((i) => i.kind === kind);
const card = (kind) => `document.querySelector('.queue-item[data-id="' + window.__ids[${JSON.stringify(kind)}] + '"]')`;

/** Sets a form control's value the way a user's input would (fires input and change). */
const setValue = (selector, value) => page.eval(`(() => {
  const el = document.querySelector(${JSON.stringify(selector)});
  el.value = ${JSON.stringify(value)};
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
})()`);

describe('the device, offline queue and synced settings views', () => {
  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-web-views-'));
    roots = { local: path.join(tmp, 'local'), cloud: path.join(tmp, 'cloud'), config: path.join(tmp, 'config') };
    for (const dir of Object.values(roots)) mkdirSync(dir);
    writeFileSync(path.join(roots.cloud, '.stfolder'), '');
    host = await startHost({
      port: 0, quiet: true,
      serverArgs: ['--local-root', roots.local, '--cloud-root', roots.cloud, '--config-dir', roots.config, '--log-level', 'warning'],
    });
    await seedDemo(host.bridge, roots); // the demo's files, a conflict, sessions, settings and queue items
    await rpc('chooseStorage', { location: 'local' });
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(host.openUrl);
    await page.waitFor(`document.body.dataset.ready === 'true'`);
  });

  after(() => closeAll({ browser, host, tmp }));

  it('shows the main screens (files with the editor, sessions, storage)', async () => {
    await page.click('.file-row[data-path="Research"]');
    await page.click('.file-row[data-path="Research/ideas.md"]');
    await page.waitFor(`document.getElementById('editor-path').textContent === 'Research/ideas.md'`);
    await saveScreenshot(page, 'files');
    await show('sessions');
    await page.waitFor(`document.querySelectorAll('.session').length === 2`);
    await saveScreenshot(page, 'sessions');
    await show('storage');
    await page.waitFor(`document.getElementById('storage-current')?.textContent === 'This computer'`);
    await saveScreenshot(page, 'storage');
  });

  it('device conditions: shows what the device reports and the policy it implies, and applies a change', async () => {
    await show('device');
    await page.waitFor(`document.getElementById('cond-network')?.value === 'wifi'`);
    assert.equal(await page.text('#policy-heavy'), 'Runs now');
    assert.equal(await page.text('#policy-tier'), 'Powerful (largest)');
    assert.equal(await page.text('#policy-network'), 'Allowed');
    assert.equal(await page.text('#policy-reasons'), 'Nothing limits agents right now.');

    await setValue('#cond-network', 'offline');
    await setValue('#cond-battery', '12');
    await page.click('#cond-lowpower');
    await setValue('#cond-thermal', 'serious');
    assert.equal(await page.text('#cond-battery-value'), '12%');
    await page.click('#cond-apply');
    await page.waitFor(`document.getElementById('policy-heavy').textContent === 'Deferred'`);
    assert.equal(await page.text('#policy-tier'), 'Fast (smallest)');
    assert.equal(await page.text('#policy-network'), 'Refused');
    assert.deepEqual(await page.eval(`[...document.querySelectorAll('#policy-reasons li')].map((li) => li.dataset.reason)`),
      ['lowBattery', 'lowPowerMode', 'thermal', 'offline']);
    assert.match(await page.text('#policy-message'), /offline/i);

    const { conditions, policy } = await rpc('host/getConditions');
    assert.deepEqual(conditions, {
      network: 'offline', isExpensive: false, isConstrained: false, batteryLevel: 0.12, isCharging: false,
      isLowPowerMode: true, thermalState: 'serious',
    });
    assert.deepEqual([policy.deferHeavyWork, policy.maxModelTier, policy.allowNetworkTools], [true, 'fast', false]);
    await saveScreenshot(page, 'device');
  });

  it('offline queue: lists the items, marks one done, fails one for good, retries it, and defers another', async () => {
    for (const [kind, key] of [['upload-mix', 'k-upload'], ['index-notes', 'k-index']]) {
      await rpc('queue/enqueue', { kind, payload: { demo: kind }, idempotencyKey: key });
    }
    const items = (await rpc('queue/list')).items;
    await page.eval(`window.__ids = ${JSON.stringify(Object.fromEntries(items.map((i) => [i.kind, i.id])))}`);
    await show('queue');
    await page.waitFor(`document.querySelectorAll('.queue-item').length === ${items.length}`);
    assert.equal(await page.eval(`${card('send-summary')}.dataset.status`), 'failed'); // from the demo
    assert.match(await page.eval(`${card('send-summary')}.textContent`), /SMTP server unreachable/);
    assert.equal(await page.text('#queue-count'), String(items.filter((i) => i.status === 'pending').length));

    await page.click(`.queue-item[data-id="${items.find((i) => i.kind === 'upload-mix').id}"] .complete`);
    await page.waitFor(`${card('upload-mix')}.dataset.status === 'completed'`);
    assert.deepEqual((await itemStatus('upload-mix')).result, { completedFrom: 'web' });

    const index = items.find((i) => i.kind === 'index-notes').id;
    await page.click(`.queue-item[data-id="${index}"] .retry-later`);
    await page.waitFor(`${card('index-notes')}.querySelector('.attempts').textContent === '1'`);
    assert.deepEqual([(await itemStatus('index-notes')).status, (await itemStatus('index-notes')).attempts], ['pending', 1]);
    await page.click(`.queue-item[data-id="${index}"] .give-up`);
    await page.waitFor(`${card('index-notes')}.dataset.status === 'failed'`);
    assert.equal((await itemStatus('index-notes')).status, 'failed');
    await page.click(`.queue-item[data-id="${index}"] .retry`);
    await page.waitFor(`${card('index-notes')}.dataset.status === 'pending'`);
    assert.deepEqual([(await itemStatus('index-notes')).status, (await itemStatus('index-notes')).attempts], ['pending', 3]);
    await page.eval(`document.querySelector('.main').scrollTo(0, 0)`);
    await saveScreenshot(page, 'queue');
  });

  it('offline queue: when the device view reports the network back, the due items arrive live (queue/ready)', async () => {
    await show('device');
    await setValue('#cond-network', 'wifi');
    await page.click('#cond-apply');
    await page.waitFor(`document.getElementById('policy-network').textContent === 'Allowed'`);
    await show('queue');
    await page.waitFor(`!document.getElementById('queue-ready').hidden`);
    const banner = await page.text('#queue-ready');
    assert.match(banner, /^Back online — ready to run: /);
    assert.match(banner, /sync-calendar/);
    assert.match(banner, /index-notes/);
    assert.doesNotMatch(banner, /upload-mix/); // done already
  });

  it('synced settings: lists, adds, edits and removes values; the server has them', async () => {
    await show('settings');
    await page.waitFor(`document.querySelector('.setting[data-key="theme"]')`);
    assert.equal(await page.eval(`document.querySelector('.setting[data-key="editorFontSize"] input').value`), '14');
    assert.equal(await page.eval(`document.querySelector('.setting[data-key="languages"] input').value`), '["en","fr"]');

    await page.type('#settings-new-key', 'autosave');
    await page.type('#settings-new-value', 'true');
    await page.click('#settings-add-button');
    await page.waitFor(`document.querySelector('.setting[data-key="autosave"]')`);
    assert.equal((await rpc('settings/get', { keys: ['autosave'] })).values.autosave, true);

    await page.type('.setting[data-key="theme"] input', 'dark', { replace: true });
    await page.click('.setting[data-key="theme"] .save');
    await page.waitFor(`document.querySelector('.setting[data-key="theme"] input').value === '"dark"'`);
    assert.equal((await rpc('settings/get', { keys: ['theme'] })).values.theme, 'dark'); // plain text is a string

    await page.click('.setting[data-key="autosave"] .remove');
    await page.waitFor(`!document.querySelector('.setting[data-key="autosave"]')`);
    assert.deepEqual((await rpc('settings/get', { keys: ['autosave'] })).values, {});
  });

  it('synced settings: a change made on another device appears without a reload, marked as such', async () => {
    const other = new Bridge({ args: ['--local-root', roots.local, '--config-dir', path.join(tmp, 'other-device'), '--log-level', 'warning'], quiet: true });
    try {
      await other.call('initialize', { processId: process.pid, capabilities: {} });
      other.notify('initialized', {});
      await other.call('settings/set', { values: { editorFontSize: 18, metronome: true } });
      await other.call('settings/remove', { keys: ['languages'] });
    } finally {
      await other.close();
    }
    await page.waitFor(`document.querySelector('.setting[data-key="metronome"]')?.dataset.source === 'remote'`, { timeout: 10000 });
    await page.waitFor(`document.querySelector('.setting[data-key="editorFontSize"] input').value === '18'`);
    await page.waitFor(`!document.querySelector('.setting[data-key="languages"]')`);
    assert.equal(await page.text('.setting[data-key="editorFontSize"] .setting-source'), 'from another device');
    assert.equal(await page.eval(`document.querySelector('.setting[data-key="theme"]').dataset.source`), '');
    await saveScreenshot(page, 'settings');
  });

  it('raised no errors in the page', () => {
    assert.deepEqual(page.errors, []);
  });
});
