/**
 * Streaming line index over a JSONL file: reads large chunks with positional reads, finds
 * newlines by scanning bytes (no decoding, no parsing) and keeps one Float64 start offset
 * per line, so any range of lines can be read back later by random access. Memory is
 * about 8 bytes per line plus one chunk buffer, whatever the file size.
 *
 * A last line without its newline is "pending" (a live session mid-write), not an error:
 * it is not indexed, and refresh() picks it up once the writer finishes it. refresh()
 * reads only the bytes after the last complete line.
 *
 * A LineSink sees every complete line's bytes while they are still in the chunk buffer,
 * which lets the transcript classify records in the same pass without reading twice.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { Growable } from './growable.ts';

/** Default read size: large enough for throughput, small enough to yield often. */
export const DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024;

export interface LineSink {
  /** One complete line: bytes [start, end) of `buf`, without its '\n'. 0-based index. */
  line(buf: Buffer, start: number, end: number, lineIndex: number): void;
  /** The file shrank or was replaced: everything seen so far is void. */
  reset?(): void;
}

export interface JsonlIndexProgress {
  bytesIndexed: number;
  totalBytes: number;
  lineCount: number;
  done: boolean;
}

export interface JsonlIndexOptions {
  chunkBytes?: number;
  sink?: LineSink;
  /** Called after every chunk and once at the end (done: true). */
  onProgress?: (progress: JsonlIndexProgress) => void;
}

export interface IndexRun {
  /** Lines added by this run. */
  appendedLines: number;
  /** True when the file had shrunk and was indexed again from the start. */
  reset: boolean;
}

export class JsonlIndex {
  readonly path: string;
  private readonly handle: FileHandle;
  private readonly chunkBytes: number;
  private readonly sink: LineSink | undefined;
  private readonly onProgress: ((p: JsonlIndexProgress) => void) | undefined;
  /** offsets[i] = byte offset where line i starts; offsets[lineCount] = indexedBytes. */
  private readonly offsets = new Growable(Float64Array, 4096);
  private size = 0;
  private buffer: Buffer;
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(path: string, handle: FileHandle, options: JsonlIndexOptions) {
    this.path = path;
    this.handle = handle;
    this.chunkBytes = Math.max(64, options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
    this.sink = options.sink;
    this.onProgress = options.onProgress;
    this.buffer = Buffer.allocUnsafe(this.chunkBytes);
    this.offsets.push(0);
  }

  /** Opens the file; call refresh() to index it. */
  static async open(path: string, options: JsonlIndexOptions = {}): Promise<JsonlIndex> {
    const handle = await open(path, 'r');
    return new JsonlIndex(path, handle, options);
  }

  get lineCount(): number {
    return this.offsets.length - 1;
  }

  /** Bytes covered by complete lines (the pending tail starts here). */
  get indexedBytes(): number {
    return this.offsets.at(this.offsets.length - 1);
  }

  /** File size seen by the last run. */
  get fileSize(): number {
    return this.size;
  }

  /** Bytes of an unfinished last line (no newline yet). */
  get pendingBytes(): number {
    return Math.max(0, this.size - this.indexedBytes);
  }

  /** Bytes this index holds in memory (offsets + chunk buffer). */
  get memoryBytes(): number {
    return this.offsets.byteLength + this.buffer.length;
  }

  /** Byte offset where line `i` starts. */
  lineStart(i: number): number {
    return this.offsets.at(i);
  }

  /** Byte offset just past line `i`'s content (its '\n' is at this offset). */
  lineEnd(i: number): number {
    return this.offsets.at(i + 1) - 1;
  }

  /**
   * Indexes everything appended since the last run (the first run indexes the whole
   * file). Runs are serialized; a file that shrank is indexed again from the start.
   */
  refresh(): Promise<IndexRun> {
    const run = this.queue.then(() => this.indexAppended());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async indexAppended(): Promise<IndexRun> {
    if (this.closed) return { appendedLines: 0, reset: false };
    const { size } = await this.handle.stat();
    let reset = false;
    if (size < this.indexedBytes) {
      // Truncated or replaced in place: offsets no longer describe the file.
      this.offsets.clear();
      this.offsets.push(0);
      this.sink?.reset?.();
      reset = true;
    }
    this.size = size;
    const before = this.lineCount;
    let pos = this.indexedBytes; // file offset of buffer[0]
    let carry = 0; // bytes of an unfinished line at the start of the buffer
    while (!this.closed && pos + carry < size) {
      if (carry === this.buffer.length) {
        // One line longer than the buffer: grow so the whole line fits.
        const bigger = Buffer.allocUnsafe(this.buffer.length * 2);
        this.buffer.copy(bigger, 0, 0, carry);
        this.buffer = bigger;
      }
      const want = Math.min(this.buffer.length - carry, size - pos - carry);
      const { bytesRead } = await this.handle.read(this.buffer, carry, want, pos + carry);
      if (bytesRead === 0) break; // the file shrank under us; the next refresh sees it
      const end = carry + bytesRead;
      const view = end === this.buffer.length ? this.buffer : this.buffer.subarray(0, end);
      let start = 0;
      for (let nl = view.indexOf(10, start); nl !== -1; nl = view.indexOf(10, start)) {
        const lineIndex = this.lineCount;
        this.offsets.push(pos + nl + 1);
        this.sink?.line(view, start, nl, lineIndex);
        start = nl + 1;
      }
      if (start > 0 && start < end) this.buffer.copyWithin(0, start, end);
      pos += start;
      carry = end - start;
      this.onProgress?.({
        bytesIndexed: pos,
        totalBytes: size,
        lineCount: this.lineCount,
        done: false,
      });
    }
    this.shrinkBuffer();
    this.onProgress?.({
      bytesIndexed: this.indexedBytes,
      totalBytes: size,
      lineCount: this.lineCount,
      done: true,
    });
    return { appendedLines: this.lineCount - before, reset };
  }

  /** A buffer grown for one huge line goes back to chunk size between runs. */
  private shrinkBuffer(): void {
    if (this.buffer.length > this.chunkBytes) this.buffer = Buffer.allocUnsafe(this.chunkBytes);
  }

  /** Raw bytes [start, end) of the file. */
  async readBytes(start: number, end: number): Promise<Buffer> {
    const length = Math.max(0, end - start);
    const out = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.handle.read(out, done, length - done, start + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return done === length ? out : out.subarray(0, done);
  }

  /**
   * Lines [from, from + count) as strings without '\n' (and without a trailing '\r'), by
   * one read of their byte range. Out-of-range parts are clipped.
   */
  async readLines(from: number, count: number): Promise<string[]> {
    const first = Math.max(0, Math.floor(from));
    const last = Math.min(this.lineCount, first + Math.max(0, Math.floor(count))) - 1;
    if (last < first) return [];
    const bytes = await this.readBytes(this.lineStart(first), this.lineEnd(last));
    // '\n' never occurs inside a multi-byte UTF-8 sequence, so decoding first is safe.
    const lines = bytes.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.endsWith('\r')) lines[i] = line.slice(0, -1);
    }
    return lines;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    await this.handle.close();
  }
}
