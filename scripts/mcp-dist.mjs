#!/usr/bin/env node
/**
 * The MCP distribution of a release: an MCP bundle and the registry entry that points at it.
 *
 *   node scripts/mcp-dist.mjs BINARY OUT_DIR REPOSITORY
 *
 * writes OUT_DIR/workspace-bridge-VERSION-linux-x86_64.mcpb, a zip (scripts/zip.mjs) holding
 * `manifest.json` (MCPB manifest 0.3: a binary server run as `workspace-bridge mcp --local-root
 * <the folder the user picks>`, the folder asked for by a `directory` user_config entry) and the
 * binary at `server/workspace-bridge` (mode 0755), with the project's licence (`LICENSE`, named by the
 * manifest's `license`), and OUT_DIR/server.json (the MCP registry's
 * 2025-12-11 format): one `mcpb` package downloaded from REPOSITORY's release vVERSION, with the
 * bundle's SHA-256. REPOSITORY is the project's GitHub URL (https://github.com/OWNER/NAME);
 * the entry's name is io.github.OWNER/NAME. Both are checked against the published schemas
 * (vendored in schema/vendor/) by Tests/dist/test_mcp_dist.py.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zip } from './zip.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const DESCRIPTION = 'Files and agent sessions of a local or synced workspace folder, over MCP';

export function manifest(version) {
  return {
    manifest_version: '0.3',
    name: 'workspace-bridge',
    display_name: 'WorkspaceBridge',
    version,
    description: DESCRIPTION,
    long_description: 'Reads, writes, lists and searches the files of one workspace folder (kept on this machine or in a folder a sync engine keeps: Syncthing, Nextcloud, Dropbox, Unison, rclone), with its agent sessions journaled there. No path escapes the folder; changes that overwrite, delete or move ask first when an approval policy says so.',
    author: { name: 'WorkspaceBridge' },
    license: 'Apache-2.0',
    server: {
      type: 'binary',
      entry_point: 'server/workspace-bridge',
      mcp_config: {
        command: '${__dirname}/server/workspace-bridge',
        args: ['mcp', '--local-root', '${user_config.workspace_root}'],
        env: {},
      },
    },
    keywords: ['files', 'workspace', 'sync', 'syncthing', 'agent sessions'],
    compatibility: { platforms: ['linux'] },
    user_config: {
      workspace_root: {
        type: 'directory',
        title: 'Workspace folder',
        description: 'The folder the tools read and write (created with a starter layout if empty). Nothing outside it is reachable.',
        required: true,
        default: '${HOME}/WorkspaceBridge',
      },
    },
  };
}

export function serverJson(version, repository, bundleName, sha256) {
  const [, owner, name] = new URL(repository).pathname.split('/');
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    name: `io.github.${owner}/${name}`,
    title: 'WorkspaceBridge',
    description: DESCRIPTION,
    version,
    repository: { url: repository, source: 'github' },
    packages: [{
      registryType: 'mcpb',
      identifier: `${repository}/releases/download/v${version}/${bundleName}`,
      version,
      fileSha256: sha256,
      transport: { type: 'stdio' },
    }],
  };
}

export function buildMcpDist(binary, outDir, repository) {
  if (!/^https:\/\/github\.com\/[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/.test(repository)) {
    throw new Error(`REPOSITORY must be https://github.com/OWNER/NAME, not ${repository}`);
  }
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  const bundleName = `workspace-bridge-${version}-linux-x86_64.mcpb`;
  const bytes = zip([
    { name: 'manifest.json', data: JSON.stringify(manifest(version), null, 2) + '\n' },
    { name: 'LICENSE', data: readFileSync(path.join(REPO, 'LICENSE')) },
    { name: 'server/workspace-bridge', data: readFileSync(binary), mode: 0o755 },
  ]);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, bundleName), bytes);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  writeFileSync(path.join(outDir, 'server.json'), JSON.stringify(serverJson(version, repository, bundleName, sha256), null, 2) + '\n');
  return { bundle: path.join(outDir, bundleName), sha256 };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [binary, outDir, repository] = process.argv.slice(2);
  if (!binary || !outDir || !repository) {
    console.error('usage: node scripts/mcp-dist.mjs BINARY OUT_DIR https://github.com/OWNER/NAME');
    process.exit(2);
  }
  const { bundle, sha256 } = buildMcpDist(binary, outDir, repository);
  console.log(`${bundle} ${sha256}`);
}
