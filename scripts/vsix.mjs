#!/usr/bin/env node
/**
 * The VS Code package of clients/vscode for one platform, carrying the server binary:
 *
 *   node scripts/vsix.mjs BINARY OUT_DIR [TARGET]     (TARGET default linux-x64)
 *
 * writes OUT_DIR/workspace-bridge-vscode-TARGET-VERSION.vsix, a zip (scripts/zip.mjs) laid out
 * as `vsce package --target TARGET` lays one out: `extension.vsixmanifest` (the identity, with
 * TargetPlatform), `[Content_Types].xml` (a content type for every part), and the extension
 * under `extension/`, its licence as `extension/LICENSE.txt` (the manifest's `<License>`, as vsce
 * writes it; package.json says `license`). The extension keeps the repository's layout there (clients/vscode next
 * to the clients/js it imports), so its package.json's `main` points into clients/vscode; the
 * binary is `extension/bin/workspace-bridge`, mode 0755, which the extension runs when no
 * setting or $WB_BIN names another (clients/vscode/lib/server.mjs).
 */
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zip } from './zip.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONTENT_TYPES = { '.json': 'application/json', '.js': 'application/javascript', '.mjs': 'application/javascript',
  '.md': 'text/markdown', '.txt': 'text/plain', '.vsixmanifest': 'text/xml' };

const xml = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The files of a client folder the extension runs (sources only: no tests, generators or types). */
function sources(dir, keep) {
  const out = [];
  for (const entry of readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['test', 'tests', 'scripts', 'node_modules'].includes(entry.name)) out.push(...sources(rel, keep));
    } else if (keep(entry.name)) {
      out.push(rel);
    }
  }
  return out.sort();
}

export function manifestXml(pkg, target) {
  return `<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011" xmlns:d="http://schemas.microsoft.com/developer/vsx-schema-design/2011">
  <Metadata>
    <Identity Language="en-US" Id="${xml(pkg.name)}" Version="${xml(pkg.version)}" Publisher="${xml(pkg.publisher)}" TargetPlatform="${xml(target)}"/>
    <DisplayName>${xml(pkg.displayName)}</DisplayName>
    <Description xml:space="preserve">${xml(pkg.description)}</Description>
    <License>extension/LICENSE.txt</License>
    <Tags></Tags>
    <Categories>${xml(pkg.categories.join(','))}</Categories>
    <GalleryFlags>Public</GalleryFlags>
    <Properties>
      <Property Id="Microsoft.VisualStudio.Code.Engine" Value="${xml(pkg.engines.vscode)}"/>
      <Property Id="Microsoft.VisualStudio.Code.ExtensionDependencies" Value=""/>
      <Property Id="Microsoft.VisualStudio.Code.ExtensionPack" Value=""/>
      <Property Id="Microsoft.VisualStudio.Code.ExtensionKind" Value="workspace"/>
      <Property Id="Microsoft.VisualStudio.Code.LocalizedLanguages" Value=""/>
      <Property Id="Microsoft.VisualStudio.Services.GitHubFlavoredMarkdown" Value="true"/>
    </Properties>
  </Metadata>
  <Installation>
    <InstallationTarget Id="Microsoft.VisualStudio.Code"/>
  </Installation>
  <Dependencies/>
  <Assets>
    <Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true"/>
    <Asset Type="Microsoft.VisualStudio.Services.Content.Details" Path="extension/README.md" Addressable="true"/>
    <Asset Type="Microsoft.VisualStudio.Services.Content.License" Path="extension/LICENSE.txt" Addressable="true"/>
  </Assets>
</PackageManifest>
`;
}

/** `[Content_Types].xml`: a Default per file extension, an Override per part without one. */
export function contentTypesXml(names) {
  const defaults = new Map();
  const overrides = [];
  for (const name of names) {
    const ext = path.posix.extname(name);
    if (ext) defaults.set(ext, CONTENT_TYPES[ext] ?? 'application/octet-stream');
    else overrides.push(name);
  }
  const lines = [...defaults].sort().map(([ext, type]) => `<Default Extension="${xml(ext)}" ContentType="${xml(type)}"/>`);
  lines.push(...overrides.map((name) => `<Override PartName="/${xml(name)}" ContentType="application/octet-stream"/>`));
  return `<?xml version="1.0" encoding="utf-8"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">${lines.join('')}</Types>\n`;
}

export function buildVsix(binary, outDir, target = 'linux-x64') {
  const pkg = JSON.parse(readFileSync(path.join(REPO, 'clients/vscode/package.json'), 'utf8'));
  const packaged = { ...pkg, main: './clients/vscode/extension.js' };
  delete packaged.scripts;
  delete packaged.private;
  const code = (name) => /\.(m?js)$/.test(name) && !name.endsWith('.d.ts');
  const files = [
    ...sources('clients/vscode', code),
    ...sources('clients/js', code),
    'clients/js/package.json', // "type": "module" for the client's .js files
  ].sort();
  const parts = [
    { name: 'extension/package.json', data: JSON.stringify(packaged, null, 2) + '\n' },
    { name: 'extension/README.md', data: readFileSync(path.join(REPO, 'clients/vscode/README.md')) },
    { name: 'extension/LICENSE.txt', data: readFileSync(path.join(REPO, 'LICENSE')) },
    ...files.map((f) => ({ name: `extension/${f}`, data: readFileSync(path.join(REPO, f)) })),
    { name: 'extension/bin/workspace-bridge', data: readFileSync(binary), mode: 0o755 },
  ];
  const names = ['extension.vsixmanifest', ...parts.map((p) => p.name)];
  const bytes = zip([
    { name: 'extension.vsixmanifest', data: manifestXml(pkg, target) },
    { name: '[Content_Types].xml', data: contentTypesXml(names) },
    ...parts,
  ]);
  mkdirSync(outDir, { recursive: true });
  const out = path.join(outDir, `${pkg.name}-${target}-${pkg.version}.vsix`);
  writeFileSync(out, bytes);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [binary, outDir, target] = process.argv.slice(2);
  if (!binary || !outDir) {
    console.error('usage: node scripts/vsix.mjs BINARY OUT_DIR [TARGET]');
    process.exit(2);
  }
  console.log(buildVsix(binary, outDir, target));
}
