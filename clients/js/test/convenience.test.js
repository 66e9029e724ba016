import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convenienceTable } from '../lib/convenience.js';

test('plain names stay, slashed names become namespaces, lifecycle and $/ methods are left out', () => {
  const table = convenienceTable(['initialize', 'shutdown', 'loadFile', 'session/create', 'settings/get', '$/private']);
  assert.deepEqual(table, [
    { method: 'loadFile', path: ['loadFile'] },
    { method: 'session/create', path: ['session', 'create'] },
    { method: 'settings/get', path: ['settings', 'get'] },
  ]);
});

test('a name that is both a method and a namespace is refused', () => {
  assert.throws(() => convenienceTable(['session', 'session/create']), /collides/);
  assert.throws(() => convenienceTable(['session/create', 'session']), /collides/);
});

test('names that are not identifiers, or nested deeper than one namespace, are refused', () => {
  assert.throws(() => convenienceTable(['a/b/c']), /no convenience name/);
  assert.throws(() => convenienceTable(['bad-name']), /no convenience name/);
});
