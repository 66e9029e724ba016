// Search over every conversation (`session/search`): the box in the Sessions view, ranked hits
// with their matches marked, more on request (the cursor), and each hit opening its session's
// transcript (`session/messages`) at the message that matched, marked.
import { rpc } from './rpc.js';
import { hitLabel, snippetParts } from './search-text.js';
import { describeError, formatTime, h, toast } from './ui.js';

const $ = (id) => document.getElementById(id);
const transcriptLimit = 5000; // messages shown in one transcript

let current = null; // { query, cursor, total } of the results shown

function snippet(hit) {
  return snippetParts(hit.snippet, hit.snippetStart, hit.matches)
    .map((p) => (p.match ? h('mark', {}, p.text) : p.text));
}

function hitRow(hit) {
  return h('li.search-hit.session-hit', {
    dataset: { sessionId: hit.sessionId, item: hit.messageId ?? hit.toolCallId, kind: hit.kind },
    onclick: () => openTranscript(hit),
  },
  h('div.hit-path', {}, hit.sessionTitle || 'Untitled session',
    h('span.muted', {}, ` · ${hitLabel(hit)} · ${formatTime(hit.at)}`)),
  h('div.hit-text', {}, snippet(hit)));
}

async function searchSessions(query, more = false) {
  if (!query) {
    current = null;
    $('session-search-results').hidden = true;
    return;
  }
  try {
    const params = { query, limit: 20, ...(more && current?.cursor ? { cursor: current.cursor } : {}) };
    const page = await rpc('session/search', params);
    const list = $('session-search-list');
    if (!more) list.replaceChildren();
    list.append(...page.hits.map(hitRow));
    current = { query, cursor: page.nextCursor, total: page.totalHits };
    const n = page.totalHits;
    $('session-search-title').textContent =
      `${n} hit${n === 1 ? '' : 's'} in ${page.sessionsSearched} session${page.sessionsSearched === 1 ? '' : 's'} for “${query}”`;
    $('session-search-more').hidden = !page.nextCursor;
    if (!n) list.append(h('li.empty-row.muted', {}, 'Nothing found.'));
    $('session-search-results').hidden = false;
  } catch (error) {
    toast(`Search failed: ${describeError(error)}`, 'error');
  }
}

function contentText(content) {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

/** Shows the session's messages (the compacted originals too when the hit is one), the one that
 *  matched marked and scrolled to. */
export async function openTranscript(hit) {
  const messages = [];
  try {
    let after;
    do {
      const page = await rpc('session/messages', {
        id: hit.sessionId, limit: 1000, includeCompacted: Boolean(hit.compactedBy), ...(after ? { after } : {}),
      });
      messages.push(...page.messages);
      after = page.messages.length === 1000 ? page.messages.at(-1).id : undefined;
      // an original of a compacted run is no cursor: the next page starts after its summary
      if (after && page.messages.at(-1).compactedBy) after = page.messages.at(-1).compactedBy;
    } while (after && messages.length < transcriptLimit);
  } catch (error) {
    toast(`Could not open the conversation: ${describeError(error)}`, 'error');
    return;
  }
  const target = (m) => (hit.kind === 'message' ? m.id === hit.messageId : m.toolCallId === hit.toolCallId);
  const rows = messages.map((m) => h(`div.message.${m.role}${target(m) ? '.hit' : ''}`, { dataset: { id: m.id } },
    h('span.role', {}, m.compactedBy ? `${m.role} ·` : m.role),
    h('span.content', {}, target(m) && hit.kind === 'message' && hit.field === 'content' ? snippetInContext(m, hit) : contentText(m.content))));
  $('session-transcript-title').textContent = `${hit.sessionTitle || 'Untitled session'} — ${hitLabel(hit)}`;
  $('session-transcript-note').textContent = hit.kind === 'toolCall'
    ? `Tool call ${hit.toolCallId} (${hit.toolName}): “${hit.snippet}”` : '';
  $('session-transcript-list').replaceChildren(...rows);
  $('session-transcript').hidden = false;
  $('session-transcript').dataset.sessionId = hit.sessionId;
  ($('session-transcript-list').querySelector('.message.hit') ?? $('session-transcript')).scrollIntoView({ block: 'center' });
}

/** A string content with every match the hit reports marked (offsets are the content's own). */
function snippetInContext(m, hit) {
  if (typeof m.content !== 'string') return contentText(m.content);
  return snippetParts(m.content, 0, hit.matches).map((p) => (p.match ? h('mark', {}, p.text) : p.text));
}

export function setupSessionSearch() {
  $('session-search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    searchSessions($('session-search-input').value.trim());
  });
  $('session-search-input').addEventListener('search', () => {
    if (!$('session-search-input').value.trim()) searchSessions('');
  });
  $('session-search-more').addEventListener('click', () => searchSessions(current?.query ?? '', true));
  $('session-transcript-close').addEventListener('click', () => { $('session-transcript').hidden = true; });
}
