// ACP sessions in the web front end (issue 24) in headless Chromium through the real host and
// server: a session made through the real `workspace-bridge acp` proxy (in front of the Python
// test agent of Tests/e2e/acp_agents, on the same workspace and configuration folder as the host's
// server) is in the sessions list; its transcript shows the prompt, the agent's text, the tool
// call with its last status, the plan and the permission with the option chosen; a turn
// streamed while the transcript is open shows without a reload.
//
//   node --test clients/web/test/acp.test.mjs      (needs `chromium` and python3 with the ACP SDK; WB_BIN or .build/debug)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { defaultBinary } from '../bridge.mjs';
import { closeAll, openUi, startWorkspace } from './ui-fixture.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const agent = path.resolve(here, '../../../Tests/e2e/acp_agents/stream_agent.py');

let workspace, browser, page, editor, sid;

/** The editor's end of `workspace-bridge acp`: NDJSON requests, answers by id; the agent's
 *  permission requests are answered with their first option. */
function startEditor(args) {
  const child = spawn(defaultBinary(), args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  let next = 0;
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text) => {
    buffer += text;
    let i;
    while ((i = buffer.indexOf('\n')) >= 0) {
      const m = JSON.parse(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
      if (m.method === 'session/request_permission') {
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { outcome: { outcome: 'selected', optionId: m.params.options[0].optionId } } })}\n`);
      } else if (m.id !== undefined && !m.method) {
        const w = waiting.get(m.id);
        waiting.delete(m.id);
        if (m.error) w?.reject(new Error(m.error.message)); else w?.resolve(m.result);
      }
    }
  });
  return {
    call(method, params) {
      const id = ++next;
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
    },
    prompt(text) { return this.call('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text }] }); },
    close() { child.stdin.end(); return new Promise((resolve) => child.on('exit', resolve)); },
  };
}

const card = () => `document.querySelector('.session[data-id="${sid}"]')`;

describe('ACP sessions in the sessions view', () => {
  before(async () => {
    workspace = await startWorkspace('wb-web-acp-');
    editor = startEditor(['acp', ...workspace.storage, '--log-level', 'warning', '--', 'python3', agent]);
    await editor.call('initialize', { protocolVersion: 1, clientCapabilities: {} });
    sid = (await editor.call('session/new', { cwd: workspace.root, mcpServers: [] })).sessionId;
    await editor.prompt('stream 3');
    await editor.prompt('permission');
    browser = await openUi(workspace.host, 'sessions');
    page = browser.page;
  });

  after(async () => {
    await editor?.close();
    await closeAll({ ...workspace, browser });
  });

  it('lists the ACP session under its title from the first prompt', async () => {
    await page.waitFor(`${card()}?.querySelector('h3')?.textContent === 'stream 3'`);
  });

  it('shows a readable transcript: text, the tool call with its status, the plan, the permission', async () => {
    await page.click(`.session[data-id="${sid}"] .transcript-toggle`);
    await page.waitFor(`${card()}.querySelectorAll('.transcript .entry').length > 0`);
    const entries = await page.eval(`[...${card()}.querySelectorAll('.transcript .entry')].map((e) => [e.className, e.textContent])`);
    const texts = entries.map(([, t]) => t);
    assert.ok(texts.includes('Youstream 3'), texts.join(' | '));
    assert.ok(texts.includes('Agentc0 c1 c2 '), texts.join(' | '));
    assert.ok(texts.some((t) => /read Read notes\.md completed/.test(t)), `the tool call with its last status: ${texts.join(' | ')}`);
    assert.ok(texts.some((t) => /Plan.*in_progress.*do it/.test(t)), 'the plan');
    assert.ok(texts.some((t) => /Permission Write file → Allow \(editor\)/.test(t)), 'the permission and its outcome');
    assert.ok(texts.includes('turn ended: end_turn'));
  });

  it('follows a turn streamed while it is open', async () => {
    await editor.prompt('live one');
    await page.waitFor(`[...${card()}.querySelectorAll('.transcript .entry.agent')].some((e) => e.textContent === 'Agentecho: live one')`, { timeout: 10000 });
  });

  it('raised no errors in the page', () => {
    assert.deepEqual(page.errors, []);
  });
});
