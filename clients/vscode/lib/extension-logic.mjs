/**
 * The extension, given the VS Code API as a parameter (extension.js passes the real one, tests a
 * fake). `activate` registers every command of package.json; a command that fails shows the error
 * (with the server's reason, e.g. "CloudUnavailable") instead of throwing into VS Code.
 */
import * as commands from './commands.mjs';
import { ServerHandle } from './server.mjs';

/** Command id → implementation; package.json contributes exactly these. */
export const COMMANDS = Object.freeze({
  'workspaceBridge.openFile': commands.openFile,
  'workspaceBridge.showStorageInfo': commands.showStorageInfo,
  'workspaceBridge.chooseStorage': commands.chooseStorage,
  'workspaceBridge.migrate': commands.migrate,
  'workspaceBridge.listSessions': commands.listSessions,
});

/**
 * @param {{subscriptions: {dispose(): unknown}[]}} context
 * @param {any} vscode
 * @returns {{server: ServerHandle, dispose(): Promise<unknown>}}
 */
export function activate(context, vscode) {
  const output = vscode.window.createOutputChannel('WorkspaceBridge');
  const server = new ServerHandle(vscode, output);
  for (const [id, run] of Object.entries(COMMANDS)) {
    context.subscriptions.push(vscode.commands.registerCommand(id, async () => {
      try {
        return await run(vscode, server);
      } catch (error) {
        const reason = error.kind && error.kind !== 'ConnectionClosed' ? ` (${error.kind})` : '';
        output.appendLine(`[workspace-bridge] ${id} failed: ${error.stack ?? error}`);
        vscode.window.showErrorMessage(`WorkspaceBridge: ${error.message}${reason}`);
        return undefined;
      }
    }));
  }
  let disposed = null;
  const extension = {
    server,
    /** Shuts the server down once (VS Code may call both deactivate and the subscription). */
    dispose: () => {
      disposed ??= server.dispose().finally(() => output.dispose());
      return disposed;
    },
  };
  context.subscriptions.push({ dispose: () => extension.dispose() });
  return extension;
}
