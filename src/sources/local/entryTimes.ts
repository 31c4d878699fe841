/**
 * The times a scanner keeps for its summary: of the first and last entries, and of the
 * entry that decides the status. A timestamp in the canonical ISO form (which
 * Fields.isoMs reads from the bytes) is kept as ms only and its text rebuilt for the
 * summary; any other form keeps its text as written.
 */
import type { Fields } from '../../domain/json/skim.ts';
import { nullable, orNaN, type EntryTimesState } from './scannerState.ts';
import { timeText } from './text.ts';
import type { FileSummary } from './types.ts';

export class EntryTimes {
  firstMs = NaN;
  lastMs = NaN;
  private firstText: string | undefined;
  private lastText: string | undefined;
  private entryMs = NaN;
  private entryText: string | undefined;
  private decidingMs = NaN;
  private decidingText: string | undefined;

  /** Reads the `timestamp` of the entry being read (see entry); returns its ms or NaN. */
  read(f: Fields): number {
    const ms = f.isoMs('timestamp');
    if (!Number.isNaN(ms)) {
      this.entry(ms, undefined);
      return ms;
    }
    const text = f.str('timestamp');
    const parsed = text ? Date.parse(text) : NaN;
    this.entry(parsed, text);
    return parsed;
  }

  /** The time of the entry being read: NaN without one; `text` only when not canonical. */
  entry(ms: number, text: string | undefined): void {
    this.entryMs = ms;
    this.entryText = text;
    if (!Number.isFinite(ms)) return;
    if (!(ms >= this.firstMs)) {
      this.firstMs = ms;
      this.firstText = text;
    }
    if (!(ms <= this.lastMs)) {
      this.lastMs = ms;
      this.lastText = text;
    }
  }

  /**
   * A time the file names as its start (Codex session_meta's `timestamp`): the first time
   * when it is earlier than every entry's; the entry being read keeps its own.
   */
  earlier(ms: number, text: string | undefined): void {
    if (!Number.isFinite(ms) || ms >= this.firstMs) return;
    this.firstMs = ms;
    this.firstText = text;
  }

  /** The entry being read decides the status so far. */
  decides(): void {
    this.decidingMs = this.entryMs;
    this.decidingText = this.entryText;
  }

  /** Takes the deciding entry's time from another (a second pass over the file's end). */
  decidingFrom(other: EntryTimes): void {
    this.decidingMs = other.decidingMs;
    this.decidingText = other.decidingText;
  }

  /** As plain data (see scannerState.ts). */
  save(): EntryTimesState {
    const s: EntryTimesState = {
      firstMs: nullable(this.firstMs),
      lastMs: nullable(this.lastMs),
      entryMs: nullable(this.entryMs),
      decidingMs: nullable(this.decidingMs),
    };
    if (this.firstText !== undefined) s.firstText = this.firstText;
    if (this.lastText !== undefined) s.lastText = this.lastText;
    if (this.entryText !== undefined) s.entryText = this.entryText;
    if (this.decidingText !== undefined) s.decidingText = this.decidingText;
    return s;
  }

  restore(s: EntryTimesState): void {
    this.firstMs = orNaN(s.firstMs);
    this.lastMs = orNaN(s.lastMs);
    this.entryMs = orNaN(s.entryMs);
    this.decidingMs = orNaN(s.decidingMs);
    this.firstText = s.firstText;
    this.lastText = s.lastText;
    this.entryText = s.entryText;
    this.decidingText = s.decidingText;
  }

  /** A summary's first/last timestamps and its deciding entry's (`last.timestamp`). */
  fill(s: FileSummary): void {
    const first = timeText(this.firstMs, this.firstText);
    if (first) s.firstTimestamp = first;
    const last = timeText(this.lastMs, this.lastText);
    if (last) s.lastTimestamp = last;
    const deciding = timeText(this.decidingMs, this.decidingText);
    if (deciding) s.last.timestamp = deciding;
  }
}
