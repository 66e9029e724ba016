import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecoder, encode } from '../lib/framing.js';

const MESSAGES = [
  { jsonrpc: '2.0', id: 1, result: { text: 'héllo ✓ 𝄞' } },
  { jsonrpc: '2.0', method: '$/progress', params: { token: 't', value: { kind: 'end' } } },
  { jsonrpc: '2.0', id: 2, result: null },
];

function decodeAll(framing, chunks) {
  const messages = [];
  const errors = [];
  const decoder = createDecoder(framing, (m) => messages.push(m), (e) => errors.push(e));
  for (const chunk of chunks) decoder.push(chunk);
  return { messages, errors };
}

for (const framing of ['lsp', 'ndjson']) {
  test(`${framing}: every split of the byte stream decodes to the same messages`, () => {
    const bytes = Buffer.concat(MESSAGES.map((m) => encode(framing, m)));
    for (let cut = 0; cut <= bytes.length; cut++) {
      const { messages, errors } = decodeAll(framing, [bytes.subarray(0, cut), bytes.subarray(cut)]);
      assert.deepEqual(messages, MESSAGES, `split at ${cut}`);
      assert.deepEqual(errors, []);
    }
    const oneByteAtATime = decodeAll(framing, [...bytes].map((b) => Buffer.from([b])));
    assert.deepEqual(oneByteAtATime.messages, MESSAGES);
  });

  test(`${framing}: a body that is not JSON is reported and the next message still decodes`, () => {
    const bad = framing === 'lsp' ? Buffer.from('Content-Length: 3\r\n\r\n{x}') : Buffer.from('{x}\n');
    const { messages, errors } = decodeAll(framing, [Buffer.concat([bad, encode(framing, MESSAGES[0])])]);
    assert.equal(errors.length, 1);
    assert.match(errors[0].message, /not JSON/);
    assert.deepEqual(messages, [MESSAGES[0]]);
  });

  test(`${framing}: a 5 MB message in 64 KiB chunks decodes intact`, () => {
    const big = { jsonrpc: '2.0', id: 9, result: { data: 'x'.repeat(5_000_000) } };
    const bytes = encode(framing, big);
    const chunks = [];
    for (let i = 0; i < bytes.length; i += 65536) chunks.push(bytes.subarray(i, i + 65536));
    assert.deepEqual(decodeAll(framing, chunks).messages, [big]);
  });
}

test('lsp: the encoder writes Content-Length in bytes, not characters', () => {
  const frame = encode('lsp', { s: 'é' }).toString('utf8');
  assert.equal(frame, 'Content-Length: 10\r\n\r\n{"s":"é"}');
});

test('lsp: headers ended by bare newlines and extra headers are accepted', () => {
  const body = JSON.stringify(MESSAGES[2]);
  const bytes = Buffer.from(`Content-Type: application/vscode-jsonrpc; charset=utf-8\nContent-Length: ${body.length}\n\n${body}`);
  assert.deepEqual(decodeAll('lsp', [bytes]).messages, [MESSAGES[2]]);
});
