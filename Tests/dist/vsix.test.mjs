// The .vsix `make dist` wrote (scripts/vsix.mjs), read with a zip reader of this test's own
// (central directory, then each local header; CRC-32 checked with zlib's): the parts VS Code and
// the Marketplace read, and the packaged extension activated from the unpacked package, where
// its commands run the binary it carries (no setting, no $WB_BIN). Needs `make dist`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Module, { createRequire } from 'node:module';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { crc32, inflateRawSync } from 'node:zlib';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const DIST = process.env.WB_DIST || join(REPO, 'dist');
const { createFakeVscode } = await import(pathToFileURL(join(REPO, 'clients/vscode/test/fake-vscode.mjs')).href);

function vsixPath() {
  const found = readdirSync(DIST).filter((n) => n.endsWith('.vsix'));
  assert.equal(found.length, 1, `one .vsix in ${DIST} (run make dist), found ${found}`);
  return join(DIST, found[0]);
}

/** name → {data, mode} of every entry, checked against the central directory and its CRC. */
function readZip(bytes) {
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(end >= 0, 'an end of central directory record');
  const count = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  const entries = new Map();
  for (let i = 0; i < count; i++) {
    assert.equal(bytes.readUInt32LE(at), 0x02014b50, 'a central directory header');
    const method = bytes.readUInt16LE(at + 10);
    const crc = bytes.readUInt32LE(at + 16);
    const size = bytes.readUInt32LE(at + 24); // uncompressed (compressed: at + 20)
    const nameLength = bytes.readUInt16LE(at + 28);
    const skip = nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
    const madeBy = bytes.readUInt16LE(at + 4) >> 8;
    const mode = (bytes.readUInt32LE(at + 38) >>> 16) & 0o7777;
    const offset = bytes.readUInt32LE(at + 42);
    const name = bytes.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    at += 46 + skip;
    assert.equal(bytes.readUInt32LE(offset), 0x04034b50, `${name}: a local header where the directory says`);
    const start = offset + 30 + bytes.readUInt16LE(offset + 26) + bytes.readUInt16LE(offset + 28);
    const body = bytes.subarray(start, start + bytes.readUInt32LE(offset + 18));
    const data = method === 8 ? inflateRawSync(body) : Buffer.from(body);
    assert.ok(method === 0 || method === 8, `${name}: stored or deflated`);
    assert.equal(data.length, size, `${name}: size`);
    assert.equal(crc32(data), crc, `${name}: CRC-32`);
    assert.ok(!name.startsWith('/') && !name.split('/').includes('..'), `${name}: a relative name`);
    entries.set(name, { data, mode: madeBy === 3 ? mode : null });
  }
  return entries;
}

const entries = readZip(readFileSync(vsixPath()));
const text = (name) => {
  assert.ok(entries.has(name), `${name} is in the package`);
  return entries.get(name).data.toString('utf8');
};
const pkg = JSON.parse(text('extension/package.json'));
const source = JSON.parse(readFileSync(join(REPO, 'clients/vscode/package.json'), 'utf8'));

test('the manifest names the extension, its version, engine and target platform linux-x64', () => {
  const manifest = text('extension.vsixmanifest');
  const identity = manifest.match(/<Identity ([^>]*)\/>/)[1];
  const attr = (name) => identity.match(new RegExp(`${name}="([^"]*)"`))?.[1];
  assert.deepEqual([attr('Id'), attr('Version'), attr('Publisher'), attr('TargetPlatform')],
    [source.name, source.version, source.publisher, 'linux-x64']);
  assert.ok(manifest.includes(`<Property Id="Microsoft.VisualStudio.Code.Engine" Value="${source.engines.vscode}"/>`));
  assert.ok(manifest.includes('<InstallationTarget Id="Microsoft.VisualStudio.Code"/>'));
  for (const [, path] of manifest.matchAll(/<Asset [^>]*Path="([^"]*)"/g)) assert.ok(entries.has(path), `asset ${path}`);
  assert.match(vsixPath(), new RegExp(`${source.name}-linux-x64-${source.version.replace(/\./g, '\\.')}\\.vsix$`));
});

test('every part has a content type', () => {
  const types = text('[Content_Types].xml');
  const defaults = new Set([...types.matchAll(/<Default Extension="([^"]*)"/g)].map((m) => m[1]));
  const overrides = new Set([...types.matchAll(/<Override PartName="\/([^"]*)"/g)].map((m) => m[1]));
  for (const name of entries.keys()) {
    if (name === '[Content_Types].xml') continue;
    const ext = name.match(/(\.[^./]+)$/)?.[1];
    assert.ok(ext ? defaults.has(ext) : overrides.has(name), `${name} has a content type`);
  }
});

test('package.json keeps the contributions and activation, and main is in the package', () => {
  assert.deepEqual(pkg.contributes, source.contributes);
  assert.deepEqual(pkg.activationEvents, source.activationEvents);
  assert.deepEqual(pkg.engines, source.engines);
  assert.ok(entries.has(join('extension', pkg.main)), `main ${pkg.main} is packaged`);
  assert.equal(entries.get('extension/bin/workspace-bridge').mode, 0o755, 'the binary keeps its run bit');
  assert.ok(![...entries.keys()].some((n) => /\/(test|tests)\//.test(n)), 'no tests in the package');
});

test('the package carries the project\'s licence: package.json says Apache-2.0, the manifest names LICENSE.txt', () => {
  assert.equal(pkg.license, 'Apache-2.0');
  assert.equal(source.license, 'Apache-2.0');
  const manifest = text('extension.vsixmanifest');
  assert.ok(manifest.includes('<License>extension/LICENSE.txt</License>'), 'the manifest names the licence file');
  assert.ok(manifest.includes('<Asset Type="Microsoft.VisualStudio.Services.Content.License" Path="extension/LICENSE.txt"'));
  assert.equal(text('extension/LICENSE.txt'), readFileSync(join(REPO, 'LICENSE'), 'utf8'));
  assert.match(text('extension/LICENSE.txt'), /^\s*Apache License\s+Version 2\.0, January 2004/);
});

test('unpacked, the extension activates and its commands run the binary it carries', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wb-vsix-'));
  const unpacked = join(dir, 'ext');
  for (const [name, { data, mode }] of entries) {
    const target = join(unpacked, name);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, data);
    if (mode) chmodSync(target, mode);
  }
  const folder = join(dir, 'folder');
  mkdirSync(folder);
  const saved = process.env.WB_BIN;
  delete process.env.WB_BIN;
  const { vscode, registered, shown } = createFakeVscode({ folder, settings: { 'workspaceBridge.configDir': join(dir, 'config') } });
  const fakeId = join(unpacked, '__vscode_fake__.js');
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return request === 'vscode' ? fakeId : resolveFilename.call(this, request, ...rest);
  };
  const require = createRequire(join(unpacked, 'extension', 'package.json'));
  require.cache[fakeId] = { id: fakeId, filename: fakeId, loaded: true, exports: vscode };
  const entry = require(join(unpacked, 'extension', pkg.main));
  t.after(async () => {
    await entry.deactivate();
    Module._resolveFilename = resolveFilename;
    delete require.cache[fakeId];
    if (saved !== undefined) process.env.WB_BIN = saved;
    rmSync(dir, { recursive: true, force: true });
  });
  await entry.activate({ subscriptions: [] });
  assert.deepEqual([...registered.keys()].sort(), pkg.contributes.commands.map((c) => c.command).sort());
  await vscode.commands.executeCommand('workspaceBridge.showStorageInfo');
  assert.ok(shown.output.some((line) => line.includes(`serving ${folder}`)), shown.output.join(''));
  assert.ok(statSync(join(folder, 'context.md')).isFile(), 'the bundled server laid out the opened folder');
  assert.equal(shown.error.length, 0, shown.error.join('\n'));
  assert.ok(shown.info.length > 0, 'the storage info was shown');
});
