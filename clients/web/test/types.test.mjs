// atome-filesystem.d.ts (the globals /atome-filesystem.js defines) checked by tsc --strict:
// typical page code compiles, and each marked misuse is an error.
//
//   node --test clients/web/test/types.test.mjs      (needs tsc: Debian package node-typescript)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, 'fixtures');

function tsc(file) {
  const run = spawnSync('tsc', ['--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022,dom',
    path.join(fixtures, file), path.join(here, '..', 'atome-filesystem.d.ts')], { encoding: 'utf8' });
  if (run.error) throw new Error(`tsc not found (apt-get install node-typescript): ${run.error.message}`);
  return run;
}

test('page code written to the seeds\' API type-checks against atome-filesystem.d.ts', () => {
  const run = tsc('page-ok.ts');
  assert.equal(run.status, 0, run.stdout + run.stderr);
});

test('misuse is caught: every marked line of page-bad.ts is an error, and only those', () => {
  const run = tsc('page-bad.ts');
  const lines = readFileSync(path.join(fixtures, 'page-bad.ts'), 'utf8').split('\n');
  const expected = lines.flatMap((line, i) => (line.includes('// ERROR') ? [i + 1] : []));
  const reported = [...new Set([...run.stdout.matchAll(/page-bad\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1])))];
  assert.deepEqual(reported, expected, run.stdout);
});
