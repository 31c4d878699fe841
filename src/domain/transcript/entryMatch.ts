/** Search over normalized entries, shared by file and in-memory transcripts. */
import type { SearchOptions, SearchResult, TranscriptEntry } from './model.ts';
import { lowerBound, upperBound } from '../../util/sortedSearch.ts';

/** The texts a user sees for an entry (what a search should find). */
export function entryTexts(entry: TranscriptEntry): string[] {
  switch (entry.kind) {
    case 'tool-call':
      return [entry.name, entry.summary, entry.input, entry.output ?? ''];
    case 'error':
      return [entry.message, entry.excerpt];
    case 'unknown':
      return [entry.type, entry.raw];
    case 'system':
      return [entry.subtype, entry.text];
    case 'subagent':
      return [entry.text, entry.agentId, entry.description ?? '', entry.agentType ?? ''];
    default:
      return [entry.text];
  }
}

export interface Needle {
  text: string;
  caseSensitive: boolean;
}

export function needleOf(query: string, caseSensitive: boolean): Needle {
  return { text: caseSensitive ? query : query.toLowerCase(), caseSensitive };
}

export function textMatches(text: string, needle: Needle): boolean {
  if (!text) return false;
  return (needle.caseSensitive ? text : text.toLowerCase()).includes(needle.text);
}

export function entryMatches(entry: TranscriptEntry, needle: Needle): boolean {
  return entryTexts(entry).some((t) => textMatches(t, needle));
}

/** Picks the next/previous match from sorted entry indices. */
export function pickMatch(
  sorted: readonly number[],
  options: SearchOptions,
  complete: boolean,
): SearchResult {
  const total = sorted.length;
  if (total === 0) return { index: null, ordinal: 0, total, complete };
  const wrap = options.wrap ?? true;
  let position: number;
  if ((options.direction ?? 'next') === 'next') {
    const from = options.from ?? -1;
    position = upperBound(sorted, from);
    if (position >= total) position = wrap ? 0 : -1;
  } else {
    const from = options.from ?? Number.POSITIVE_INFINITY;
    position = lowerBound(sorted, from) - 1;
    if (position < 0) position = wrap ? total - 1 : -1;
  }
  if (position < 0) return { index: null, ordinal: 0, total, complete };
  return { index: sorted[position]!, ordinal: position + 1, total, complete };
}
