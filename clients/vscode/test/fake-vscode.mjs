/**
 * A small stand-in for the `vscode` module: only the API surface the extension touches, recording
 * what the extension shows and answering pickers from a script the test provides.
 */
import { pathToFileURL, fileURLToPath } from 'node:url';

/**
 * @param {{folder?: string, settings?: Record<string, string>, picks?: ((items: any[]) => any)[], onProgress?: (control: {reports: any[], cancel(): void}) => void}} options
 */
export function createFakeVscode(options = {}) {
  const picks = [...(options.picks ?? [])];
  const registered = new Map();
  const shown = { info: [], warning: [], error: [], quickPicks: [], documents: [], progress: [], output: [] };
  const uri = (href) => ({ scheme: new URL(href).protocol.slice(0, -1), fsPath: fileURLToPath(href), toString: () => href });

  const vscode = {
    version: '1.95.0-fake',
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    Uri: { parse: uri, file: (path) => uri(pathToFileURL(path).href) },
    workspace: {
      workspaceFolders: options.folder ? [{ name: 'folder', index: 0, uri: uri(pathToFileURL(options.folder).href) }] : undefined,
      getConfiguration: (section) => ({
        get: (key, fallback) => options.settings?.[`${section}.${key}`] ?? fallback,
      }),
      openTextDocument: async (what) => {
        const document = what?.fsPath !== undefined ? { uri: what, kind: 'file' } : { kind: 'untitled', ...what };
        shown.documents.push(document);
        return document;
      },
    },
    window: {
      showInformationMessage: async (message) => void shown.info.push(message),
      showWarningMessage: async (message) => void shown.warning.push(message),
      showErrorMessage: async (message) => void shown.error.push(message),
      showQuickPick: async (items, pickOptions) => {
        const resolved = await items;
        shown.quickPicks.push({ items: resolved, options: pickOptions });
        const answer = picks.shift();
        if (!answer) throw new Error(`unexpected QuickPick: ${pickOptions?.placeHolder}`);
        return answer(resolved);
      },
      showTextDocument: async (document) => {
        document.shown = true;
        return { document };
      },
      withProgress: async (progressOptions, task) => {
        const record = { options: progressOptions, reports: [] };
        shown.progress.push(record);
        const listeners = [];
        const token = {
          isCancellationRequested: false,
          onCancellationRequested: (listener) => {
            listeners.push(listener);
            return { dispose() {} };
          },
        };
        const control = {
          reports: record.reports,
          cancel: () => {
            token.isCancellationRequested = true;
            for (const listener of listeners) listener();
          },
        };
        return task({ report: (value) => { record.reports.push(value); options.onProgress?.(control); } }, token);
      },
      createOutputChannel: (name) => ({
        name,
        append: (text) => shown.output.push(text),
        appendLine: (text) => shown.output.push(text + '\n'),
        dispose() {},
      }),
    },
    commands: {
      registerCommand: (id, handler) => {
        if (registered.has(id)) throw new Error(`command ${id} registered twice`);
        registered.set(id, handler);
        return { dispose: () => registered.delete(id) };
      },
      executeCommand: async (id, ...args) => {
        const handler = registered.get(id);
        if (!handler) throw new Error(`command '${id}' not found`);
        return handler(...args);
      },
    },
  };
  return { vscode, shown, registered, picks };
}

/** A QuickPick answer choosing the item whose label is `label`. */
export const pickLabel = (label) => (items) => {
  const item = items.find((i) => i.label === label);
  if (!item) throw new Error(`no item ${label} in ${items.map((i) => i.label).join(', ')}`);
  return item;
};
