import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { activate, COMMANDS } from '../lib/extension-logic.mjs';
import { createFakeVscode, pickLabel } from './fake-vscode.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = resolve(HERE, '../../..');

function serverBinary() {
  const path = process.env.WB_BIN || join(REPO_ROOT, '.build/debug/workspace-bridge');
  if (!existsSync(path)) throw new Error(`server binary not found at ${path} (build it, or set WB_BIN)`);
  return path;
}

/** A folder opened in the fake VS Code, with a cloud root and a config folder; the extension activated on it. */
function openFolder(t, { picks = [], cloud = true, onProgress } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'wb-vscode-'));
  const folder = join(dir, 'folder');
  const cloudRoot = join(dir, 'cloud');
  mkdirSync(folder);
  if (cloud) mkdirSync(cloudRoot);
  const settings = { 'workspaceBridge.serverPath': serverBinary(), 'workspaceBridge.configDir': join(dir, 'config') };
  if (cloud) settings['workspaceBridge.cloudRoot'] = cloudRoot;
  const fake = createFakeVscode({ folder, settings, picks, onProgress });
  const context = { subscriptions: [] };
  const extension = activate(context, fake.vscode);
  t.after(async () => {
    await extension.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  return { ...fake, extension, context, folder, cloudRoot };
}

test('activate registers exactly the commands package.json contributes', (t) => {
  const { registered } = openFolder(t);
  const manifest = JSON.parse(readFileSync(join(HERE, '../package.json'), 'utf8'));
  const contributed = manifest.contributes.commands.map((c) => c.command).sort();
  assert.deepEqual([...registered.keys()].sort(), contributed);
  assert.deepEqual(Object.keys(COMMANDS).sort(), contributed);
});

test('open a workspace file: the picker lists the folder\'s files and the chosen one opens from its file URI', async (t) => {
  const { vscode, shown, folder } = openFolder(t, { picks: [pickLabel('Research/plan.md')] });
  mkdirSync(join(folder, 'Research'));
  writeFileSync(join(folder, 'Research/plan.md'), '# Plan');
  const opened = await vscode.commands.executeCommand('workspaceBridge.openFile');
  assert.equal(opened, 'Research/plan.md');
  const labels = shown.quickPicks[0].items.map((i) => i.label);
  assert.ok(labels.includes('Research/plan.md') && labels.includes('context.md'), labels.join(', '));
  assert.ok(!labels.some((l) => l.startsWith('.workspace')), 'the server\'s own folder is not offered');
  assert.equal(shown.documents[0].uri.fsPath, join(folder, 'Research/plan.md'));
  assert.equal(shown.documents[0].shown, true);
});

test('show storage info summarises the server\'s answer', async (t) => {
  const { vscode, shown, folder, cloudRoot } = openFolder(t);
  const info = await vscode.commands.executeCommand('workspaceBridge.showStorageInfo');
  assert.equal(info.roots.local, folder);
  assert.equal(shown.info.length, 1);
  assert.match(shown.info[0], new RegExp(`^Storage: local \\(${folder}\\) · \\d+ files, `));
  assert.match(shown.info[0], new RegExp(`cloud: folder at ${cloudRoot}`));
  assert.match(shown.info[0], /storage not chosen yet/);
});

test('choose storage offers cloud only when it is available, and the choice persists in the server', async (t) => {
  const { vscode, shown, extension } = openFolder(t, { picks: [pickLabel('Cloud')] });
  const chosen = await vscode.commands.executeCommand('workspaceBridge.chooseStorage');
  assert.deepEqual(shown.quickPicks[0].items.map((i) => i.label), ['Local', 'Cloud', 'Decide later']);
  assert.equal(chosen.storageType, 'cloud');
  const client = await extension.server.client();
  assert.equal((await client.getStorageInfo()).isInitialized, true);

  const noCloud = openFolder(t, { cloud: false, picks: [pickLabel('Decide later')] });
  const later = await noCloud.vscode.commands.executeCommand('workspaceBridge.chooseStorage');
  assert.deepEqual(noCloud.shown.quickPicks[0].items.map((i) => i.label), ['Local', 'Decide later']);
  assert.equal(later.needsChoice, true);
});

test('migrate copies the workspace to the cloud root with a progress notification, then switches', async (t) => {
  const { vscode, shown, folder, cloudRoot } = openFolder(t, { picks: [pickLabel('Copy')] });
  for (let i = 0; i < 50; i++) writeFileSync(join(folder, `note${i}.md`), `note ${i}`);
  const result = await vscode.commands.executeCommand('workspaceBridge.migrate');
  assert.equal(result.switched, true);
  assert.ok(result.copied >= 50);
  assert.equal(readFileSync(join(cloudRoot, 'note7.md'), 'utf8'), 'note 7');
  assert.ok(existsSync(join(folder, 'note7.md')), 'copy mode keeps the source');
  const [progress] = shown.progress;
  assert.equal(progress.options.location, vscode.ProgressLocation.Notification);
  assert.equal(progress.options.cancellable, true);
  assert.ok(progress.reports.length >= 1);
  const total = progress.reports.reduce((sum, r) => sum + r.increment, 0);
  assert.ok(total <= 100 && total >= 0, `increments add up to at most 100 (${total})`);
  assert.match(shown.info.at(-1), /^Now using cloud storage: \d+ copied/);
});

test('cancelling the progress notification cancels the migration and nothing switches', async (t) => {
  const { vscode, shown, folder, extension } = openFolder(t, {
    picks: [pickLabel('Copy')],
    onProgress: (control) => control.cancel(),
  });
  mkdirSync(join(folder, 'many'));
  for (let i = 0; i < 3_000; i++) writeFileSync(join(folder, 'many', `f${i}.txt`), `file ${i}`);
  const result = await vscode.commands.executeCommand('workspaceBridge.migrate');
  assert.deepEqual(result, { cancelled: true });
  assert.match(shown.warning[0], /cancelled: still using local storage/);
  const info = await (await extension.server.client()).getStorageInfo();
  assert.equal(info.storageType, 'local');
});

test('migrate without a cloud root shows the reason as an error', async (t) => {
  const { vscode, shown } = openFolder(t, { cloud: false });
  assert.equal(await vscode.commands.executeCommand('workspaceBridge.migrate'), undefined);
  assert.match(shown.error[0], /^WorkspaceBridge: no cloud root is configured/);
});

test('list sessions opens the chosen session as a Markdown transcript', async (t) => {
  const { vscode, shown, extension } = openFolder(t, { picks: [pickLabel('Trip planner')] });
  const client = await extension.server.client();
  const session = await client.session.create({ title: 'Trip planner', agentType: 'chat' });
  await client.session.create({ title: 'Other' });
  await client.session.transition({ id: session.id, to: 'running' });
  await client.session.appendMessages({ id: session.id, messages: [{ role: 'user', content: 'Plan Lisbon' }, { role: 'assistant', content: 'Day 1: Alfama' }] });
  const id = await vscode.commands.executeCommand('workspaceBridge.listSessions');
  assert.equal(id, session.id);
  assert.deepEqual(shown.quickPicks[0].items.map((i) => i.label).sort(), ['Other', 'Trip planner']);
  assert.equal(shown.quickPicks[0].items.find((i) => i.label === 'Trip planner').description, 'running');
  const document = shown.documents[0];
  assert.equal(document.language, 'markdown');
  assert.match(document.content, /^# Trip planner\n/);
  assert.match(document.content, /## user · .*\n\nPlan Lisbon\n/);
  assert.match(document.content, /## assistant · .*\n\nDay 1: Alfama\n/);
});

test('a dismissed picker does nothing; an empty session list says so', async (t) => {
  const { vscode, shown } = openFolder(t, { picks: [() => undefined] });
  assert.equal(await vscode.commands.executeCommand('workspaceBridge.openFile'), undefined);
  assert.equal(shown.documents.length, 0);
  assert.equal(await vscode.commands.executeCommand('workspaceBridge.listSessions'), undefined);
  assert.equal(shown.info.at(-1), 'No agent sessions in this workspace yet.');
});

test('without an opened folder a command explains what to do', async () => {
  const { vscode, shown } = createFakeVscode({});
  const extension = activate({ subscriptions: [] }, vscode);
  assert.equal(await vscode.commands.executeCommand('workspaceBridge.showStorageInfo'), undefined);
  assert.match(shown.error[0], /open a folder first/);
  assert.equal(await extension.dispose(), null);
});

test('dispose shuts the server down cleanly (exit status 0), once', async (t) => {
  const { vscode, extension } = openFolder(t);
  await vscode.commands.executeCommand('workspaceBridge.showStorageInfo');
  const first = extension.dispose();
  assert.equal(extension.dispose(), first, 'the same shutdown');
  assert.deepEqual(await first, { code: 0, signal: null });
});

test('a server that died is started again by the next command', async (t) => {
  const { vscode, shown, extension } = openFolder(t);
  const first = await extension.server.client();
  await first.kill();
  const info = await vscode.commands.executeCommand('workspaceBridge.showStorageInfo');
  assert.equal(info.storageType, 'local');
  const second = await extension.server.client();
  assert.notEqual(second, first);
  assert.equal(shown.error.length, 0);
});
