import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { serverBinary } from './helpers.js';

const CLIENT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

test('the README example runs as written against the real server', async (t) => {
  const readme = readFileSync(join(CLIENT_DIR, 'README.md'), 'utf8');
  const example = /```js\n([\s\S]*?)```/.exec(readme)[1];
  assert.ok(example.split('\n').filter((l) => l.trim()).length <= 10, 'the example stays within 10 lines');
  const dir = mkdtempSync(join(tmpdir(), 'wb-readme-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const script = example
    .replace("'./clients/js/index.js'", JSON.stringify(pathToFileURL(join(CLIENT_DIR, 'index.js')).href))
    .replaceAll("'/tmp/notes'", JSON.stringify(join(dir, 'notes')));
  writeFileSync(join(dir, 'example.mjs'), script);
  const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'example.mjs')], {
    env: { ...process.env, WB_BIN: serverBinary(), XDG_CONFIG_HOME: join(dir, 'config') },
  });
  assert.match(stdout, /^begin\n(report\n)*end\n/);
  assert.match(stdout, /path: 'Research\/idea\.md', line: 1/);
  assert.match(stdout, /\n# An idea\n/);
  assert.match(stdout, /\{ code: 0, signal: null \}\n$/);
});
