// The folding of an ACP session's journaled messages into its transcript (public/acp-transcript.js).
//
//   node --test clients/web/test/acp-transcript.test.mjs
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { acpTranscript } from '../public/acp-transcript.js';

const update = (u) => ({ role: 'assistant', content: { acp: 'update', update: u } });
const text = (sessionUpdate, t) => update({ sessionUpdate, content: { type: 'text', text: t } });

it('folds chunks, tool calls, plans, permissions and stops into what a reader follows', () => {
  const entries = acpTranscript([
    { id: 'c1', compaction: { through: 'x' }, content: 'we spoke of notes' },
    { role: 'user', content: { acp: 'prompt', prompt: [{ type: 'text', text: 'tidy' }, { type: 'resource_link', name: 'a.md', uri: 'file:///a.md' }] } },
    text('agent_thought_chunk', 'hm'),
    update({ sessionUpdate: 'plan', entries: [{ content: 'look', status: 'pending', priority: 'high' }] }),
    update({ sessionUpdate: 'plan', entries: [{ content: 'look', status: 'completed', priority: 'high' }] }),
    update({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read a.md', kind: 'read', status: 'pending' }),
    text('agent_message_chunk', 'one '),
    text('agent_message_chunk', 'two'),
    update({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' }),
    update({ sessionUpdate: 'usage_update', used: 1, size: 2 }),
    { role: 'tool', content: { acp: 'permission', request: { toolCall: { title: 'Delete a.md' }, options: [{ optionId: 'no', name: 'Reject', kind: 'reject_once' }] } } },
    { role: 'tool', content: { acp: 'permissionOutcome', by: 'policy', outcome: { outcome: 'selected', optionId: 'no' } } },
    { role: 'tool', content: { acp: 'permission', request: { toolCall: { title: 'Write b.md' }, options: [] } } },
    { role: 'tool', content: { acp: 'permissionOutcome', by: 'editor', outcome: { outcome: 'cancelled' } } },
    { role: 'system', content: { acp: 'stop', error: { code: -32603, message: 'The agent is not running' } } },
  ]);
  assert.deepEqual(entries, [
    { kind: 'summary', text: 'we spoke of notes' },
    { kind: 'user', text: 'tidy\n[a.md]' },
    { kind: 'thought', text: 'hm' },
    { kind: 'plan', entries: [{ content: 'look', status: 'completed' }] },
    { kind: 'tool', id: 't1', title: 'Read a.md', toolKind: 'read', status: 'completed' },
    { kind: 'agent', text: 'one two' },
    { kind: 'permission', title: 'Delete a.md', outcome: 'Reject', by: 'policy' },
    { kind: 'permission', title: 'Write b.md', outcome: 'cancelled', by: 'editor' },
    { kind: 'stop', reason: 'The agent is not running' },
  ]);
});

it('a permission never answered stays waiting; messages of other faces are left out', () => {
  assert.deepEqual(acpTranscript([
    { role: 'user', content: 'a plain message of the JSON-RPC face' },
    { role: 'tool', content: { acp: 'permission', request: { toolCall: { title: 'Edit' }, options: [] } } },
  ]), [{ kind: 'permission', title: 'Edit', outcome: 'waiting', by: null }]);
});
