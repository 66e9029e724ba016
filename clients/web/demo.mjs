// The embedded demo workspace that `run.mjs` starts on: a local root, a cloud root that looks
// like a Syncthing folder (so the cloud choice is offered), a conflict left by the "sync
// engine", and agent sessions with usage and a pending tool call. Files are written through
// the protocol, except the conflict copy, which (like a real sync engine's) appears on disk.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The server's workspace templates (`--template`). */
export const templates = ['default', 'atome'];

/** `$XDG_DATA_HOME/workspace-bridge/web-demo` (else `~/.local/share/…`); `web-demo-atome` for the Atome template. */
export function defaultDemoDir(template = 'default') {
  const data = process.env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share');
  return path.join(data, 'workspace-bridge', template === 'atome' ? 'web-demo-atome' : 'web-demo');
}

/** The three folders of a demo directory, created when missing; the cloud one has `.stfolder`. */
export function demoRoots(dir) {
  const roots = { local: path.join(dir, 'local'), cloud: path.join(dir, 'cloud'), config: path.join(dir, 'config') };
  for (const root of Object.values(roots)) mkdirSync(root, { recursive: true });
  writeFileSync(path.join(roots.cloud, '.stfolder'), '');
  return roots;
}

/** Server arguments for a demo directory's roots. */
export function serverArgs(roots, template = 'default') {
  return ['--local-root', roots.local, '--cloud-root', roots.cloud, '--config-dir', roots.config, '--template', template, '--log-level', 'warning'];
}

const files = {
  'Research/ideas.md': '# Ideas\n\n- Files are the universal interface between the user and the agent.\n- Keep context.md short: what the agent should remember.\n- A budget per session keeps costs predictable.\n',
  'Research/sources.md': '# Sources\n\n1. Agent-native architecture notes\n2. iCloud Drive reference: ubiquitous containers, file states\n3. Syncthing: conflict copies and .stignore\n',
  'Notes/meeting-2025-11-20.md': '# Planning meeting\n\nAttendees: Ana, Ben, the agent\n\n- Decide where the workspace lives (local or cloud)\n- Migration must be verified file by file\n- Budget: $2 per research session\n',
  'Projects/launch-plan.md': '# Launch plan\n\n## This week\n- [x] Storage choice on first run\n- [ ] Move the workspace to the cloud folder\n- [ ] Review conflicts from the laptop\n',
  'Chats/2025-11-21-research.md': '**User:** Summarise this week\'s research.\n\n**Agent:** Three themes: files as interface, budgets, verified migration.\n',
};

const conflictCopy = {
  path: 'Research/ideas.sync-conflict-20251122-101010-K7XQ2PA.md',
  data: '# Ideas\n\n- Files are the universal interface between the user and the agent.\n- Edited on the laptop: context.md is the agent\'s memory.\n- A budget per session keeps costs predictable.\n',
};

/** A short, valid 16-bit mono WAV file: `seconds` of a sine at `hz`. */
export function wav(seconds = 0.5, hz = 440, rate = 8000) {
  const samples = Math.round(seconds * rate);
  const bytes = Buffer.alloc(44 + samples * 2);
  bytes.write('RIFF', 0, 'ascii');
  bytes.writeUInt32LE(36 + samples * 2, 4);
  bytes.write('WAVEfmt ', 8, 'ascii');
  bytes.writeUInt32LE(16, 16);
  bytes.writeUInt16LE(1, 20);
  bytes.writeUInt16LE(1, 22);
  bytes.writeUInt32LE(rate, 24);
  bytes.writeUInt32LE(rate * 2, 28);
  bytes.writeUInt16LE(2, 32);
  bytes.writeUInt16LE(16, 34);
  bytes.write('data', 36, 'ascii');
  bytes.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) bytes.writeInt16LE(Math.round(Math.sin((2 * Math.PI * hz * i) / rate) * 12000), 44 + i * 2);
  return bytes;
}

const atomeFiles = {
  'Projects/first-song.atome': JSON.stringify({ name: 'First song', bpm: 96, tracks: [{ name: 'Piano', clips: 4 }, { name: 'Drums', clips: 8 }] }),
  'Projects/field-recording.atome': JSON.stringify({ name: 'Field recording', bpm: 120, tracks: [{ name: 'Birds', clips: 1 }] }),
  'Templates/lo-fi-preset.json': JSON.stringify({ name: 'Lo-fi', reverb: 0.4, bitcrush: 12 }),
};

/** Seeds a fresh demo workspace through a started host's bridge (`template` as the server's). */
export async function seedDemo(bridge, roots, template = 'default') {
  if (template === 'atome') return seedAtome(bridge);
  for (const [p, data] of Object.entries(files)) await bridge.call('saveFile', { path: p, data });
  for (let i = 1; i <= 16; i++) {
    const data = Buffer.alloc(512 * 1024, i).toString('base64');
    await bridge.call('saveFile', { path: `Recordings/take-${String(i).padStart(2, '0')}.raw`, data, encoding: 'base64' });
  }
  writeFileSync(path.join(roots.local, conflictCopy.path), conflictCopy.data);

  const research = await bridge.call('session/create', {
    title: 'Summarise this week\'s research', agentType: 'researcher',
    config: { modelTier: 'balanced', maxCostUSD: 2 },
  });
  await bridge.call('session/transition', { id: research.id, to: 'running' });
  await bridge.call('session/appendMessages', {
    id: research.id,
    messages: [
      { id: 'm1', role: 'user', content: 'Summarise this week\'s research into Notes/summary.md.' },
      { id: 'm2', role: 'assistant', content: 'Reading Research/ first, then I will draft the summary.' },
    ],
  });
  await bridge.call('session/callTool', { id: research.id, toolCallId: 'call-1', name: 'list_files', arguments: { path: 'Research' } });
  await bridge.call('session/recordUsage', { id: research.id, inputTokens: 18400, outputTokens: 2100 });
  await bridge.call('session/checkpoint', {
    id: research.id,
    pendingToolCalls: [{ toolCallId: 'call-2', name: 'write_file', arguments: { path: 'Notes/summary.md', data: '# Summary\n' } }],
    partialResults: { drafted: ['themes'] },
  });

  const tidy = await bridge.call('session/create', { title: 'Tidy the journal', agentType: 'assistant', config: { modelTier: 'fast' } });
  await bridge.call('session/transition', { id: tidy.id, to: 'running' });
  await bridge.call('session/recordUsage', { id: tidy.id, inputTokens: 3200, outputTokens: 640 });
  await bridge.call('session/transition', { id: tidy.id, to: 'completed' });

  await bridge.call('settings/set', { values: { theme: 'light', editorFontSize: 14, languages: ['en', 'fr'] } });
  await bridge.call('queue/enqueue', { kind: 'sync-calendar', payload: { days: 7 }, idempotencyKey: 'demo-calendar-1' });
  const failed = await bridge.call('queue/enqueue', { kind: 'send-summary', payload: { to: 'ana@example.com' }, idempotencyKey: 'demo-mail-1' });
  await bridge.call('queue/fail', { id: failed.id, error: { message: 'SMTP server unreachable' } });
  await bridge.call('host/didEnterBackground', {});
}

/** The Atome demo: projects, a preset, an exported mix and a recording, and synced settings. */
async function seedAtome(bridge) {
  for (const [p, data] of Object.entries(atomeFiles)) await bridge.call('saveFile', { path: p, data });
  await bridge.call('saveFile', { path: 'Exports/first-song.wav', data: wav(1, 440).toString('base64'), encoding: 'base64' });
  await bridge.call('saveFile', { path: 'Recordings/birds.wav', data: wav(2, 660).toString('base64'), encoding: 'base64' });
  await bridge.call('settings/set', { values: { theme: 'dark', metronome: true, sampleRate: 48000 } });
  await bridge.call('queue/enqueue', { kind: 'upload-export', payload: { path: 'Exports/first-song.wav' }, idempotencyKey: 'demo-upload-1' });
}
