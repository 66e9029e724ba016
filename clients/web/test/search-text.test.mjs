// The Sessions view's search hits without a browser: the snippet cut at the server's UTF-16
// offsets (as JavaScript indexes strings), and what each kind of hit is called.
//
//   node --test clients/web/test/search-text.test.mjs
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hitLabel, snippetParts } from '../public/search-text.js';

test('matches are marked at UTF-16 offsets relative to the snippet, emoji and accents included', () => {
  // The field "🎉 café: lisbon, LISBON!" as the server answers a search for "lisbon" whose snippet starts at 3.
  const parts = snippetParts('café: lisbon, LISBON!', 3, [{ start: 9, length: 6 }, { start: 17, length: 6 }]);
  assert.deepEqual(parts, [
    { text: 'café: ', match: false }, { text: 'lisbon', match: true }, { text: ', ', match: false },
    { text: 'LISBON', match: true }, { text: '!', match: false },
  ]);
});

test('a match outside the snippet is left out, one across its edge is clipped, none leaves the text as it is', () => {
  assert.deepEqual(snippetParts('abcdef', 10, [{ start: 2, length: 3 }, { start: 14, length: 9 }]),
    [{ text: 'abcd', match: false }, { text: 'ef', match: true }]);
  assert.deepEqual(snippetParts('plain', 0, []), [{ text: 'plain', match: false }]);
  assert.deepEqual(snippetParts('', 0, []), [{ text: '', match: false }]);
});

test('each kind of hit says what it is', () => {
  assert.equal(hitLabel({ kind: 'message', role: 'user', field: 'content' }), 'user message');
  assert.equal(hitLabel({ kind: 'message', role: 'assistant', field: 'toolCalls' }), 'assistant message (tool calls)');
  assert.equal(hitLabel({ kind: 'message', role: 'user', field: 'content', compactedBy: 'cmp_1' }), 'user message, compacted');
  assert.equal(hitLabel({ kind: 'message', role: 'system', field: 'content', summary: true }), 'summary of compacted messages');
  assert.equal(hitLabel({ kind: 'toolCall', toolName: 'write_file', field: 'arguments' }), 'write_file arguments');
  assert.equal(hitLabel({ kind: 'toolCall', toolName: 'write_file', field: 'name' }), 'write_file call');
});
