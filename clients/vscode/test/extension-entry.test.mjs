import { test } from 'node:test';
import assert from 'node:assert/strict';
import Module, { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFakeVscode } from './fake-vscode.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));

test('extension.js (the entry VS Code loads) hands the vscode module to the logic and deactivates cleanly', async (t) => {
  const { vscode, registered } = createFakeVscode({});
  // Make require('vscode') inside extension.js answer the fake, as VS Code's loader would the real API.
  const fakeId = join(HERE, '__vscode_fake__.js');
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return request === 'vscode' ? fakeId : resolve.call(this, request, ...rest);
  };
  const require = createRequire(import.meta.url);
  require.cache[fakeId] = { id: fakeId, filename: fakeId, loaded: true, exports: vscode };
  t.after(() => {
    Module._resolveFilename = resolve;
    delete require.cache[fakeId];
  });

  const entry = require('../extension.js');
  const manifest = JSON.parse(readFileSync(join(HERE, '../package.json'), 'utf8'));
  assert.equal(manifest.main, './extension.js');
  const context = { subscriptions: [] };
  await entry.activate(context);
  assert.deepEqual([...registered.keys()].sort(), manifest.contributes.commands.map((c) => c.command).sort());
  await entry.deactivate();
});
