// What a `session/search` hit shows, without the DOM (so node tests it directly): the snippet cut
// into plain and matched parts. The server's offsets count UTF-16 code units from the start of
// the field, as JavaScript strings index, so a match is at `start - snippetStart` in the snippet.

/** `[{text, match}]` covering `snippet`, the matches (clipped to the snippet) marked. */
export function snippetParts(snippet, snippetStart, matches) {
  const parts = [];
  let at = 0;
  for (const m of matches ?? []) {
    const from = Math.max(at, m.start - snippetStart);
    const to = Math.min(snippet.length, m.start - snippetStart + m.length);
    if (to <= from) continue;
    if (from > at) parts.push({ text: snippet.slice(at, from), match: false });
    parts.push({ text: snippet.slice(from, to), match: true });
    at = to;
  }
  if (at < snippet.length || !parts.length) parts.push({ text: snippet.slice(at), match: false });
  return parts;
}

/** What a hit is, in a few words: `user message`, `summary`, `write_file arguments`, … */
export function hitLabel(hit) {
  if (hit.kind === 'toolCall') return `${hit.toolName} ${hit.field === 'name' ? 'call' : hit.field}`;
  if (hit.summary) return 'summary of compacted messages';
  const what = `${hit.role} message${hit.field === 'toolCalls' ? ' (tool calls)' : ''}`;
  return hit.compactedBy ? `${what}, compacted` : what;
}
