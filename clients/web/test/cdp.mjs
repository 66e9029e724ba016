// A Chrome DevTools Protocol client on Node built-ins: a minimal WebSocket client (RFC 6455:
// masked client frames, fragmented and 64-bit-length server frames, ping/pong, close) and
// request/response matching for CDP commands and events.
import { randomBytes, createHash } from 'node:crypto';
import http from 'node:http';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** Opens a WebSocket to `url` (ws://); resolves with {send(text), close(), onmessage, onclose}. */
export function openWebSocket(url) {
  const { hostname, port, pathname, search } = new URL(url);
  const key = randomBytes(16).toString('base64');
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: hostname, port, path: pathname + search,
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': key, 'Sec-WebSocket-Version': '13' },
    });
    req.on('error', reject);
    req.on('response', (res) => reject(new Error(`WebSocket upgrade refused: HTTP ${res.statusCode}`)));
    req.on('upgrade', (res, socket) => {
      const expected = createHash('sha1').update(key + GUID).digest('base64');
      if (res.headers['sec-websocket-accept'] !== expected) {
        socket.destroy();
        reject(new Error('bad Sec-WebSocket-Accept'));
        return;
      }
      resolve(wrap(socket));
    });
    req.end();
  });
}

function encode(opcode, payload) {
  const mask = randomBytes(4);
  const length = payload.length;
  const head = length < 126 ? Buffer.from([0x80 | opcode, 0x80 | length])
    : length < 65536 ? Buffer.from([0x80 | opcode, 0x80 | 126, length >> 8, length & 255])
      : Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(length)); return b; })()]);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] ^= mask[i & 3];
  return Buffer.concat([head, mask, body]);
}

function wrap(socket) {
  const ws = { onmessage: () => {}, onclose: () => {} };
  let buffer = Buffer.alloc(0);
  let fragments = [];
  socket.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (buffer.length < 2) return;
      const fin = (buffer[0] & 0x80) !== 0;
      const opcode = buffer[0] & 0x0f;
      let length = buffer[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffer.length < 10) return;
        length = Number(buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (buffer.length < offset + length) return;
      const payload = buffer.subarray(offset, offset + length);
      buffer = buffer.subarray(offset + length);
      if (opcode === 0x9) socket.write(encode(0xa, payload));
      else if (opcode === 0x8) socket.end();
      else if (opcode === 0x1 || opcode === 0x0) {
        fragments.push(Buffer.from(payload));
        if (fin) {
          const text = Buffer.concat(fragments).toString('utf8');
          fragments = [];
          ws.onmessage(text);
        }
      }
    }
  });
  socket.on('close', () => ws.onclose());
  ws.send = (text) => socket.write(encode(0x1, Buffer.from(text, 'utf8')));
  ws.close = () => {
    socket.write(encode(0x8, Buffer.alloc(0)));
    socket.end();
  };
  return ws;
}

/** A CDP connection: `send(method, params, sessionId?)` and event listeners. */
export class CDP {
  static async connect(url) {
    return new CDP(await openWebSocket(url));
  }

  constructor(ws) {
    this.ws = ws;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = [];
    ws.onmessage = (text) => {
      const message = JSON.parse(text);
      if (message.id !== undefined) {
        const waiter = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) waiter?.reject(new Error(`${waiter.method}: ${message.error.message}`));
        else waiter?.resolve(message.result);
        return;
      }
      for (const listener of this.listeners) listener(message);
    };
    ws.onclose = () => {
      for (const waiter of this.pending.values()) waiter.reject(new Error('DevTools connection closed'));
      this.pending.clear();
    };
  }

  send(method, params = {}, sessionId) {
    const id = this.nextId++;
    const message = { id, method, params };
    if (sessionId) message.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.ws.send(JSON.stringify(message));
    });
  }

  /** Calls `fn(params, message)` for every event named `method`. */
  on(method, fn) {
    this.listeners.push((message) => message.method === method && fn(message.params, message));
  }

  close() {
    this.ws.close();
  }
}
