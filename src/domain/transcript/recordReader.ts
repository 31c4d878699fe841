/**
 * Reads records back by random access and normalizes them: one fs read per range of
 * records, JSON.parse per record, the format's normalize(), then a check that the record
 * produced exactly the entries the index planned (so entry indices never shift), and
 * entry indices assigned. Windows reuse normalized records through a small LRU.
 */
import type { JsonlIndex } from './jsonlIndex.ts';
import { EXCERPT_CHARS, type ErrorEntry } from './model.ts';
import { base, unknownEntry } from './normalize/entries.ts';
import { markTruncated } from './normalize/text.ts';
import {
  RK_ERROR,
  RK_HIDDEN,
  type FormatAdapter,
  type NormalizeContext,
  type NormalizedRecord,
} from './normalize/types.ts';
import type { RecordIndex } from './recordIndex.ts';

/** Cache weight budget, in characters of source text (~2 bytes each in memory). */
const CACHE_CHARS = 8_000_000;
const CACHE_RECORDS = 4096;

export interface ReaderOptions {
  previewChars: number;
  subagentPath(agentId: string): string | undefined;
}

export class RecordReader {
  /** Records whose entries had to be padded or trimmed to the plan (0 unless a bug). */
  fitCorrections = 0;
  private readonly lines: JsonlIndex;
  private readonly records: RecordIndex;
  private readonly adapter: FormatAdapter;
  private readonly options: ReaderOptions;
  private readonly cache = new Map<number, { value: NormalizedRecord; weight: number }>();
  private cacheWeight = 0;

  constructor(
    lines: JsonlIndex,
    records: RecordIndex,
    adapter: FormatAdapter,
    options: ReaderOptions,
  ) {
    this.lines = lines;
    this.records = records;
    this.adapter = adapter;
    this.options = options;
  }

  clear(): void {
    this.cache.clear();
    this.cacheWeight = 0;
  }

  /** Source text of records r0..r1 (inclusive), one string per record, in one read. */
  async texts(r0: number, r1: number): Promise<string[]> {
    const rec = this.records;
    const first = rec.firstLine.at(r0);
    const lines = await this.lines.readLines(first, rec.lastLine.at(r1) - first + 1);
    const out: string[] = [];
    for (let r = r0; r <= r1; r++) {
      const a = rec.firstLine.at(r) - first;
      const b = rec.lastLine.at(r) - first;
      out.push(a === b ? lines[a]! : lines.slice(a, b + 1).join('\n'));
    }
    return out;
  }

  /** Record r normalized for windows (preview-capped, cached). */
  async normalized(r: number): Promise<NormalizedRecord> {
    const hit = this.cached(r);
    if (hit) return hit;
    const [text] = await this.texts(r, r);
    return this.store(r, text ?? '');
  }

  /** Records r0..r1 normalized for windows; missing ones are read in one go. */
  async range(r0: number, r1: number): Promise<NormalizedRecord[]> {
    const out: (NormalizedRecord | undefined)[] = [];
    let lo = -1;
    let hi = -1;
    for (let r = r0; r <= r1; r++) {
      const hit = this.cached(r);
      out.push(hit);
      if (!hit) {
        if (lo < 0) lo = r;
        hi = r;
      }
    }
    if (lo >= 0) {
      const texts = await this.texts(lo, hi);
      for (let r = lo; r <= hi; r++) out[r - r0] ??= this.store(r, texts[r - lo]!);
    }
    return out as NormalizedRecord[];
  }

  /** Normalizes one record's text with a cap (Infinity for full text and search). */
  normalizeText(r: number, text: string, maxChars: number): NormalizedRecord {
    const rec = this.records;
    const firstLine = rec.firstLine.at(r);
    const source = { first: firstLine + 1, last: rec.lastLine.at(r) + 1 };
    if (firstLine === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const rows = rec.rows.at(r);
    // Bookkeeping and records written again (see Pairing.seen): nothing to show or pair.
    if (rec.kinds.at(r) === RK_HIDDEN && rows === 0)
      return this.fit({ entries: [], results: [] }, 0, r, text);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return this.fit({ entries: [errorEntry(source, text, error)], results: [] }, rows, r, text);
    }
    // Counted as an error by the index, yet JSON.parse takes it: a value nested deeper than
    // the index's scanner follows. It stays the error it was counted as (and searched as).
    if (rec.kinds.at(r) === RK_ERROR) {
      const error = new Error('nested more than 1000 levels deep');
      return this.fit({ entries: [errorEntry(source, text, error)], results: [] }, rows, r, text);
    }
    const ctx: NormalizeContext = {
      record: r,
      source,
      maxChars,
      pairedHere: (callId) => rec.pairing.results.get(callId) === r,
      subagentPath: this.options.subagentPath,
      cwd: rec.cwd,
    };
    return this.fit(this.adapter.normalize(value, ctx), rows, r, value);
  }

  private fit(n: NormalizedRecord, rows: number, r: number, value: unknown): NormalizedRecord {
    const entries = n.entries;
    if (entries.length !== rows) {
      this.fitCorrections++;
      if (entries.length > rows) entries.length = rows;
      const common = { source: entries[0]?.source ?? { first: 0, last: 0 } };
      while (entries.length < rows)
        entries.push(unknownEntry(common, 'unplanned', value, this.options.previewChars));
    }
    const start = this.records.entryStarts.at(r);
    entries.forEach((entry, i) => (entry.index = start + i));
    return n;
  }

  private cached(r: number): NormalizedRecord | undefined {
    const hit = this.cache.get(r);
    if (!hit) return undefined;
    // Move to the end: Map iteration order is the LRU order.
    this.cache.delete(r);
    this.cache.set(r, hit);
    return hit.value;
  }

  private store(r: number, text: string): NormalizedRecord {
    const value = this.normalizeText(r, text, this.options.previewChars);
    const weight = Math.min(text.length, 4 * this.options.previewChars) + 200;
    this.cache.set(r, { value, weight });
    this.cacheWeight += weight;
    while (this.cache.size > CACHE_RECORDS || this.cacheWeight > CACHE_CHARS) {
      const oldest = this.cache.keys().next();
      if (oldest.done) break;
      this.cacheWeight -= this.cache.get(oldest.value)!.weight;
      this.cache.delete(oldest.value);
    }
    return value;
  }
}

function errorEntry(
  source: { first: number; last: number },
  text: string,
  error: unknown,
): ErrorEntry {
  const message = error instanceof Error ? error.message : String(error);
  const entry: ErrorEntry = {
    ...base({ source }),
    kind: 'error',
    message,
    excerpt: text.slice(0, EXCERPT_CHARS),
  };
  if (text.length > EXCERPT_CHARS) markTruncated(entry, 'text', text.length);
  return entry;
}
