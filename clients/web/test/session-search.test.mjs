// The Sessions view's search box (issue 25) in headless Chromium through the real host and
// server: a query typed and submitted, ranked hits from every session with the match marked,
// more hits through the cursor, and a hit opening its conversation at the message that matched.
//
//   node --test clients/web/test/session-search.test.mjs      (needs `chromium`; WB_BIN or .build/debug)
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startHost } from '../host.mjs';
import { launchBrowser } from './browser.mjs';
import { hostRpc, showView } from './host-rpc.mjs';

let tmp, host, browser, page, trip, notes;

const rpc = (method, params) => hostRpc(host, method, params);

describe('the Sessions view searches every conversation', () => {
  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-web-search-'));
    for (const dir of ['ws', 'config']) mkdirSync(path.join(tmp, dir));
    host = await startHost({
      port: 0, quiet: true,
      serverArgs: ['--local-root', path.join(tmp, 'ws'), '--config-dir', path.join(tmp, 'config'), '--log-level', 'warning'],
    });
    await rpc('chooseStorage', { location: 'local' }); // past the first-run storage choice
    trip = (await rpc('session/create', { title: 'Plan the trip' })).id;
    notes = (await rpc('session/create', { title: 'Notes' })).id;
    const filler = Array.from({ length: 60 }, (_, i) => ({ id: `f${i}`, role: 'user', content: `filler ${i}` }));
    await rpc('session/appendMessages', { id: trip, messages: [
      { id: 'u1', role: 'user', content: 'Find flights to Lisbon' }, ...filler,
      { id: 'a1', role: 'assistant', content: 'Lisbon in May: three flights, the cheapest on Tuesday.' }] });
    await rpc('session/appendMessages', { id: notes, messages: Array.from({ length: 25 }, (_, i) => (
      { id: `n${i}`, role: 'user', content: `lisbon note ${i}` })) });
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(host.openUrl);
    await page.waitFor(`document.body.dataset.ready === 'true'`);
    await showView(page, 'sessions');
  });

  after(async () => {
    await browser?.close();
    await host?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('shows ranked hits with the match marked, and more through the cursor', async () => {
    await page.type('#session-search-input', 'lisbon');
    await page.press('Enter');
    await page.waitFor(`document.querySelectorAll('.session-hit').length === 20`);
    assert.equal(await page.text('#session-search-title'), '27 hits in 2 sessions for “lisbon”');
    const marks = await page.eval(`[...document.querySelectorAll('.session-hit mark')].map((m) => m.textContent)`);
    assert.ok(marks.length >= 20 && marks.every((m) => m.toLowerCase() === 'lisbon'), JSON.stringify(marks));
    await page.click('#session-search-more');
    await page.waitFor(`document.querySelectorAll('.session-hit').length === 27 && document.getElementById('session-search-more').hidden`);
    const items = await page.eval(`[...document.querySelectorAll('.session-hit')].map((e) => e.dataset.item)`);
    assert.equal(new Set(items).size, 27, 'no hit twice across pages');
  });

  it('opens the conversation at the message that matched', async () => {
    await page.click(`.session-hit[data-session-id="${trip}"][data-item="a1"]`);
    await page.waitFor(`document.getElementById('session-transcript').dataset.sessionId === ${JSON.stringify(trip)}`);
    assert.equal(await page.eval(`document.querySelectorAll('#session-transcript-list .message').length`), 62);
    assert.equal(await page.eval(`document.querySelector('#session-transcript-list .message.hit').dataset.id`), 'a1');
    assert.equal(await page.text('#session-transcript-list .message.hit mark'), 'Lisbon');
  });

  it('raised no errors in the page', () => {
    assert.deepEqual(page.errors, []);
  });
});
