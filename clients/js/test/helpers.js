/**
 * Test helpers: the real server binary and throw-away workspaces.
 *
 * The binary is $WB_BIN, else <repo>/.build/debug/workspace-bridge (as Tests/e2e does).
 */
import { existsSync, mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkspaceBridgeClient } from '../index.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export function serverBinary() {
  const path = process.env.WB_BIN || join(REPO_ROOT, '.build/debug/workspace-bridge');
  if (!existsSync(path)) throw new Error(`server binary not found at ${path} (build it, or set WB_BIN)`);
  return path;
}

/** A fresh {dir, localRoot, cloudRoot, configDir}, removed when the test ends. */
export function tempWorkspace(t, { cloud = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'wb-js-'));
  const paths = { dir, localRoot: join(dir, 'local'), configDir: join(dir, 'config'), cloudRoot: cloud ? join(dir, 'cloud') : undefined };
  mkdirSync(paths.localRoot);
  if (cloud) mkdirSync(paths.cloudRoot);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return paths;
}

/** Spawns an initialized client on a fresh workspace; the server is killed if the test leaves it running. */
export async function spawnClient(t, options = {}) {
  const workspace = options.workspace ?? tempWorkspace(t, { cloud: options.cloud });
  const client = await WorkspaceBridgeClient.spawn({
    bin: serverBinary(),
    localRoot: workspace.localRoot,
    cloudRoot: workspace.cloudRoot,
    configDir: workspace.configDir,
    debugMethods: true,
    env: { ...process.env, XDG_DATA_HOME: join(workspace.dir, 'xdg-data') },
    ...options.spawn,
  });
  t.after(async () => {
    if (client.exitStatus === null) await client.kill();
  });
  return { client, workspace };
}

/** Polls until `poll` returns a truthy value (resolved with it), or rejects after ms. */
export async function waitFor(label, ms, poll) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await poll();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
