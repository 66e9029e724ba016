/**
 * The server for the opened folder: started on first use, restarted if it died, shut down on dispose.
 *
 * Guarantees: at most one server runs per extension instance; it serves the first workspace
 * folder as --local-root, with the cloud root and configuration folder from the settings
 * (`workspaceBridge.cloudRoot`, `workspaceBridge.configDir`) and the binary from
 * `workspaceBridge.serverPath`, else $WB_BIN, else the one the .vsix carries, else
 * `workspace-bridge` on PATH.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WorkspaceBridgeClient } from '../../js/index.js';

/** The binary a platform .vsix carries (scripts/vsix.mjs puts it at extension/bin/); none in a clone. */
export const bundledBinary = fileURLToPath(new URL('../../../bin/workspace-bridge', import.meta.url));

export class ServerHandle {
  /** @param {any} vscode the VS Code API @param {{appendLine(s: string): void}} output */
  constructor(vscode, output) {
    this.vscode = vscode;
    this.output = output;
    this.starting = null;
  }

  /** The running client, started when needed. Throws when no folder is open. */
  async client() {
    if (this.starting) {
      const client = await this.starting.catch(() => null);
      if (client && !client.closed) return client;
    }
    this.starting = this.start();
    return this.starting;
  }

  async start() {
    const folder = this.vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error('open a folder first: WorkspaceBridge serves the opened folder');
    const config = this.vscode.workspace.getConfiguration('workspaceBridge');
    const setting = (key) => config.get(key, '') || undefined;
    const client = await WorkspaceBridgeClient.spawn({
      bin: setting('serverPath') ?? process.env.WB_BIN ?? (existsSync(bundledBinary) ? bundledBinary : 'workspace-bridge'),
      localRoot: folder.uri.fsPath,
      cloudRoot: setting('cloudRoot'),
      configDir: setting('configDir'),
      initialize: { clientInfo: { name: 'vscode', version: this.vscode.version } },
    });
    client.on('stderr', (text) => this.output.append(text));
    client.on('close', () => this.output.appendLine('[workspace-bridge] server stopped'));
    this.output.appendLine(`[workspace-bridge] serving ${folder.uri.fsPath}`);
    return client;
  }

  /** Shuts the server down cleanly if it runs; resolves with its exit status (or null). */
  async dispose() {
    const client = await this.starting?.catch(() => null);
    this.starting = null;
    if (!client || client.closed) return null;
    return client.shutdown();
  }
}
