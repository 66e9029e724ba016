// The Sessions view's search box (issue 25) in headless Chromium through the real host and
// server: a query typed and submitted, ranked hits from every session with the match marked,
// more hits through the cursor, and a hit opening its conversation at the message that matched.
//
//   node --test clients/web/test/session-search.test.mjs      (needs `chromium`; WB_BIN or .build/debug)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostRpc } from './host-rpc.mjs';
import { closeAll, openUi, startWorkspace } from './ui-fixture.mjs';

let workspace, browser, page, trip, notes;

const rpc = (method, params) => hostRpc(workspace.host, method, params);

describe('the Sessions view searches every conversation', () => {
  before(async () => {
    workspace = await startWorkspace('wb-web-search-');
    trip = (await rpc('session/create', { title: 'Plan the trip' })).id;
    notes = (await rpc('session/create', { title: 'Notes' })).id;
    const filler = Array.from({ length: 60 }, (_, i) => ({ id: `f${i}`, role: 'user', content: `filler ${i}` }));
    await rpc('session/appendMessages', { id: trip, messages: [
      { id: 'u1', role: 'user', content: 'Find flights to Lisbon' }, ...filler,
      { id: 'a1', role: 'assistant', content: 'Lisbon in May: three flights, the cheapest on Tuesday.' }] });
    await rpc('session/appendMessages', { id: notes, messages: Array.from({ length: 25 }, (_, i) => (
      { id: `n${i}`, role: 'user', content: `lisbon note ${i}` })) });
    browser = await openUi(workspace.host, 'sessions');
    page = browser.page;
  });

  after(() => closeAll({ ...workspace, browser }));

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
