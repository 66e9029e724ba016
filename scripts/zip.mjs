/**
 * A reproducible zip writer on Node's built-ins (zlib's raw deflate and a CRC-32 of its own):
 * the container of the VS Code package (.vsix) and of the MCP bundle (.mcpb).
 *
 * Guarantees: entries are written in the order given, deflated (stored when deflating does not
 * shrink them), with UTF-8 names, a fixed time (1980-01-01 00:00) and Unix modes in the external
 * attributes (so a run bit survives: VS Code and the MCP hosts restore it), so the same inputs
 * give the same bytes. No zip64: the archive and each entry must stay under 4 GiB.
 */
import { deflateRawSync } from 'node:zlib';

const CRC_TABLE = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** The CRC-32 (ISO-HDLC, as zip uses it) of `bytes`. */
export function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const DOS_DATE = (0 << 9) | (1 << 5) | 1; // 1980-01-01
const LIMIT = 0xffffffff;

/**
 * The zip of `entries`: `{name, data: Buffer|string, mode?: number}` (mode default 0o644).
 * @param {{name: string, data: Buffer|string, mode?: number}[]} entries
 * @returns {Buffer}
 */
export function zip(entries) {
  const locals = [];
  const central = [];
  let offset = 0;
  const names = new Set();
  for (const entry of entries) {
    if (names.has(entry.name)) throw new Error(`zip: ${entry.name} twice`);
    names.add(entry.name);
    const data = Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data, 'utf8');
    const deflated = deflateRawSync(data, { level: 9 });
    const [method, body] = deflated.length < data.length ? [8, deflated] : [0, data];
    if (data.length >= LIMIT || offset + body.length >= LIMIT) throw new Error(`zip: ${entry.name} needs zip64`);
    const name = Buffer.from(entry.name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);          // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6);      // names are UTF-8
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);          // time 00:00
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const head = Buffer.alloc(46);
    head.writeUInt32LE(0x02014b50, 0);
    head.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, 2.0: the external attributes are a mode
    head.writeUInt16LE(20, 6);
    head.writeUInt16LE(0x0800, 8);
    head.writeUInt16LE(method, 10);
    head.writeUInt16LE(0, 12);
    head.writeUInt16LE(DOS_DATE, 14);
    head.writeUInt32LE(crc, 16);
    head.writeUInt32LE(body.length, 20);
    head.writeUInt32LE(data.length, 24);
    head.writeUInt16LE(name.length, 28);
    head.writeUInt16LE(0, 30);            // extra
    head.writeUInt16LE(0, 32);            // comment
    head.writeUInt16LE(0, 34);            // disk
    head.writeUInt16LE(0, 36);            // internal attributes
    head.writeUInt32LE((((0o100000 | (entry.mode ?? 0o644)) << 16) >>> 0), 38);
    head.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    central.push(head, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
