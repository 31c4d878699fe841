/**
 * Streaming search over a transcript file. Pass 1 scans raw bytes chunk by chunk for the
 * query as it would be written inside a JSON string (escaped; ASCII case folded on both
 * sides when case-insensitive), which narrows the file to candidate records without
 * parsing. Pass 2 normalizes only the candidates (uncapped) and keeps the entries whose
 * visible texts contain the query; a match in a tool result counts for its call's entry.
 *
 * Matches of the last query are kept as sorted entry indices, so next/previous/count are
 * cheap, and the scan continues from where it stopped when the file grows. Memory: one
 * chunk plus the match list.
 */
import type { JsonlIndex } from './jsonlIndex.ts';
import { entryMatches, needleOf, textMatches, type Needle } from './entryMatch.ts';
import { RK_ERROR, RK_HIDDEN, RK_TOKENS } from './normalize/types.ts';
import type { RecordIndex } from './recordIndex.ts';
import type { RecordReader } from './recordReader.ts';

const BATCH_BYTES = 4 * 1024 * 1024;

interface State {
  key: string;
  needle: Needle;
  /** Bytes to look for in the file, or null when the query has no ASCII to look for. */
  bytes: Buffer | null;
  scanned: number;
  found: Set<number>;
  sorted: number[];
}

export class TranscriptSearch {
  private readonly lines: JsonlIndex;
  private readonly records: RecordIndex;
  private readonly reader: RecordReader;
  private state: State | null = null;

  constructor(lines: JsonlIndex, records: RecordIndex, reader: RecordReader) {
    this.lines = lines;
    this.records = records;
    this.reader = reader;
  }

  reset(): void {
    this.state = null;
  }

  /** Sorted entry indices matching `query` in the records indexed so far. */
  async matches(query: string, caseSensitive: boolean): Promise<readonly number[]> {
    const key = `${caseSensitive ? 'c' : 'i'}:${query}`;
    if (this.state?.key !== key) {
      this.state = {
        key,
        needle: needleOf(query, caseSensitive),
        bytes: fileNeedle(query, caseSensitive),
        scanned: 0,
        found: new Set(),
        sorted: [],
      };
    }
    const state = this.state;
    if (state.scanned < this.records.recordCount) {
      await this.scan(state, this.records.recordCount);
      state.sorted = [...state.found].sort((a, b) => a - b);
    }
    return state.sorted;
  }

  private async scan(state: State, end: number): Promise<void> {
    const rec = this.records;
    const lines = this.lines;
    const recStart = (r: number) => lines.lineStart(rec.firstLine.at(r));
    const recEnd = (r: number) => lines.lineEnd(rec.lastLine.at(r));
    let r = state.scanned;
    while (r < end) {
      const base = recStart(r);
      let b = r + 1;
      while (b < end && recEnd(b) - base < BATCH_BYTES) b++;
      const bytes = await lines.readBytes(base, recEnd(b - 1));
      const candidates: number[] = [];
      if (state.bytes === null) {
        for (let k = r; k < b; k++) candidates.push(k);
      } else {
        const hay = state.needle.caseSensitive ? bytes : asciiLower(Buffer.from(bytes));
        let k = r;
        for (let i = hay.indexOf(state.bytes); i !== -1;) {
          while (k + 1 < b && recStart(k + 1) - base <= i) k++;
          candidates.push(k);
          if (k + 1 >= b) break;
          i = hay.indexOf(state.bytes, recStart(k + 1) - base);
        }
      }
      for (const k of candidates) {
        const kind = rec.kinds.at(k);
        if (kind === RK_HIDDEN || kind === RK_TOKENS) continue;
        const text = bytes.toString('utf8', recStart(k) - base, recEnd(k) - base);
        if (kind === RK_ERROR) {
          if (textMatches(text, state.needle)) state.found.add(rec.entryStarts.at(k));
          continue;
        }
        await this.verify(state, k, text);
      }
      r = b;
      state.scanned = r;
    }
  }

  private async verify(state: State, r: number, text: string): Promise<void> {
    const normalized = this.reader.normalizeText(r, text, Number.POSITIVE_INFINITY);
    for (const entry of normalized.entries) {
      if (entryMatches(entry, state.needle)) state.found.add(entry.index);
    }
    for (const part of normalized.results) {
      if (!textMatches(part.output, state.needle)) continue;
      const callRecord = this.records.pairing.calls.get(part.callId);
      if (callRecord === undefined) continue;
      const call = await this.reader.normalized(callRecord);
      const entry = call.entries.find((e) => e.kind === 'tool-call' && e.callId === part.callId);
      if (entry) state.found.add(entry.index);
    }
  }
}

/**
 * The query as written inside a JSON string (quotes, backslashes and control characters
 * escaped), cut to its longest ASCII run so that ASCII-only case folding is exact for
 * the prefilter; non-ASCII letters are checked in pass 2.
 */
function fileNeedle(query: string, caseSensitive: boolean): Buffer | null {
  const escaped = JSON.stringify(query).slice(1, -1);
  if (caseSensitive) return escaped ? Buffer.from(escaped, 'utf8') : null;
  let best = '';
  for (const run of escaped.split(/[^\p{ASCII}]+/u)) if (run.length > best.length) best = run;
  if (!best) return null;
  return Buffer.from(best.toLowerCase(), 'utf8');
}

/** ASCII A–Z to a–z in place (UTF-8 multi-byte sequences never contain ASCII bytes). */
function asciiLower(buf: Buffer): Buffer {
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!;
    if (c >= 0x41 && c <= 0x5a) buf[i] = c | 0x20;
  }
  return buf;
}
