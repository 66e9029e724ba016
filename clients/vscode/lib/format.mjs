/**
 * Text the extension shows: pure functions of the server's results (no `vscode`, no I/O).
 */

/** 1536 → "1.5 KB" (powers of 1024, one decimal from KB up). */
export function formatBytes(bytes) {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} ${value === 1 ? 'byte' : 'bytes'}` : `${value.toFixed(1)} ${units[unit]}`;
}

/** One line describing getStorageInfo's answer. */
export function storageSummary(info) {
  const active = info.storageType === 'cloud' ? 'cloud' : 'local';
  const parts = [`Storage: ${active} (${info.roots[active]})`, `${info.usage.files} files, ${formatBytes(info.usage.bytes)}`];
  if (info.isCloudEnabled) {
    parts.push(`cloud: ${info.cloudProvider ?? 'folder'} at ${info.roots.cloud}${info.isCloudAvailable ? '' : ' (unavailable)'}`);
  } else parts.push('no cloud root configured');
  if (info.needsChoice) parts.push('storage not chosen yet');
  if (info.pendingMigration) {
    const p = info.pendingMigration;
    parts.push(`interrupted migration to ${p.to}: ${p.filesDone}/${p.filesTotal} files (run Migrate to resume)`);
  }
  return parts.join(' · ');
}

/** One line describing migrate's answer. */
export function migrationSummary(to, result) {
  if (result.alreadyActive) return `Already using ${to} storage: nothing to migrate.`;
  const parts = [`${result.copied} copied`, `${result.skipped} skipped`];
  if (result.conflicts > 0) parts.push(`${result.conflicts} conflicts kept both`);
  if (result.notDownloaded.length > 0) parts.push(`${result.notDownloaded.length} not downloaded (left out)`);
  const head = result.switched ? `Now using ${to} storage` : `Migration to ${to} finished without switching`;
  return `${head}: ${parts.join(', ')} (${formatBytes(result.bytes)}${result.resumed ? ', resumed' : ''}).`;
}

/** A QuickPick item for a session. */
export function sessionItem(session) {
  const usage = session.usage;
  return {
    label: session.title || '(untitled)',
    description: session.state,
    detail: `${session.agentType} · ${usage.turns} turns · ${usage.inputTokens + usage.outputTokens} tokens · $${usage.estimatedCostUSD.toFixed(4)} · updated ${session.updatedAt}`,
    session,
  };
}

/** A session and its messages as Markdown. */
export function transcript(session, messages) {
  const lines = [`# ${session.title || '(untitled)'}`, '', `- id: \`${session.id}\``, `- state: ${session.state}`, `- agent: ${session.agentType}`, `- updated: ${session.updatedAt}`, ''];
  if (messages.length === 0) lines.push('_No messages._');
  for (const message of messages) {
    lines.push(`## ${message.role} · ${message.at}`, '', typeof message.content === 'string' ? message.content : '```json\n' + JSON.stringify(message.content, null, 2) + '\n```', '');
  }
  return lines.join('\n');
}
