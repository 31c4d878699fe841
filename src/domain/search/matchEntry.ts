/**
 * The transcript entry a search match belongs to, given the JSONL line it was found on
 * (1-based) and its decoded text: the entry the line produced whose visible text holds
 * the match, or — for a tool result, which folds into its call's entry — the nearest
 * entry at or before the line whose text holds it. Works on any TranscriptSource, by
 * binary search over entries' source lines (a window of one entry per probe).
 */
import { entryTexts } from '../transcript/entryMatch.ts';
import type { TranscriptEntry, TranscriptSource } from '../transcript/model.ts';

export interface MatchTarget {
  line: number;
  text: string;
  caseSensitive: boolean;
}

export async function entryForMatch(
  source: TranscriptSource,
  target: MatchTarget,
): Promise<number | undefined> {
  const count = source.entryCount;
  if (count === 0) return undefined;
  const entryAt = async (i: number): Promise<TranscriptEntry | undefined> =>
    (await source.getWindow(i, 1)).entries[0];
  // Last entry whose first line is at or before the match's line.
  let lo = 0;
  let hi = count - 1;
  let floor = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const entry = await entryAt(mid);
    if (entry && entry.source.first <= target.line) {
      floor = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  const holds = (entry: TranscriptEntry) => {
    const needle = target.caseSensitive ? target.text : target.text.toLowerCase();
    return entryTexts(entry).some((t) =>
      (target.caseSensitive ? t : t.toLowerCase()).includes(needle),
    );
  };
  // The line's own entries (a record yields several: one per content block).
  for (let i = floor; i >= 0; i--) {
    const entry = await entryAt(i);
    if (!entry || entry.source.last < target.line) break;
    if (holds(entry)) return i;
  }
  // A tool result: its call's entry, at or before the line (the call whose result span
  // holds the line, else the nearest entry holding the text).
  let nearest: number | undefined;
  let from = floor + 1;
  for (let step = 0; step < 64; step++) {
    const found = await source.search(target.text, {
      from,
      direction: 'previous',
      caseSensitive: target.caseSensitive,
      wrap: false,
    });
    if (found.index === null) break;
    nearest ??= found.index;
    const entry = await entryAt(found.index);
    const span = entry?.kind === 'tool-call' ? entry.resultSource : undefined;
    if (span && span.first <= target.line && target.line <= span.last) return found.index;
    from = found.index;
  }
  if (nearest !== undefined) return nearest;
  if (floor < 0) return undefined;
  // Found in the raw file but in no entry's text (metadata): the line's entry, unmarked.
  return floor;
}
