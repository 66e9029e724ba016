/**
 * Message framing: the LSP base protocol (`Content-Length` headers) and newline-delimited JSON.
 *
 * Guarantees: `encode` produces exactly one frame per message (UTF-8 JSON). A decoder turns
 * any split of the byte stream into the same sequence of parsed messages; a large message is
 * copied once (its chunks are joined when complete, never re-concatenated per chunk).
 * A frame that cannot be parsed is reported through `onError` and skipped.
 */

const HEADER_LIMIT = 8192;

/** @param {'lsp'|'ndjson'} framing @param {unknown} message @returns {Buffer} */
export function encode(framing, message) {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  if (framing === 'ndjson') return Buffer.concat([body, Buffer.from('\n')]);
  if (framing !== 'lsp') throw new TypeError(`unknown framing: ${framing}`);
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
}

/**
 * @param {'lsp'|'ndjson'} framing
 * @param {(message: any) => void} onMessage
 * @param {(error: Error) => void} onError
 * @returns {{push(chunk: Buffer): void}}
 */
export function createDecoder(framing, onMessage, onError) {
  if (framing === 'lsp') return new LspDecoder(onMessage, onError);
  if (framing === 'ndjson') return new NdjsonDecoder(onMessage, onError);
  throw new TypeError(`unknown framing: ${framing}`);
}

/** Parses one JSON body, reporting (not throwing) a bad one. */
function parseBody(bytes, onMessage, onError) {
  let message;
  try {
    message = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    onError(new Error(`the server sent a body that is not JSON: ${error.message}`));
    return;
  }
  onMessage(message);
}

class LspDecoder {
  constructor(onMessage, onError) {
    this.onMessage = onMessage;
    this.onError = onError;
    this.head = Buffer.alloc(0); // bytes not yet known to belong to a body
    this.bodyChunks = []; // chunks of the body being collected
    this.bodyHave = 0;
    this.bodyNeed = -1; // -1 while reading headers
  }

  push(chunk) {
    let data = chunk;
    while (data.length > 0) {
      if (this.bodyNeed >= 0) {
        const take = Math.min(this.bodyNeed - this.bodyHave, data.length);
        this.bodyChunks.push(data.subarray(0, take));
        this.bodyHave += take;
        data = data.subarray(take);
        if (this.bodyHave === this.bodyNeed) {
          const body = this.bodyChunks.length === 1 ? this.bodyChunks[0] : Buffer.concat(this.bodyChunks);
          this.bodyChunks = [];
          this.bodyHave = 0;
          this.bodyNeed = -1;
          parseBody(body, this.onMessage, this.onError);
        }
        continue;
      }
      this.head = this.head.length === 0 ? data : Buffer.concat([this.head, data]);
      data = Buffer.alloc(0);
      const end = headerEnd(this.head);
      if (end === null) {
        if (this.head.length > HEADER_LIMIT) {
          this.onError(new Error('the server sent a header block over 8 KiB'));
          this.head = Buffer.alloc(0);
        }
        return;
      }
      const headers = this.head.subarray(0, end.start).toString('ascii');
      const rest = this.head.subarray(end.after);
      this.head = Buffer.alloc(0);
      const match = /^content-length:\s*(\d+)\s*$/im.exec(headers);
      if (!match) {
        this.onError(new Error(`the server sent a header block without Content-Length: ${JSON.stringify(headers)}`));
      } else {
        this.bodyNeed = Number(match[1]);
        if (this.bodyNeed === 0) {
          this.bodyNeed = -1;
          this.onError(new Error('the server sent an empty body'));
        }
      }
      data = rest;
    }
  }
}

/** Finds the blank line ending a header block (`\r\n\r\n`, or `\n\n` tolerated). */
function headerEnd(buffer) {
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  if (crlf < 0 && lf < 0) return null;
  if (crlf >= 0 && (lf < 0 || crlf <= lf)) return { start: crlf, after: crlf + 4 };
  return { start: lf, after: lf + 2 };
}

class NdjsonDecoder {
  constructor(onMessage, onError) {
    this.onMessage = onMessage;
    this.onError = onError;
    this.chunks = [];
  }

  push(chunk) {
    let data = chunk;
    let newline;
    while ((newline = data.indexOf(0x0a)) >= 0) {
      this.chunks.push(data.subarray(0, newline));
      data = data.subarray(newline + 1);
      const line = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
      this.chunks = [];
      if (line.toString('utf8').trim() !== '') parseBody(line, this.onMessage, this.onError);
    }
    if (data.length > 0) this.chunks.push(data);
  }
}
