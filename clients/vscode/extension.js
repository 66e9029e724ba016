// VS Code entry point: the only file that loads the `vscode` module. Everything else is in
// lib/extension-logic.mjs, which receives the API as a parameter (so tests can pass a fake).
const vscode = require('vscode');

let extension;

async function activate(context) {
  const { activate: activateWith } = await import('./lib/extension-logic.mjs');
  extension = activateWith(context, vscode);
  return extension;
}

async function deactivate() {
  if (extension) await extension.dispose();
}

module.exports = { activate, deactivate };
