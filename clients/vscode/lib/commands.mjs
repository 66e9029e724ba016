/**
 * The extension's commands, written against the VS Code API passed in (`vscode`) and a
 * `ServerHandle`. Each returns what it did (for tests and for other extensions via
 * executeCommand) or undefined when the user dismissed a picker.
 */
import { migrationSummary, sessionItem, storageSummary, transcript } from './format.mjs';

/** Every file of the workspace (all pages of a recursive listing). */
async function allFiles(client) {
  const files = [];
  let cursor;
  do {
    const page = await client.listFiles(cursor ? { recursive: true, cursor, limit: 10_000 } : { recursive: true, limit: 10_000 });
    files.push(...page.entries.filter((e) => e.type === 'file'));
    cursor = page.nextCursor;
  } while (cursor);
  return files;
}

/** Picks a workspace file and opens it in an editor. Resolves with its path. */
export async function openFile(vscode, server) {
  const client = await server.client();
  const files = await allFiles(client);
  const pick = await vscode.window.showQuickPick(
    files.map((f) => ({ label: f.path, description: f.state === 'current' ? '' : f.state, entry: f })),
    { placeHolder: 'Open a workspace file', matchOnDescription: true });
  if (!pick) return undefined;
  const { uri } = await client.getFileUri({ path: pick.entry.path });
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
  await vscode.window.showTextDocument(document);
  return pick.entry.path;
}

/** Shows where the workspace is and how full it is. Resolves with getStorageInfo's answer. */
export async function showStorageInfo(vscode, server) {
  const info = await (await server.client()).getStorageInfo();
  vscode.window.showInformationMessage(storageSummary(info));
  return info;
}

/** The seeds' choice: local, cloud (only offered when available), or decide later. */
export async function chooseStorage(vscode, server) {
  const client = await server.client();
  const info = await client.getStorageInfo();
  const items = [{ label: 'Local', description: info.roots.local, location: 'local' }];
  if (info.isCloudAvailable) items.push({ label: 'Cloud', description: `${info.cloudProvider} · ${info.roots.cloud}`, location: 'cloud' });
  items.push({ label: 'Decide later', description: 'keep using local storage for now', location: 'decideLater' });
  const pick = await vscode.window.showQuickPick(items, { placeHolder: `Where should the workspace live? (now: ${info.storageType})` });
  if (!pick) return undefined;
  const chosen = await client.chooseStorage({ location: pick.location });
  vscode.window.showInformationMessage(storageSummary(chosen));
  return chosen;
}

/**
 * Migrates to the other root with a cancellable progress notification.
 * Resolves with migrate's answer, or {cancelled: true} when the user cancelled (nothing switched).
 */
export async function migrate(vscode, server) {
  const client = await server.client();
  const info = await client.getStorageInfo();
  const to = info.storageType === 'cloud' ? 'local' : 'cloud';
  if (to === 'cloud' && !info.isCloudAvailable) {
    throw new Error(info.isCloudEnabled ? `the cloud root ${info.roots.cloud} is not available` : 'no cloud root is configured (setting workspaceBridge.cloudRoot)');
  }
  const mode = await vscode.window.showQuickPick([
    { label: 'Copy', description: `keep the files in ${info.storageType} storage too`, mode: 'copy' },
    { label: 'Move', description: `delete each file from ${info.storageType} storage once its copy is verified`, mode: 'move' },
  ], { placeHolder: `Migrate the workspace to ${to} storage` });
  if (!mode) return undefined;
  const title = `Migrating the workspace to ${to} storage`;
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    const controller = new AbortController();
    token.onCancellationRequested(() => controller.abort());
    let reported = 0;
    try {
      const result = await client.migrate({ to, mode: mode.mode }, {
        signal: controller.signal,
        onProgress: (value) => {
          // VS Code adds increments; the server reports absolute percentages.
          const increment = typeof value.percentage === 'number' ? Math.max(0, value.percentage - reported) : 0;
          reported += increment;
          progress.report({ message: value.message, increment });
        },
      });
      vscode.window.showInformationMessage(migrationSummary(to, result));
      return result;
    } catch (error) {
      if (error.kind !== 'RequestCancelled') throw error;
      vscode.window.showWarningMessage(`Migration to ${to} cancelled: still using ${info.storageType} storage; run Migrate again to resume.`);
      return { cancelled: true };
    }
  });
}

/** Lists agent sessions; the chosen one opens as a Markdown transcript. Resolves with its id. */
export async function listSessions(vscode, server) {
  const client = await server.client();
  const sessions = [];
  let cursor;
  do {
    const page = await client.session.list(cursor ? { cursor } : {});
    sessions.push(...page.sessions);
    cursor = page.nextCursor;
  } while (cursor);
  if (sessions.length === 0) {
    vscode.window.showInformationMessage('No agent sessions in this workspace yet.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(sessions.map(sessionItem), { placeHolder: 'Agent sessions', matchOnDetail: true });
  if (!pick) return undefined;
  const messages = [];
  const limit = 100;
  let after;
  for (;;) {
    const page = await client.session.messages(after === undefined ? { id: pick.session.id, limit } : { id: pick.session.id, after, limit });
    messages.push(...page.messages);
    if (page.messages.length < limit) break;
    after = page.messages.at(-1).id;
  }
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: transcript(pick.session, messages) });
  await vscode.window.showTextDocument(document);
  return pick.session.id;
}
