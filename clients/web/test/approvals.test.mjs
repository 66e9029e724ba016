// The session view's approvals (issue 17) in headless Chromium through the real host and server:
// a session whose approval policy asks for consent before destructive tools; the calls the agent
// made wait in the session's card; the user's real clicks on Allow and Deny answer them, and the
// server runs (or refuses) exactly the call that was asked for. Also shows a fork's lineage and a
// deferred call.
//
//   node --test clients/web/test/approvals.test.mjs      (needs `chromium`; WB_BIN or .build/debug)
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hostRpc } from './host-rpc.mjs';
import { closeAll, openUi, startWorkspace } from './ui-fixture.mjs';

let workspace, root, browser, page, sid;

const rpc = (method, params) => hostRpc(workspace.host, method, params);

const approvalRow = (call) => `document.querySelector('.session[data-id="${sid}"] .approval[data-tool-call-id="${call}"]')`;

describe('the session view answers approvals', () => {
  before(async () => {
    workspace = await startWorkspace('wb-web-approvals-');
    root = workspace.root;
    writeFileSync(path.join(root, 'draft.md'), 'draft');
    writeFileSync(path.join(root, 'keep.md'), 'keep');
    sid = (await rpc('session/create', { title: 'Tidy the notes', approvalPolicy: 'destructive' })).id;
    await rpc('session/transition', { id: sid, to: 'running' });
    await rpc('session/appendMessages', { id: sid, messages: [{ role: 'user', content: 'tidy up', id: 'u1' }] });
    const first = await rpc('session/callTool', { id: sid, toolCallId: 'del-draft', name: 'delete_file', arguments: { path: 'draft.md' } });
    const second = await rpc('session/callTool', { id: sid, toolCallId: 'del-keep', name: 'delete_file', arguments: { path: 'keep.md' } });
    assert.ok(first.pendingApproval && second.pendingApproval, 'both calls wait for consent');
    await rpc('session/fork', { id: sid, atMessageId: 'u1', title: 'Tidy (branch)' });
    browser = await openUi(workspace.host, 'sessions');
    page = browser.page;
  });

  after(() => closeAll({ ...workspace, browser }));

  it('shows the pending approvals with the tool and its arguments, and nothing has run', async () => {
    await page.waitFor(`${approvalRow('del-draft')} && ${approvalRow('del-keep')}`);
    const text = await page.eval(`${approvalRow('del-draft')}.textContent`);
    assert.match(text, /delete_file/);
    assert.match(text, /draft\.md/);
    assert.ok(existsSync(path.join(root, 'draft.md')) && existsSync(path.join(root, 'keep.md')));
  });

  it('Allow runs the call the agent asked for', async () => {
    await page.click(`.session[data-id="${sid}"] .approval[data-tool-call-id="del-draft"] .allow`);
    await page.waitFor(`!${approvalRow('del-draft')}`);
    assert.equal(existsSync(path.join(root, 'draft.md')), false);
    const replay = await rpc('session/callTool', { id: sid, toolCallId: 'del-draft', name: 'delete_file', arguments: { path: 'draft.md' } });
    assert.equal(replay.isError, false, 'the recorded result is answered; nothing runs twice');
  });

  it('Deny refuses the call and the agent learns it', async () => {
    await page.click(`.session[data-id="${sid}"] .approval[data-tool-call-id="del-keep"] .deny`);
    await page.waitFor(`!${approvalRow('del-keep')} && !document.querySelector('.session[data-id="${sid}"] .approvals')`);
    assert.equal(existsSync(path.join(root, 'keep.md')), true);
    const replay = await rpc('session/callTool', { id: sid, toolCallId: 'del-keep', name: 'delete_file', arguments: { path: 'keep.md' } });
    assert.equal(replay.isError, true);
    assert.equal(replay.structuredContent.code, 'ApprovalDenied');
    assert.equal((await rpc('session/get', { id: sid })).pendingApprovals, undefined);
  });

  it('shows where a fork came from', async () => {
    await page.waitFor(`[...document.querySelectorAll('.session .lineage')].some((e) => e.textContent.includes(${JSON.stringify(sid)}))`);
  });

  it('shows a call the device policy deferred, refreshed when it may run', async () => {
    await rpc('host/setConditions', { network: 'wifi', batteryLevel: 0.1, isCharging: false });
    await assert.rejects(rpc('session/callTool', { id: sid, toolCallId: 'search-1', name: 'search_files', arguments: { query: 'x' } }),
      (e) => e.data?.code === 'Deferred' && e.data.reason === 'lowBattery');
    await rpc('host/setConditions', { network: 'wifi', batteryLevel: 0.9 }); // session/deferredReady refreshes the view
    await page.waitFor(`document.querySelector('.session[data-id="${sid}"] .deferred')?.textContent.includes('lowBattery')`);
  });

  it('raised no errors in the page', () => {
    assert.deepEqual(page.errors, []);
  });
});
