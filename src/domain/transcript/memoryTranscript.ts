/**
 * A TranscriptSource over entries already in memory (Itential describe_session, REST agent
 * events: already paged and small). Holds the full texts; windows get capped copies, so
 * the webview sees the same shapes and `fullText()` contract as for a file.
 */
import { entryMatches, needleOf, pickMatch } from './entryMatch.ts';
import {
  PREVIEW_CHARS,
  type SearchOptions,
  type SearchResult,
  type TextPart,
  type TranscriptEntry,
  type TranscriptFormat,
  type TranscriptInfo,
  type TranscriptSource,
  type TranscriptWindow,
} from './model.ts';
import { capEntry } from './normalize/entries.ts';
import { normalizeItentialSession } from './normalize/itential.ts';
import { normalizeRestEvents } from './normalize/restEvents.ts';

export class MemoryTranscript implements TranscriptSource {
  readonly format: TranscriptFormat;
  private readonly entries: readonly TranscriptEntry[];
  private readonly previewChars: number;
  private readonly errors: number[];
  private last: { key: string; matches: number[] } | null = null;

  /** `entries` uncapped, with index === position. */
  constructor(
    format: TranscriptFormat,
    entries: readonly TranscriptEntry[],
    options: { previewChars?: number } = {},
  ) {
    this.format = format;
    this.entries = entries;
    this.previewChars = options.previewChars ?? PREVIEW_CHARS;
    this.errors = entries.filter((e) => e.kind === 'error').map((e) => e.index);
  }

  static fromItential(describeSession: unknown, tokenUsage?: unknown): MemoryTranscript {
    return new MemoryTranscript(
      'itential',
      normalizeItentialSession(describeSession, { tokenUsage }),
    );
  }

  static fromRestEvents(events: readonly unknown[]): MemoryTranscript {
    return new MemoryTranscript('rest-events', normalizeRestEvents(events));
  }

  get entryCount(): number {
    return this.entries.length;
  }

  info(): TranscriptInfo {
    return {
      format: this.format,
      entryCount: this.entries.length,
      errorCount: this.errors.length,
      hidden: {},
      complete: true,
    };
  }

  async getWindow(start: number, count: number): Promise<TranscriptWindow> {
    const total = this.entries.length;
    const s = Math.min(total, Math.max(0, Math.floor(start) || 0));
    const e = Math.min(total, s + Math.max(0, Math.floor(count) || 0));
    const entries = this.entries.slice(s, e).map((entry) => capEntry(entry, this.previewChars));
    return { start: s, entries, total, complete: true };
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    if (!query) return { index: null, ordinal: 0, total: 0, complete: true };
    const caseSensitive = options.caseSensitive ?? false;
    const key = `${caseSensitive ? 'c' : 'i'}:${query}`;
    if (this.last?.key !== key) {
      const needle = needleOf(query, caseSensitive);
      const matches = this.entries.filter((e) => entryMatches(e, needle)).map((e) => e.index);
      this.last = { key, matches };
    }
    return pickMatch(this.last.matches, options, true);
  }

  nextError(from: number, direction: 'next' | 'previous' = 'next'): number | null {
    if (direction === 'next') return this.errors.find((i) => i > from) ?? null;
    return this.errors.findLast((i) => i < from) ?? null;
  }

  async fullText(entryIndex: number, part: TextPart = 'text'): Promise<string | null> {
    const entry = this.entries[entryIndex];
    if (!entry) return null;
    if (part === 'text') {
      if (entry.kind === 'tool-call') return null;
      if (entry.kind === 'unknown') return entry.raw;
      if (entry.kind === 'error') return entry.excerpt;
      return entry.text;
    }
    if (entry.kind !== 'tool-call') return null;
    return (part === 'input' ? entry.input : entry.output) ?? null;
  }
}
