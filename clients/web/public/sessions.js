// Agent sessions: each session's state, usage and estimated cost, the tool calls it still has
// pending, the tool calls waiting for the user's consent (answered here with Allow or Deny:
// `session/approve`), the calls the device policy deferred, where a fork came from, and resuming
// a backgrounded one (which moves it to running and shows its recent messages). The list follows
// `session/didChangeState`. A session the ACP face journaled (`metadata.acp`) has a readable
// transcript (text, tool calls with their status, plans, permissions), refreshed every second
// while it is open, so a turn streaming through `workspace-bridge acp` shows as it goes.
import { acpTranscript } from './acp-transcript.js';
import { rpc } from './rpc.js';
import { describeError, formatTime, formatUSD, h, toast } from './ui.js';

const $ = (id) => document.getElementById(id);
const resumed = new Map(); // id → the last session/resume answer, to show its messages
const transcripts = new Map(); // id → the entries of an open ACP transcript (null while loading)
let transcriptTimer = null;
/** The most messages an open transcript reads (pages of 1,000). */
const transcriptLimit = 10000;

const stateLabels = {
  idle: 'Idle', running: 'Running', waitingForUser: 'Waiting for you', backgrounded: 'Paused',
  completed: 'Completed', failed: 'Failed',
};

function toolCalls(calls) {
  if (!calls.length) return h('p.muted.small', {}, 'No pending tool calls.');
  return h('ul.tool-calls', {}, calls.map((call) => h('li', {},
    h('code', {}, call.name), h(`span.pill.${call.status === 'interrupted' ? 'warn' : ''}`, {}, call.status),
    h('span.muted.small', {}, call.toolCallId))));
}

function messages(list) {
  return h('div.messages', {}, list.slice(-6).map((m) => h(`div.message.${m.role}`, {},
    h('span.role', {}, m.role), h('span.content', {}, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))));
}

const toolStatus = { pending: '', in_progress: 'warn', completed: 'ok', failed: 'danger' };

function transcriptEntry(e) {
  switch (e.kind) {
    case 'user': return h('div.entry.user', {}, h('span.role', {}, 'You'), h('div.text', {}, e.text));
    case 'agent': return h('div.entry.agent', {}, h('span.role', {}, 'Agent'), h('div.text', {}, e.text));
    case 'thought': return h('div.entry.thought.muted.small', {}, h('span.role', {}, 'Thinking'), h('div.text', {}, e.text));
    case 'summary': return h('div.entry.summary.muted', {}, h('span.role', {}, 'Summary'), h('div.text', {}, e.text));
    case 'tool': return h('div.entry.tool', { dataset: { toolCallId: e.id, status: e.status } },
      h('code', {}, e.toolKind), ' ', h('span.title', {}, e.title), ' ', h(`span.pill.${toolStatus[e.status] ?? ''}`, {}, e.status));
    case 'plan': return h('div.entry.plan', {}, h('span.role', {}, 'Plan'),
      h('ul', {}, e.entries.map((p) => h('li', { dataset: { status: p.status } }, h(`span.pill.${toolStatus[p.status] ?? ''}`, {}, p.status), ' ', p.content))));
    case 'permission': return h('div.entry.permission', {}, h('span.role', {}, 'Permission'), ' ', h('span.title', {}, e.title),
      ' → ', h('strong.outcome', {}, e.outcome), e.by ? h('span.muted.small', {}, ` (${e.by})`) : null);
    case 'stop': return h('div.entry.stop.muted.small', {}, `turn ended: ${e.reason}`);
    default: return null;
  }
}

function transcript(session) {
  if (!session.metadata?.acp) return null;
  const open = transcripts.has(session.id);
  const entries = transcripts.get(session.id);
  return h('div.acp', {},
    h('button.btn.transcript-toggle', { onclick: () => toggleTranscript(session.id) }, open ? 'Hide transcript' : 'Transcript'),
    open ? h('div.transcript', {}, entries === null ? h('p.muted.small', {}, 'Loading…') : entries.map(transcriptEntry)) : null);
}

async function loadTranscript(id) {
  const messages = [];
  let after;
  do {
    const page = await rpc('session/messages', { id, limit: 1000, ...(after ? { after } : {}) });
    messages.push(...page.messages);
    after = page.messages.length === 1000 ? page.messages[page.messages.length - 1].id : undefined;
  } while (after && messages.length < transcriptLimit);
  return acpTranscript(messages);
}

async function refreshTranscripts() {
  for (const id of transcripts.keys()) {
    try {
      const entries = await loadTranscript(id);
      if (!transcripts.has(id)) continue;
      transcripts.set(id, entries);
      const card = document.querySelector(`.session[data-id="${id}"] .transcript`);
      card?.replaceChildren(...entries.map(transcriptEntry).filter(Boolean));
    } catch (error) {
      toast(`Could not read the transcript: ${describeError(error)}`, 'error');
      transcripts.delete(id);
    }
  }
  if (!transcripts.size && transcriptTimer) {
    clearInterval(transcriptTimer);
    transcriptTimer = null;
  }
}

async function toggleTranscript(id) {
  if (transcripts.has(id)) {
    transcripts.delete(id);
  } else {
    transcripts.set(id, null);
    transcriptTimer ??= setInterval(refreshTranscripts, 1000);
  }
  await refreshSessions();
  await refreshTranscripts();
}

function argumentsText(args) {
  const text = JSON.stringify(args ?? {});
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

/** The calls waiting for the user's consent, each with Allow and Deny. */
function approvals(session) {
  const pending = session.pendingApprovals ?? [];
  if (!pending.length) return null;
  return h('div.approvals', {},
    h('h4', {}, `Waiting for your approval (${pending.length})`),
    h('ul.approval-list', {}, pending.map((a) => h('li.approval', { dataset: { toolCallId: a.toolCallId, approvalId: a.approvalId } },
      h('div', {}, h('code', {}, a.name), ' ', h('span.muted.small', {}, argumentsText(a.arguments))),
      h('div.actions', {},
        h('button.btn.danger.deny', { onclick: () => approve(session.id, a, 'deny') }, 'Deny'),
        h('button.btn.primary.allow', { onclick: () => approve(session.id, a, 'allow') }, 'Allow'))))));
}

function deferred(session) {
  const calls = session.deferredToolCalls ?? [];
  if (!calls.length) return null;
  return h('div.deferred', {},
    h('h4', {}, `Deferred by the device policy (${calls.length})`),
    h('ul.tool-calls', {}, calls.map((c) => h('li', {}, h('code', {}, c.name), h('span.pill.warn', {}, c.reason),
      h('span.muted.small', {}, c.toolCallId)))));
}

async function approve(id, approval, decision) {
  try {
    const answer = await rpc('session/approve', { id, toolCallId: approval.toolCallId, decision });
    const failed = answer.result?.isError && decision === 'allow';
    toast(decision === 'allow'
      ? (failed ? `${approval.name} ran and failed` : `Allowed ${approval.name}`)
      : `Denied ${approval.name}`, failed ? 'error' : 'success');
  } catch (error) {
    toast(`Could not answer: ${describeError(error)}`, 'error');
  }
  await refreshSessions();
}

function sessionCard(session) {
  const { usage, config } = session;
  const limit = config.maxCostUSD ? ` of ${formatUSD(config.maxCostUSD)}` : '';
  const canResume = session.state === 'backgrounded';
  const detail = resumed.get(session.id);
  return h('section.card.session', { dataset: { id: session.id, state: session.state } },
    h('div.session-head', {},
      h('div', {}, h('h3', {}, session.title || 'Untitled session'),
        h('div.muted.small', {}, `${session.agentType} · ${config.model ?? config.modelTier ?? 'default model'} · updated ${formatTime(session.updatedAt)}`),
        session.parentId ? h('div.muted.small.lineage', {}, `forked from ${session.parentId}`) : null,
        session.compactions?.length ? h('div.muted.small', {}, `${session.compactions.filter((c) => c.active).length} compacted runs`) : null),
      h(`span.state.${session.state}`, {}, stateLabels[session.state] ?? session.state)),
    session.error ? h('div.banner.warn', {}, `${session.error.code}: ${session.error.message}`) : null,
    approvals(session),
    deferred(session),
    h('div.stats', {},
      h('div.stat', {}, h('div.stat-value.cost', {}, formatUSD(usage.estimatedCostUSD)), h('div.stat-label', {}, `estimated cost${limit}`)),
      h('div.stat', {}, h('div.stat-value', {}, usage.inputTokens.toLocaleString()), h('div.stat-label', {}, 'input tokens')),
      h('div.stat', {}, h('div.stat-value', {}, usage.outputTokens.toLocaleString()), h('div.stat-label', {}, 'output tokens')),
      h('div.stat', {}, h('div.stat-value', {}, usage.turns), h('div.stat-label', {}, 'turns'))),
    h('h4', {}, `Pending tool calls (${session.pendingToolCalls.length})`),
    toolCalls(session.pendingToolCalls),
    detail ? messages(detail.messagesTail) : null,
    transcript(session),
    canResume ? h('div.actions.end', {}, h('button.btn.primary.resume', { onclick: () => resume(session.id) }, 'Resume')) : null);
}

async function resume(id) {
  try {
    const answer = await rpc('session/resume', { id });
    resumed.set(id, answer);
    toast(`Resumed “${answer.session.title}”`, 'success');
  } catch (error) {
    toast(`Could not resume: ${describeError(error)}`, 'error');
  }
  await refreshSessions();
}

/** Lists the sessions again (most recently updated first). */
export async function refreshSessions() {
  const sessions = [];
  try {
    let cursor;
    do {
      const page = await rpc('session/list', { limit: 200, ...(cursor ? { cursor } : {}) });
      sessions.push(...page.sessions);
      cursor = page.nextCursor;
    } while (cursor && sessions.length < 1000);
  } catch (error) {
    toast(`Could not list sessions: ${describeError(error)}`, 'error');
    return;
  }
  sessions.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  const active = sessions.filter((s) => !['completed', 'failed'].includes(s.state)).length;
  $('session-count').hidden = active === 0;
  $('session-count').textContent = active;
  $('session-list').replaceChildren(...sessions.map(sessionCard));
  if (!sessions.length) {
    $('session-list').append(h('div.empty.card', {}, h('div.empty-title', {}, 'No sessions yet'), h('div.muted', {}, 'Sessions appear here when an agent works in this workspace.')));
  }
}
