// Shared by the web front end's browser tests: a workspace in a fresh temporary folder, served by
// the real host and server, headless Chromium showing it, and one teardown for all of it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHost } from '../host.mjs';
import { launchBrowser } from './browser.mjs';
import { hostRpc, showView } from './host-rpc.mjs';

/** A temporary folder (named from `prefix`) holding `ws` (the local root), `cloud` (a Syncthing
 *  folder: it has a `.stfolder`) and `config`, and the host serving them with its server, past
 *  the first-run storage choice (local). Returns `{ tmp, root, cloud, config, storage, host }`,
 *  `storage` being the storage arguments of the host's server (for another process on the same
 *  workspace). A setup that fails leaves nothing behind. */
export async function startWorkspace(prefix) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), prefix));
  const workspace = { tmp, root: path.join(tmp, 'ws'), cloud: path.join(tmp, 'cloud'), config: path.join(tmp, 'config') };
  for (const dir of [workspace.root, workspace.cloud, workspace.config]) mkdirSync(dir);
  writeFileSync(path.join(workspace.cloud, '.stfolder'), '');
  workspace.storage = ['--local-root', workspace.root, '--cloud-root', workspace.cloud, '--config-dir', workspace.config];
  try {
    workspace.host = await startHost({ port: 0, quiet: true, serverArgs: [...workspace.storage, '--log-level', 'warning'] });
    await hostRpc(workspace.host, 'chooseStorage', { location: 'local' });
  } catch (e) {
    await closeAll(workspace);
    throw e;
  }
  return workspace;
}

/** Headless Chromium on `host`'s page once the UI is ready, showing `view` when given. */
export async function openUi(host, view) {
  const browser = await launchBrowser();
  try {
    await browser.page.goto(host.openUrl);
    await browser.page.waitFor(`document.body.dataset.ready === 'true'`);
    if (view) await showView(browser.page, view);
  } catch (e) {
    await browser.close();
    throw e;
  }
  return browser;
}

/** Ends what `startWorkspace` and `openUi` started; any of them may be missing (a setup that
 *  stopped part way). */
export async function closeAll({ browser, host, tmp } = {}) {
  await browser?.close();
  await host?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}
