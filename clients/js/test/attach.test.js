import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { WorkspaceBridgeClient } from '../index.js';
import { serverBinary, tempWorkspace } from './helpers.js';

for (const framing of ['lsp', 'ndjson']) {
  test(`attach speaks ${framing} over given streams: initialize, requests, shutdown`, async (t) => {
    const workspace = tempWorkspace(t);
    const child = spawn(serverBinary(), ['--local-root', workspace.localRoot, '--config-dir', workspace.configDir, '--framing', framing], { stdio: ['pipe', 'pipe', 'ignore'] });
    const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    t.after(() => child.exitCode === null && child.kill('SIGKILL'));

    const client = WorkspaceBridgeClient.attach(child.stdout, child.stdin, { framing });
    assert.equal(client.process, null);
    const init = await client.initialize({ clientInfo: { name: 'attach-test' } });
    assert.equal(init.serverInfo.name, 'workspace-bridge');
    await client.saveFile({ path: 'a.txt', data: framing });
    assert.equal((await client.loadFile({ path: 'a.txt' })).data, framing);

    assert.deepEqual(await client.shutdown(), { code: null, signal: null }, 'resolves when the output ends');
    assert.equal(await exited, 0);
  });
}
