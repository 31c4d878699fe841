/**
 * A transcript file (Claude Code or Codex JSONL) as a TranscriptSource: indexed by
 * streaming, read back by windows of entries, never held in memory.
 *
 * Entries are not lines: a record (usually one line) yields 0..n entries — tool results
 * fold into their calls, bookkeeping lines are hidden, one assistant line per content
 * block. Indexing scans every record once without JSON.parse and records how many entries
 * it yields (see RecordIndex), so entry i maps to its record by binary search and a window
 * parses only its own records plus, for pairing and usage, the few records they point to.
 * Tool results pair with their calls by id through a map built in the same pass, however
 * far apart they are.
 *
 * open() returns as soon as the first `readyEntries` entries are indexed; indexing goes on
 * in the background (entryCount grows, onProgress reports it). refresh() indexes only
 * what was appended — a live session's half-written last line is `pending`, not an error.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { detectFormat } from './formatDetect.ts';
import { JsonlIndex, type IndexRun } from './jsonlIndex.ts';
import { pickMatch } from './entryMatch.ts';
import {
  PREVIEW_CHARS,
  type FileFormat,
  type SearchOptions,
  type SearchResult,
  type TextPart,
  type TranscriptEntry,
  type TranscriptInfo,
  type TranscriptSource,
  type TranscriptWindow,
} from './model.ts';
import { claudeCodeFormat } from './normalize/claudeCode.ts';
import { codexFormat } from './normalize/codex.ts';
import { applyResult } from './normalize/entries.ts';
import { RK_MODEL, type FormatAdapter } from './normalize/types.ts';
import { RecordIndex } from './recordIndex.ts';
import { RecordReader } from './recordReader.ts';
import { TranscriptSearch } from './transcriptSearch.ts';
import { claudeTurnUsage, codexTurnUsage, type RecordAccess } from './turnUsage.ts';

/** Largest window served at once (a virtualized list asks for a screenful or two). */
export const MAX_WINDOW = 1000;
/** Bytes read to detect the format. */
const SNIFF_BYTES = 256 * 1024;

export interface TranscriptProgress {
  bytesIndexed: number;
  totalBytes: number;
  lineCount: number;
  entryCount: number;
  done: boolean;
}

export interface OpenTranscriptOptions {
  /** Default 'auto': detected from the first records (Claude Code when unclear). */
  format?: FileFormat | 'auto';
  /** open() resolves once this many entries are indexed, or at the end (default 100). */
  readyEntries?: number;
  /** Read size while indexing (default 4 MiB). */
  chunkBytes?: number;
  /** Characters kept per text field in windows (default PREVIEW_CHARS). */
  previewChars?: number;
  /** After every indexed chunk, and with done: true at the end of each run. */
  onProgress?: (progress: TranscriptProgress) => void;
}

export interface RefreshResult {
  entryCount: number;
  /** Entries added by this refresh (all of them after a reset). */
  appendedEntries: number;
  /** The file had shrunk or been replaced: indices before this refresh are void. */
  reset: boolean;
}

export class TranscriptDocument implements TranscriptSource {
  readonly path: string;
  readonly format: FileFormat;
  private readonly adapter: FormatAdapter;
  private readonly records: RecordIndex;
  private readonly previewChars: number;
  private lines!: JsonlIndex;
  private reader!: RecordReader;
  private searcher!: TranscriptSearch;
  private runs = 0;
  private lastRun: Promise<IndexRun> = Promise.resolve({ appendedLines: 0, reset: false });

  private constructor(path: string, adapter: FormatAdapter, previewChars: number) {
    this.path = path;
    this.adapter = adapter;
    this.format = adapter.format;
    this.records = new RecordIndex(adapter);
    this.previewChars = previewChars;
  }

  static async open(
    path: string,
    options: OpenTranscriptOptions = {},
  ): Promise<TranscriptDocument> {
    let format = options.format ?? 'auto';
    if (format === 'auto') format = (await sniffFormat(path)) ?? 'claude-code';
    const adapter = format === 'codex' ? codexFormat : claudeCodeFormat;
    const doc = new TranscriptDocument(path, adapter, options.previewChars ?? PREVIEW_CHARS);
    const readyEntries = options.readyEntries ?? 100;
    let ready!: () => void;
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    doc.lines = await JsonlIndex.open(path, {
      chunkBytes: options.chunkBytes,
      sink: doc.records,
      onProgress: (p) => {
        const entryCount = doc.records.entryCount;
        options.onProgress?.({ ...p, entryCount });
        if (entryCount >= readyEntries || p.done) ready();
      },
    });
    doc.reader = new RecordReader(doc.lines, doc.records, adapter, {
      previewChars: doc.previewChars,
      subagentPath: (agentId) =>
        format === 'claude-code' ? subagentFile(path, agentId) : undefined,
    });
    doc.searcher = new TranscriptSearch(doc.lines, doc.records, doc.reader);
    const first = doc.refresh();
    // A failure after open() returned surfaces through whenIndexed(), not as an
    // unhandled rejection in the extension host.
    first.catch(() => undefined);
    await Promise.race([isReady, first]);
    return doc;
  }

  get entryCount(): number {
    return this.records.entryCount;
  }

  /** False while an indexing run is in flight. */
  get complete(): boolean {
    return this.runs === 0;
  }

  /** Resolves when the current indexing run (the first one, or a refresh) is done; rejects if it failed. */
  async whenIndexed(): Promise<void> {
    await this.lastRun;
  }

  /** Records with entries that did not match their plan (0 unless a format has a bug). */
  get fitCorrections(): number {
    return this.reader.fitCorrections;
  }

  /** Index memory: line offsets, record arrays and the chunk buffer (pairing maps excluded). */
  get indexBytes(): number {
    const r = this.records;
    return (
      this.lines.memoryBytes +
      [r.firstLine, r.lastLine, r.kinds, r.rows, r.entryStarts, r.groups, r.errorRecords].reduce(
        (n, g) => n + g.byteLength,
        0,
      )
    );
  }

  info(): TranscriptInfo {
    const complete = this.complete;
    return {
      format: this.format,
      entryCount: this.entryCount,
      errorCount: this.records.errorRecords.length,
      hidden: Object.fromEntries(this.records.hidden),
      complete,
      path: this.path,
      byteSize: this.lines.fileSize,
      lineCount: this.lines.lineCount,
      indexedBytes: this.lines.indexedBytes,
      pending: complete ? this.pending() : null,
    };
  }

  private pending(): { firstLine: number; bytes: number } | null {
    const open = this.records.openRecordLine;
    if (open >= 0)
      return { firstLine: open + 1, bytes: this.lines.fileSize - this.lines.lineStart(open) };
    if (this.lines.pendingBytes > 0)
      return { firstLine: this.lines.lineCount + 1, bytes: this.lines.pendingBytes };
    return null;
  }

  /** Indexes what was appended since the last run (a shrunk file is indexed again). */
  async refresh(): Promise<RefreshResult> {
    const before = this.entryCount;
    this.runs++;
    const run = this.lines.refresh();
    this.lastRun = run;
    try {
      const { reset } = await run;
      if (reset) {
        this.reader.clear();
        this.searcher.reset();
      }
      return {
        entryCount: this.entryCount,
        appendedEntries: reset ? this.entryCount : this.entryCount - before,
        reset,
      };
    } finally {
      this.runs--;
    }
  }

  async getWindow(start: number, count: number): Promise<TranscriptWindow> {
    const total = this.entryCount;
    const s = clampInt(start, 0, total);
    const e = Math.min(total, s + clampInt(count, 0, MAX_WINDOW));
    const complete = this.complete;
    if (e <= s) return { start: s, entries: [], total, complete };
    const rec = this.records;
    const r0 = rec.recordOfEntry(s);
    const r1 = rec.recordOfEntry(e - 1);
    const normalized = await this.reader.range(r0, r1);
    const entries: TranscriptEntry[] = [];
    const lastOf = new Map<number, TranscriptEntry>(); // model record → its last entry in the window
    normalized.forEach((n, i) => {
      for (const entry of n.entries) {
        if (entry.index < s || entry.index >= e) continue;
        const copy = copyEntry(entry);
        entries.push(copy);
        if (entry.index === rec.entryStarts.at(r0 + i) + rec.rows.at(r0 + i) - 1)
          lastOf.set(r0 + i, copy);
      }
    });
    await this.pair(entries);
    await this.attachUsage(lastOf);
    return { start: s, entries, total, complete };
  }

  /** Puts results on tool calls and the call's subagent type/description on subagent links. */
  private async pair(entries: TranscriptEntry[]): Promise<void> {
    const { calls, results, abandoned } = this.records.pairing;
    for (const entry of entries) {
      if (entry.kind === 'tool-call' && entry.callId && !entry.orphanResult) {
        const r = results.get(entry.callId);
        if (r === undefined) {
          if (entry.status === 'pending' && abandoned.has(entry.callId)) entry.status = 'abandoned';
          continue;
        }
        const part = (await this.reader.normalized(r)).results.find(
          (p) => p.callId === entry.callId,
        );
        if (part) applyResult(entry, part, this.previewChars);
      } else if (entry.kind === 'subagent' && entry.callId) {
        const r = calls.get(entry.callId);
        if (r === undefined) continue;
        const info = (await this.reader.normalized(r)).subagentCalls?.[entry.callId];
        if (info?.agentType) entry.agentType = info.agentType;
        if (info?.description) entry.description = info.description;
      }
    }
  }

  private async attachUsage(lastOf: Map<number, TranscriptEntry>): Promise<void> {
    const rec = this.records;
    const access: RecordAccess = {
      recordCount: rec.recordCount,
      kind: (r) => rec.kinds.at(r),
      group: (r) => rec.groups.at(r),
      normalized: (r) => this.reader.normalized(r),
    };
    const turnUsage = this.format === 'codex' ? codexTurnUsage : claudeTurnUsage;
    for (const [r, entry] of lastOf) {
      if (rec.kinds.at(r) !== RK_MODEL) continue;
      const usage = await turnUsage(r, access);
      if (usage) entry.usage = usage;
    }
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    const complete = this.complete;
    if (!query) return { index: null, ordinal: 0, total: 0, complete };
    const matches = await this.searcher.matches(query, options.caseSensitive ?? false);
    return pickMatch(matches, options, complete);
  }

  nextError(from: number, direction: 'next' | 'previous' = 'next'): number | null {
    const rec = this.records;
    const errors = rec.errorRecords;
    // Error records yield exactly one entry each: their entry index is their entry start.
    const at = (i: number) => rec.entryStarts.at(errors.at(i));
    // First error position whose entry is > from (next) or >= from (previous).
    const strict = direction === 'next';
    let lo = 0;
    let hi = errors.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (strict ? at(mid) <= from : at(mid) < from) lo = mid + 1;
      else hi = mid;
    }
    const position = strict ? lo : lo - 1;
    return position >= 0 && position < errors.length ? at(position) : null;
  }

  async fullText(entryIndex: number, part: TextPart = 'text'): Promise<string | null> {
    if (!Number.isInteger(entryIndex) || entryIndex < 0 || entryIndex >= this.entryCount)
      return null;
    const rec = this.records;
    const r = rec.recordOfEntry(entryIndex);
    const [text = ''] = await this.reader.texts(r, r);
    const entry = this.reader.normalizeText(r, text, Number.POSITIVE_INFINITY).entries[
      entryIndex - rec.entryStarts.at(r)
    ];
    if (!entry) return null;
    if (part === 'text') {
      if (entry.kind === 'error') return text;
      if (entry.kind === 'unknown') return entry.raw;
      if (entry.kind === 'tool-call') return null;
      return entry.text;
    }
    if (entry.kind !== 'tool-call') return null;
    if (part === 'input') return entry.input;
    if (entry.orphanResult) return entry.output ?? null;
    const resultRecord = rec.pairing.results.get(entry.callId);
    if (resultRecord === undefined) return null;
    const [resultText = ''] = await this.reader.texts(resultRecord, resultRecord);
    const result = this.reader
      .normalizeText(resultRecord, resultText, Number.POSITIVE_INFINITY)
      .results.find((p) => p.callId === entry.callId);
    return result?.output ?? null;
  }

  async close(): Promise<void> {
    await this.lines.close();
  }
}

function clampInt(value: number, min: number, max: number): number {
  if (!Number.isFinite(value)) return value > 0 ? max : min;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

/** A copy the window may decorate (results, usage) without touching the cache. */
function copyEntry(entry: TranscriptEntry): TranscriptEntry {
  const copy = { ...entry };
  if (entry.truncatedParts) copy.truncatedParts = [...entry.truncatedParts];
  if (entry.fullLength) copy.fullLength = { ...entry.fullLength };
  return copy;
}

/**
 * Claude Code 2.1.x keeps a session's subagents in `<sessionId>/subagents/agent-<id>.jsonl`
 * next to `<sessionId>.jsonl`; a subagent file's own subagents sit beside it. 2.0.x wrote
 * them as `agent-<id>.jsonl` beside the session file: that one, when it is there and the
 * 2.1.x one is not.
 */
export function subagentFile(transcriptPath: string, agentId: string): string {
  const dir = dirname(transcriptPath);
  const file = `agent-${agentId}.jsonl`;
  if (basename(dir) === 'subagents') return join(dir, file);
  const nested = join(dir, basename(transcriptPath, '.jsonl'), 'subagents', file);
  const flat = join(dir, file);
  return !existsSync(nested) && existsSync(flat) ? flat : nested;
}

async function sniffFormat(path: string): Promise<FileFormat | undefined> {
  const lines = await JsonlIndex.open(path, {});
  try {
    const head = (await lines.readBytes(0, SNIFF_BYTES)).toString('utf8').split('\n');
    if (head.length > 1) head.pop(); // maybe cut mid-line
    return detectFormat(head);
  } finally {
    await lines.close();
  }
}
