/**
 * The one normalized transcript model for every source (Claude Code and Codex JSONL files,
 * Itential describe_session, REST agent events). Entries are plain data — no classes, no
 * functions, no Maps — because they cross to the webview with postMessage.
 *
 * Long texts are capped at `PREVIEW_CHARS` per field; the entry says which parts were
 * cut (`truncatedParts`, `fullLength`) and `TranscriptSource.fullText()` returns one part
 * in full on request.
 */
import type { SearchResult, TextPart, TranscriptEntry } from '../../shared/transcriptEntries.ts';

/** Characters kept per text field of an entry in a window; `fullText()` returns the rest. */
export const PREVIEW_CHARS = 20_000;
/** Characters kept in an error entry's excerpt of the malformed line. */
export const EXCERPT_CHARS = 240;

export type TranscriptFormat = 'claude-code' | 'codex' | 'itential' | 'rest-events';
/** Formats read from JSONL files. */
export type FileFormat = 'claude-code' | 'codex';

/** The entry types live in src/shared, where the webview app can import them too. */
export type {
  EntryKind,
  TextPart,
  SourceSpan,
  TokenUsage,
  FileRef,
  Attachment,
  SubagentRef,
  UserEntry,
  AssistantEntry,
  ThinkingEntry,
  ToolCallEntry,
  CompactionEntry,
  SystemEntry,
  SubagentEntry,
  ErrorEntry,
  UnknownEntry,
  TranscriptEntry,
  SearchResult,
} from '../../shared/transcriptEntries.ts';

/** A contiguous slice of entries. */
export interface TranscriptWindow {
  start: number;
  entries: TranscriptEntry[];
  /** entryCount when the window was built. */
  total: number;
  /** False while the source is still being indexed (total may grow). */
  complete: boolean;
}

export interface SearchOptions {
  /** Entry index to search from (exclusive). Default: before the first / after the last. */
  from?: number;
  direction?: 'next' | 'previous';
  caseSensitive?: boolean;
  /** Continue from the other end when nothing lies in `direction` (default true). */
  wrap?: boolean;
}

export interface TranscriptInfo {
  format: TranscriptFormat;
  entryCount: number;
  errorCount: number;
  /** Records not shown as entries, by type (file-history-snapshot, turn_context, …). */
  hidden: Record<string, number>;
  complete: boolean;
  /** File sources only. */
  path?: string;
  byteSize?: number;
  lineCount?: number;
  indexedBytes?: number;
  /** An unfinished record at the end of a live file (not an error; read again on refresh). */
  pending?: { firstLine: number; bytes: number } | null;
}

/**
 * What the webview host talks to, for a file (TranscriptDocument) or an in-memory list
 * (MemoryTranscript). Every method result is plain data.
 */
export interface TranscriptSource {
  readonly entryCount: number;
  info(): TranscriptInfo;
  getWindow(start: number, count: number): Promise<TranscriptWindow>;
  search(query: string, options?: SearchOptions): Promise<SearchResult>;
  /** Next (or previous) error entry strictly after (before) `from`; null when none. */
  nextError(from: number, direction?: 'next' | 'previous'): number | null;
  /** The untruncated text of one part of one entry; null when the entry has no such part. */
  fullText(entryIndex: number, part?: TextPart): Promise<string | null>;
}
