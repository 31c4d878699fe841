/**
 * Search across sessions: which files to search (every local transcript the local
 * source lists, every downloaded remote transcript in the transcript cache), the engine
 * run over them (VS Code's ripgrep, or the Node scanner), and each raw match turned into
 * a result — its line read back by offset, the match located in the JSON and unescaped,
 * its entry kind and time asked of the format's normalizer, the filters applied.
 *
 * Results stream: `onHits` is called with a session's growing list whenever it changes.
 * Only the first `maxPerSession` results of a session are read back and shown; further
 * raw matches are counted. The whole search stops at `maxResults` shown results.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  classifyMatch,
  kindPasses,
  normalizeLine,
  type MatchKind,
} from '../../domain/search/classifyMatch.ts';
import {
  locateMatch,
  snippetOf,
  type MatchPlace,
  type Snippet,
} from '../../domain/search/jsonMatch.ts';
import {
  enginePattern,
  targetPasses,
  timePasses,
  type SearchFilters,
  type SearchQuery,
  type TargetFacts,
} from '../../domain/search/searchQuery.ts';
import type { SessionSummary } from '../../domain/session.ts';
import type { FileFormat } from '../../domain/transcript/model.ts';
import type { NormalizedRecord } from '../../domain/transcript/normalize/types.ts';
import { scanFiles, type ScannedMatch } from './nodeScan.ts';
import { runRipgrep, type RawMatch } from './ripgrep.ts';

export interface SearchTarget {
  /** `<connectionId>/<sessionId>`. */
  key: string;
  path: string;
  format: FileFormat;
  session: SessionSummary;
  facts: TargetFacts;
  origin: 'local' | 'remote';
}

export interface SearchHit {
  /** 1-based JSONL line. */
  line: number;
  /** Byte offset of the match in the file. */
  offset: number;
  kind: MatchKind;
  place: MatchPlace;
  timestamp?: string;
  /** The matched text, unescaped. */
  text: string;
  snippet: Snippet;
}

export interface SessionHits {
  target: SearchTarget;
  hits: SearchHit[];
  /** Raw matches past the per-session limit, not read back (so not filtered either). */
  more: number;
}

export interface SearchProgress {
  filesDone: number;
  filesTotal: number;
  results: number;
}

export interface SearchSummary {
  engine: 'ripgrep' | 'node';
  files: number;
  sessions: number;
  results: number;
  /** Matches found in keys or metadata only, left out. */
  hidden: number;
  /** Stopped at maxResults. */
  truncated: boolean;
  cancelled: boolean;
  /** Milliseconds from start to the first shown result (undefined: none). */
  firstResultMs?: number;
}

export interface SearchOptions {
  targets: readonly SearchTarget[];
  query: SearchQuery;
  filters: SearchFilters;
  /** ripgrep's path; the Node scanner runs when absent. */
  rg?: string;
  signal?: AbortSignal;
  maxPerSession?: number;
  maxResults?: number;
  onHits?: (update: SessionHits) => void;
  onProgress?: (progress: SearchProgress) => void;
}

/** Lines longer than this are not parsed: the match is shown from a window around it. */
const MAX_LINE_BYTES = 32 << 20;
const WINDOW_BYTES = 16 << 10;
/** A block read for a line starts this far before the match (the line's start is usually in it). */
const BLOCK_BEFORE = 2048;
/** Bytes the first ripgrep process searches alone (see firstBatch). */
const FIRST_BATCH_BYTES = 16 << 20;
/** The result loop yields to the event loop this often (ms). */
const SLICE_MS = 8;

export async function searchSessions(options: SearchOptions): Promise<SearchSummary> {
  const search = new SessionSearch(options);
  try {
    await Promise.all([search.runEngine(), search.consume()]);
  } finally {
    search.reader.close();
  }
  return search.finish();
}

/**
 * One search: the engine hands raw matches to `accept` (synchronously), `consume` reads
 * them back and turns them into shown results, both sharing the queue and the budgets.
 */
class SessionSearch {
  private readonly options: SearchOptions;
  private readonly started = performance.now();
  private readonly maxPerSession: number;
  private readonly maxResults: number;
  private readonly targets: SearchTarget[];
  private readonly byPath: Map<string, SearchTarget>;
  private readonly states = new Map<string, SessionHits>();
  private readonly summary: SearchSummary;
  // Raw matches wait here while earlier ones are read back (reading is async, the engine is not).
  private readonly queue: (RawMatch | ScannedMatch)[] = [];
  /** Raw matches taken for reading, per path (the per-session budget). */
  private readonly taken = new Map<string, number>();
  private readonly filesSeen = new Set<string>();
  private wake: (() => void) | undefined;
  private engineDone = false;
  private stopEngine = false;
  readonly reader = new LineReader();

  constructor(options: SearchOptions) {
    this.options = options;
    this.maxPerSession = options.maxPerSession ?? 100;
    this.maxResults = options.maxResults ?? 5000;
    this.targets = options.targets.filter((t) => targetPasses(t.facts, options.filters));
    this.byPath = new Map(this.targets.map((t) => [t.path, t]));
    this.summary = {
      engine: options.rg ? 'ripgrep' : 'node',
      files: this.targets.length,
      sessions: 0,
      results: 0,
      hidden: 0,
      truncated: false,
      cancelled: false,
    };
  }

  /** The engine's callback: false stops it. */
  private readonly accept = (match: RawMatch | ScannedMatch): boolean => {
    if (this.stopEngine) return false;
    if (!this.filesSeen.has(match.path)) {
      this.filesSeen.add(match.path);
      this.options.onProgress?.({
        filesDone: this.filesSeen.size,
        filesTotal: this.targets.length,
        results: this.summary.results,
      });
    }
    const count = this.taken.get(match.path) ?? 0;
    // Twice the shown limit is read back: some matches fall to filters or metadata.
    if (count >= this.maxPerSession * 2) {
      const state = this.states.get(match.path);
      if (state) state.more++;
      return true;
    }
    this.taken.set(match.path, count + 1);
    this.queue.push(match);
    this.wake?.();
    return true;
  };

  async consume(): Promise<void> {
    const queue = this.queue;
    let slice = performance.now();
    for (let head = 0; ;) {
      // Reads are synchronous (page-cache reads of one line take microseconds, an async
      // round trip per line costs far more): the loop yields every few milliseconds so the
      // engine's output and the UI keep flowing.
      if (performance.now() - slice > SLICE_MS) {
        await nextTurn();
        slice = performance.now();
      }
      const match = queue[head];
      if (!match) {
        queue.length = 0;
        head = 0;
        if (this.engineDone) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        slice = performance.now();
        continue;
      }
      queue[head++] = undefined!;
      if (!this.stopEngine) this.readBack(match);
    }
  }

  /** One raw match read back: a shown result, a hidden one, or one past the session's limit. */
  private readBack(match: RawMatch | ScannedMatch): void {
    const target = this.byPath.get(match.path);
    if (!target) return;
    const summary = this.summary;
    let state = this.states.get(target.path);
    if (state && state.hits.length >= this.maxPerSession) {
      state.more++;
      return;
    }
    const hit = readHit(this.reader, target, match, this.options.filters);
    if (!hit) {
      summary.hidden++;
      return;
    }
    if (!state) {
      state = { target, hits: [], more: 0 };
      this.states.set(target.path, state);
      summary.sessions++;
    }
    state.hits.push(hit);
    summary.results++;
    summary.firstResultMs ??= performance.now() - this.started;
    this.options.onHits?.(state);
    if (summary.results >= this.maxResults) {
      summary.truncated = true;
      this.stopEngine = true;
    }
  }

  async runEngine(): Promise<void> {
    const options = this.options;
    try {
      const files = this.targets.map((t) => t.path);
      const signal = anySignal(options.signal, () => this.stopEngine);
      if (options.rg)
        await runRipgrep({
          firstBatch: firstBatch(files),
          rg: options.rg,
          pattern: enginePattern(options.query),
          files,
          signal: signal.signal,
          onMatch: this.accept,
        });
      else
        await scanFiles({
          query: options.query,
          files,
          signal: signal.signal,
          onMatch: this.accept,
        });
      signal.dispose();
    } finally {
      this.engineDone = true;
      this.wake?.();
    }
  }

  finish(): SearchSummary {
    this.summary.cancelled = this.options.signal?.aborted ?? false;
    this.options.onProgress?.({
      filesDone: this.targets.length,
      filesTotal: this.targets.length,
      results: this.summary.results,
    });
    return this.summary;
  }
}

/**
 * How many of the first files (newest sessions come first) make up about FIRST_BATCH_BYTES:
 * searched by a process of their own, they give the first results while the rest waits.
 */
function firstBatch(files: readonly string[]): number {
  let bytes = 0;
  for (let i = 0; i < files.length && i < 64; i++) {
    try {
      bytes += statSync(files[i]!).size;
    } catch {
      // gone: ripgrep skips it too
    }
    if (bytes >= FIRST_BATCH_BYTES) return i + 1;
  }
  return Math.min(files.length, 64);
}

/** An AbortSignal that fires with `outer` or as soon as `stop()` says so (checked often). */
function anySignal(outer: AbortSignal | undefined, stop: () => boolean) {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  outer?.addEventListener('abort', onAbort, { once: true });
  if (outer?.aborted) controller.abort();
  const timer = setInterval(() => {
    if (stop()) controller.abort();
  }, 50);
  return {
    signal: controller.signal,
    dispose: () => {
      clearInterval(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

/** A raw match as a result, or undefined when it is filtered out or in metadata only. */
function readHit(
  reader: LineReader,
  target: SearchTarget,
  match: RawMatch | ScannedMatch,
  filters: SearchFilters,
): SearchHit | undefined {
  const line =
    'lineBytes' in match
      ? { bytes: match.lineBytes, start: match.offset - match.lineOffset, whole: true }
      : reader.line(match.path, match.line, match.offset);
  if (!line) return undefined;
  const s = match.offset - line.start;
  const e = s + match.length;
  if (!line.whole) {
    // A giant line: shown from a window around the match, not parsed.
    const text = line.bytes.toString('utf8', s, e);
    const value = line.bytes.toString('utf8');
    const at = line.bytes.subarray(0, s).toString('utf8').length;
    const cls: MatchKind = 'unknown';
    if (!kindPasses(cls, filters.kind)) return undefined;
    return {
      line: match.line,
      offset: match.offset,
      kind: cls,
      place: 'value',
      text,
      snippet: snippetOf(value, at, at + text.length),
    };
  }
  const located = locateMatch(line.bytes, s, e);
  let record: NormalizedRecord | undefined;
  let kind: MatchKind;
  let timestamp: string | undefined;
  if (located.place === 'value') {
    record = reader.normalized(target, match.line, line.bytes);
    ({ kind, timestamp } = classifyMatch(record, located.text));
  } else {
    // Keys and structure: what the line shows does not hold this text.
    record = reader.normalized(target, match.line, line.bytes);
    kind = record ? 'metadata' : 'error';
  }
  if (!kindPasses(kind, filters.kind)) return undefined;
  if (!timePasses(timestamp, filters)) return undefined;
  const snippet =
    located.place === 'value'
      ? snippetOf(located.value, located.start, located.end)
      : rawSnippet(line.bytes, s, e);
  return {
    line: match.line,
    offset: match.offset,
    kind,
    place: located.place,
    ...(timestamp && { timestamp }),
    text: located.text,
    snippet,
  };
}

function rawSnippet(bytes: Buffer, s: number, e: number): Snippet {
  const from = Math.max(0, s - 120);
  const head = bytes.toString('utf8', from, s);
  const text = head + bytes.toString('utf8', s, Math.min(bytes.length, e + 240));
  return snippetOf(text, head.length, head.length + bytes.toString('utf8', s, e).length);
}

interface ReadLine {
  bytes: Buffer;
  /** File offset of bytes[0]. */
  start: number;
  /** The whole line (false: a window of a giant line). */
  whole: boolean;
}

/** Reads lines back by a match's offset, one open file at a time, the last line cached. */
class LineReader {
  private path: string | undefined;
  private fd: number | undefined;
  private last: { path: string; line: number; read: ReadLine } | undefined;
  /** The last block read: matches come in file order, so the next lines are often in it. */
  private block: { start: number; bytes: Buffer } | undefined;
  /**
   * The block's memory, reused for every block read: a line read from it is used (located,
   * parsed, cut into a snippet) before the next read, and no result keeps its bytes.
   */
  private readonly blockBuffer = Buffer.allocUnsafe(WINDOW_BYTES);
  private lastRecord:
    { key: string; line: number; record: NormalizedRecord | undefined } | undefined;

  line(path: string, line: number, offset: number): ReadLine | undefined {
    if (this.last && this.last.path === path && this.last.line === line) return this.last.read;
    const fd = this.open(path);
    if (fd === undefined) return undefined;
    let read: ReadLine | undefined;
    try {
      read = this.fromBlock(fd, offset) ?? readLineAround(fd, offset);
    } catch {
      return undefined; // shrank or vanished since the engine read it
    }
    this.last = { path, line, read };
    return read;
  }

  normalized(target: SearchTarget, line: number, bytes: Buffer): NormalizedRecord | undefined {
    const hit = this.lastRecord;
    if (hit && hit.key === target.path && hit.line === line) return hit.record;
    let text = bytes.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const record = normalizeLine(target.format, text, line);
    this.lastRecord = { key: target.path, line, record };
    return record;
  }

  /** The line from the cached block (reading a new block when needed), if it lies within. */
  private fromBlock(fd: number, offset: number): ReadLine | undefined {
    let block = this.block;
    if (!block || offset < block.start || offset >= block.start + block.bytes.length) {
      const start = Math.max(0, offset - BLOCK_BEFORE);
      block = { start, bytes: readInto(fd, this.blockBuffer, start) };
      this.block = block;
    }
    const at = offset - block.start;
    const back = at === 0 ? -1 : block.bytes.lastIndexOf(0x0a, at - 1);
    if (back < 0 && block.start > 0) return undefined;
    const end = block.bytes.indexOf(0x0a, at);
    if (end < 0 && block.start + block.bytes.length < this.size(fd)) return undefined;
    const from = back + 1;
    const to = end < 0 ? block.bytes.length : end;
    return { bytes: block.bytes.subarray(from, to), start: block.start + from, whole: true };
  }

  private size(fd: number): number {
    return fstatSync(fd).size;
  }

  close(): void {
    this.block = undefined;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.path = undefined;
  }

  private open(path: string): number | undefined {
    if (this.path === path) return this.fd;
    this.close();
    try {
      this.fd = openSync(path, 'r');
    } catch {
      this.fd = undefined;
    }
    this.path = path;
    return this.fd;
  }
}

/** Fills `buf` from `position` (less at the end of the file); returns the bytes read. */
function readInto(fd: number, buf: Buffer, position: number): Buffer {
  let done = 0;
  while (done < buf.length) {
    const bytesRead = readSync(fd, buf, done, buf.length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buf.subarray(0, done);
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const bytesRead = readSync(fd, buf, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === length ? buf : buf.subarray(0, done);
}

/** The line holding byte `offset`: back to the previous '\n', forward to the next. */
export function readLineAround(fd: number, offset: number): ReadLine {
  let start = 0;
  for (let pos = offset; pos > 0;) {
    const from = Math.max(0, pos - WINDOW_BYTES);
    const block = readAt(fd, from, pos - from);
    const nl = block.lastIndexOf(0x0a);
    if (nl >= 0) {
      start = from + nl + 1;
      break;
    }
    if (offset - from > MAX_LINE_BYTES) return window(fd, offset);
    pos = from;
  }
  const parts: Buffer[] = [];
  let length = 0;
  for (let pos = start; ;) {
    const block = readAt(fd, pos, WINDOW_BYTES);
    if (block.length === 0) break;
    const nl = block.indexOf(0x0a);
    const part = nl >= 0 ? block.subarray(0, nl) : block;
    parts.push(part);
    length += part.length;
    if (nl >= 0) break;
    if (length > MAX_LINE_BYTES) return window(fd, offset);
    pos += block.length;
  }
  return {
    bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts, length),
    start,
    whole: true,
  };
}

function window(fd: number, offset: number): ReadLine {
  const start = Math.max(0, offset - 512);
  return { bytes: readAt(fd, start, 2048), start, whole: false };
}
