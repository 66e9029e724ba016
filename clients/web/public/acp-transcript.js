// The transcript of a session the ACP face journaled (`workspace-bridge acp`): its stored
// messages (`content.acp`: prompt, update, permission, permissionOutcome, stop) folded into what
// a reader follows. Pure (no DOM): `sessions.js` renders the entries.
//
// Entries, in order: {kind: 'user', text} for each prompt; {kind: 'agent', text} for a run of
// agent message chunks (joined); {kind: 'thought', text} likewise; {kind: 'tool', id, title,
// toolKind, status} for each tool call, at its first place, with its latest title and status
// (a new `tool_call` with an id seen before starts a new entry);
// {kind: 'plan', entries: [{content, status}]} for each plan (a plan replaces the last one shown
// when nothing came between); {kind: 'permission', title, outcome, by} for each permission request
// with the option chosen (or 'cancelled', or 'waiting'); {kind: 'stop', reason} for each turn's
// end (the stop reason, or the error's message); {kind: 'summary', text} for a compacted run.

function textOf(content) {
  if (!content) return '';
  if (typeof content === 'string') return content;
  if (content.type === 'text') return content.text ?? '';
  if (content.type === 'resource_link') return `[${content.name ?? content.uri}]`;
  return `[${content.type ?? 'content'}]`;
}

/** Folds stored messages (`session/messages` entries) into transcript entries. */
export function acpTranscript(messages) {
  const out = [];
  const tools = new Map(); // toolCallId → its entry
  const last = () => out[out.length - 1];
  const chunk = (kind, text) => {
    if (last()?.kind === kind) last().text += text;
    else out.push({ kind, text });
  };
  for (const m of messages) {
    if (m.compaction) {
      const text = typeof m.content === 'string' ? m.content : (m.content ?? []).map?.((b) => b.text ?? '').join('\n') ?? '';
      out.push({ kind: 'summary', text });
      continue;
    }
    const c = m.content ?? {};
    switch (c.acp) {
      case 'prompt':
        out.push({ kind: 'user', text: (c.prompt ?? []).map(textOf).join('\n') });
        break;
      case 'update': {
        const u = c.update ?? {};
        switch (u.sessionUpdate) {
          case 'user_message_chunk': chunk('user', textOf(u.content)); break;
          case 'agent_message_chunk': chunk('agent', textOf(u.content)); break;
          case 'agent_thought_chunk': chunk('thought', textOf(u.content)); break;
          case 'tool_call':
          case 'tool_call_update': {
            // A new `tool_call` starts an entry even when an earlier call had its id.
            let t = u.sessionUpdate === 'tool_call' ? undefined : tools.get(u.toolCallId);
            if (!t) {
              t = { kind: 'tool', id: u.toolCallId, title: u.title ?? 'Tool call', toolKind: u.kind ?? 'other', status: u.status ?? 'pending' };
              tools.set(u.toolCallId, t);
              out.push(t);
            }
            if (u.title) t.title = u.title;
            if (u.kind) t.toolKind = u.kind;
            if (u.status) t.status = u.status;
            break;
          }
          case 'plan': {
            const entries = (u.entries ?? []).map((e) => ({ content: e.content ?? '', status: e.status ?? 'pending' }));
            if (last()?.kind === 'plan') last().entries = entries;
            else out.push({ kind: 'plan', entries });
            break;
          }
          default: break; // usage, modes, commands, info: not part of the conversation
        }
        break;
      }
      case 'permission':
        out.push({ kind: 'permission', title: c.request?.toolCall?.title ?? 'A tool call', options: c.request?.options ?? [],
          outcome: 'waiting', by: null });
        break;
      case 'permissionOutcome': {
        const p = [...out].reverse().find((e) => e.kind === 'permission' && e.outcome === 'waiting');
        if (!p) break;
        const chosen = c.outcome?.optionId;
        p.outcome = c.error ? 'error' : chosen ? (p.options.find((o) => o.optionId === chosen)?.name ?? chosen) : (c.outcome?.outcome ?? 'cancelled');
        p.by = c.by ?? 'editor';
        break;
      }
      case 'stop':
        out.push({ kind: 'stop', reason: c.stopReason ?? c.error?.message ?? 'ended' });
        break;
      default: break;
    }
  }
  for (const e of out) delete e.options;
  return out;
}
