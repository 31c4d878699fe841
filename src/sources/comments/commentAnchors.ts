/**
 * Places comment anchors in the transcript: a trace comment points at text the reviewer
 * selected (anchor.selectedText, inside anchor.sourceText), not at an entry index, so the
 * entry is found by searching for that text.
 */
import type { TranscriptEntry, TranscriptSource } from '../../domain/transcript/model.ts';
import type { CommentView } from '../../shared/protocol.ts';

/** Returns the index of the first entry containing the text, or null. */
export type AnchorSearch = (text: string) => Promise<number | null>;

/**
 * A selection this short ("ok", "42") matches almost anywhere, so the surrounding
 * source text, which is more specific, is tried first.
 */
const SPECIFIC_CHARS = 8;

function candidates(anchor: CommentView['anchor']): string[] {
  const selected = anchor?.selectedText?.trim() ?? '';
  const source = anchor?.sourceText?.trim() ?? '';
  const order =
    selected.length < SPECIFIC_CHARS && source.length > selected.length
      ? [source, selected]
      : [selected, source];
  return order.filter((t, i) => t.length > 0 && order.indexOf(t) === i);
}

/**
 * Copies of the threads with entryIndex set where the anchor text was found. One search
 * at a time (a transcript search keeps the state of its last query), each text once.
 */
export async function placeAnchors(
  threads: readonly CommentView[],
  search: AnchorSearch | readonly TranscriptEntry[],
  signal?: AbortSignal,
): Promise<CommentView[]> {
  const find = typeof search === 'function' ? search : searchEntries(search);
  const found = new Map<string, number | null>();
  const placed: CommentView[] = [];
  for (const thread of threads) {
    signal?.throwIfAborted();
    let entryIndex: number | undefined;
    for (const text of candidates(thread.anchor)) {
      if (!found.has(text)) found.set(text, await find(text));
      const index = found.get(text);
      if (index !== null && index !== undefined) {
        entryIndex = index;
        break;
      }
    }
    const copy = { ...thread };
    if (entryIndex === undefined) delete copy.entryIndex;
    else copy.entryIndex = entryIndex;
    placed.push(copy);
  }
  return placed;
}

/** The texts of an entry a reader sees (and a reviewer can select). */
function textsOf(entry: TranscriptEntry): string[] {
  switch (entry.kind) {
    case 'tool-call':
      return [entry.input, entry.output ?? '', entry.summary];
    case 'error':
      return [entry.excerpt];
    case 'unknown':
      return [entry.raw];
    default:
      return [entry.text];
  }
}

/** Search over entries already in memory (a window, or a MemoryTranscript's list). */
export function searchEntries(entries: readonly TranscriptEntry[]): AnchorSearch {
  return async (text) =>
    entries.find((e) => textsOf(e).some((t) => t.includes(text)))?.index ?? null;
}

/**
 * Search over a whole transcript (a TranscriptDocument streams the file). Searches see
 * only what is indexed: place anchors after `whenIndexed()`, or late ones stay unplaced.
 */
export function searchTranscript(source: TranscriptSource): AnchorSearch {
  return async (text) => (await source.search(text, { caseSensitive: true, wrap: false })).index;
}
