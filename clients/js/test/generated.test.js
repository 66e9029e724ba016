import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLIENT_DIR, OUTPUTS, SCHEMA_PATH, generate } from '../scripts/generate-types.mjs';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const schema = () => JSON.parse(readFileSync(SCHEMA_PATH, 'utf8'));

test('the committed protocol.d.ts and lib/methods.generated.js are what the generator makes from the schema', () => {
  const generated = generate(schema());
  for (const [which, relative] of Object.entries(OUTPUTS)) {
    const committed = readFileSync(join(CLIENT_DIR, relative), 'utf8');
    assert.ok(committed === generated[which], `${relative} is stale: run node clients/js/scripts/generate-types.mjs`);
  }
});

test('the generator is deterministic', () => {
  assert.deepEqual(generate(schema()), generate(schema()));
});

test('a method added to the schema (future/lookup) appears in the method map, the convenience methods and the list', () => {
  const extended = schema();
  extended.methods.push({
    name: 'future/lookup',
    summary: 'Reads one setting.',
    paramStructure: 'by-name',
    params: [{ name: 'key', required: true, schema: { type: 'string' } }],
    result: { name: 'Setting', schema: { type: 'object', properties: { key: { type: 'string' }, value: {} }, required: ['key'] } },
  });
  const { types, methods } = generate(extended);
  assert.match(types, /export interface FutureLookupParams \{\n {2}key: string;\n\}/);
  assert.match(types, /"future\/lookup": \{ params: FutureLookupParams; result: \{\n {4}key: string;\n {4}value\?: unknown;\n {2}\} \};/);
  assert.match(types, /readonly future: \{\n {4}\/\*\* Reads one setting\. \*\/\n {4}lookup\(params: FutureLookupParams, options\?: RequestOptions\)/);
  assert.match(methods, /"future\/lookup",\n\]\);/);
});

test('schema shapes the generator cannot express stop it with an error', () => {
  const bad = schema();
  bad.components.schemas.Weird = { $ref: 'other.json#/x' };
  assert.throws(() => generate(bad), /unsupported \$ref/);
  const clash = schema();
  clash.components.schemas.LoadFileParams = { type: 'string' };
  assert.throws(() => generate(clash), /collides/);
});

function tsc(file) {
  const args = ['--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022,dom', '--module', 'nodenext',
    '--moduleResolution', 'nodenext', join(FIXTURES, file), join(FIXTURES, 'node-shim.d.ts')];
  const run = spawnSync('tsc', args, { encoding: 'utf8' });
  if (run.error) throw new Error(`tsc not found (apt-get install node-typescript): ${run.error.message}`);
  return run;
}

test('typical client code type-checks against index.d.ts and protocol.d.ts (tsc --strict)', () => {
  const run = tsc('usage-ok.mts');
  assert.equal(run.status, 0, run.stdout + run.stderr);
});

test('misuse is caught by the types: every marked line of usage-bad.mts is an error', () => {
  const run = tsc('usage-bad.mts');
  const source = readFileSync(join(FIXTURES, 'usage-bad.mts'), 'utf8').split('\n');
  const expected = source.flatMap((line, i) => (line.includes('// ERROR') ? [i + 1] : []));
  const reported = [...new Set([...run.stdout.matchAll(/usage-bad\.mts\((\d+),\d+\): error/g)].map((m) => Number(m[1])))];
  assert.deepEqual(reported, expected, run.stdout);
});
