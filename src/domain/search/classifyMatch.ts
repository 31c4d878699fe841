/**
 * Which transcript entry a match in a raw JSONL line belongs to, asked of the format's
 * own normalizer (the one the transcript view uses), so search and the panel agree on
 * what a line shows: a match in a string the line's entries show gets that entry's kind
 * and time; a match elsewhere (ids, paths in metadata, keys) is 'metadata'.
 */
import { entryTexts } from '../transcript/entryMatch.ts';
import type { EntryKind, FileFormat, TranscriptEntry } from '../transcript/model.ts';
import { claudeCodeFormat } from '../transcript/normalize/claudeCode.ts';
import { codexFormat } from '../transcript/normalize/codex.ts';
import type { NormalizedRecord } from '../transcript/normalize/types.ts';

/** What a search result says about where it was found. */
export type MatchKind = EntryKind | 'tool-output' | 'metadata';

/** The entry-kind filter of a search. */
export type KindFilter = 'all' | 'user' | 'assistant' | 'tool';

export interface MatchClass {
  kind: MatchKind;
  /** ISO time of the entry (or of the tool result), when the line has one. */
  timestamp?: string;
}

/** The line's entries, normalized without caps; undefined when the line is not JSON. */
export function normalizeLine(
  format: FileFormat,
  text: string,
  line: number,
): NormalizedRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const adapter = format === 'codex' ? codexFormat : claudeCodeFormat;
  try {
    return adapter.normalize(value, {
      record: 0,
      source: { first: line, last: line },
      maxChars: Number.POSITIVE_INFINITY,
      pairedHere: () => true,
      subagentPath: () => undefined,
      cwd: undefined,
    });
  } catch {
    return undefined;
  }
}

/**
 * The kind of a match whose decoded text is `text`, given its line normalized (undefined:
 * the line is not JSON, so it shows as an error entry).
 */
export function classifyMatch(record: NormalizedRecord | undefined, text: string): MatchClass {
  if (!record) return { kind: 'error' };
  const has = (s: string | undefined) => Boolean(s) && s!.includes(text);
  const entry: TranscriptEntry | undefined = record.entries.find(
    (e) => e.kind !== 'unknown' && entryTexts(e).some(has),
  );
  if (entry) return withTime(entry.kind, entry.timestamp);
  const result = record.results.find((r) => has(r.output));
  if (result) return withTime('tool-output', result.timestamp);
  // An unknown record shows its JSON whole: any match in it is visible.
  const unknown = record.entries.find((e) => e.kind === 'unknown');
  if (unknown) return withTime('unknown', unknown.timestamp);
  return withTime('metadata', record.entries[0]?.timestamp);
}

function withTime(kind: MatchKind, timestamp: string | undefined): MatchClass {
  return timestamp ? { kind, timestamp } : { kind };
}

/** Whether a match of this kind passes the entry-kind filter ('metadata' never does). */
export function kindPasses(kind: MatchKind, filter: KindFilter): boolean {
  if (kind === 'metadata') return false;
  switch (filter) {
    case 'all':
      return true;
    case 'user':
      return kind === 'user';
    case 'assistant':
      return kind === 'assistant' || kind === 'thinking';
    case 'tool':
      return kind === 'tool-call' || kind === 'tool-output' || kind === 'subagent';
  }
}
