/**
 * The search engine when VS Code ships no ripgrep we can find: the transcript line index
 * (JsonlIndex) streams each file in large chunks and hands every complete line to a sink
 * that looks for the pattern in its bytes. A literal searched case-sensitively is a byte
 * search (Buffer.indexOf over the chunk, no decoding); anything else decodes the line
 * and runs a JavaScript RegExp over it. An unfinished last line (a live session
 * mid-write) is not searched, as the index does not index it.
 */
import { JsonlIndex, type LineSink } from '../../domain/transcript/jsonlIndex.ts';
import { queryRegExp, type SearchQuery } from '../../domain/search/searchQuery.ts';
import type { RawMatch } from './ripgrep.ts';

/** A match with its line's bytes already in hand (no read back needed). */
export interface ScannedMatch extends RawMatch {
  lineBytes: Buffer;
  /** Byte offset of the match within lineBytes. */
  lineOffset: number;
}

export async function scanFiles(options: {
  query: SearchQuery;
  files: readonly string[];
  signal?: AbortSignal;
  onMatch: (match: ScannedMatch) => boolean | void;
}): Promise<void> {
  const { query } = options;
  const literal = !query.regex && query.caseSensitive;
  const needle = literal ? Buffer.from(JSON.stringify(query.text).slice(1, -1), 'utf8') : undefined;
  const regex = literal ? undefined : queryRegExp(query);
  for (const path of options.files) {
    if (options.signal?.aborted) return;
    let stop = false;
    let index: JsonlIndex | undefined;
    // The next hit in the current chunk buffer, so a chunk costs one indexOf per hit.
    let hitBuf: Buffer | undefined;
    let hitAt = -1;
    let lastStart = -1;
    const emit = (
      buf: Buffer,
      start: number,
      end: number,
      line: number,
      s: number,
      len: number,
    ) => {
      if (stop) return;
      const lineBytes = Buffer.from(buf.subarray(start, end));
      const match: ScannedMatch = {
        path,
        line: line + 1,
        offset: index!.lineStart(line) + (s - start),
        length: len,
        lineBytes,
        lineOffset: s - start,
      };
      if (options.onMatch(match) === false || options.signal?.aborted) stop = true;
    };
    const sink: LineSink = {
      line(buf, start, end, lineIndex) {
        if (stop) return;
        if (needle) {
          // The index reuses its buffer: a line starting before the last one is a new chunk.
          if (hitBuf !== buf || start <= lastStart || hitAt < start) {
            hitBuf = buf;
            hitAt = buf.indexOf(needle, start);
          }
          lastStart = start;
          while (hitAt !== -1 && hitAt + needle.length <= end) {
            emit(buf, start, end, lineIndex, hitAt, needle.length);
            hitAt = buf.indexOf(needle, hitAt + Math.max(1, needle.length));
          }
          if (hitAt !== -1 && hitAt < end) hitAt = buf.indexOf(needle, end);
          if (hitAt === -1) hitAt = Number.MAX_SAFE_INTEGER; // none left in this chunk
          return;
        }
        const text = buf.toString('utf8', start, end);
        regex!.lastIndex = 0;
        for (let m = regex!.exec(text); m; m = regex!.exec(text)) {
          if (m[0].length === 0) {
            regex!.lastIndex++;
            continue;
          }
          const s = start + Buffer.byteLength(text.slice(0, m.index));
          emit(buf, start, end, lineIndex, s, Buffer.byteLength(m[0]));
          if (stop) return;
        }
      },
    };
    try {
      index = await JsonlIndex.open(path, { sink });
    } catch {
      continue; // gone or unreadable since it was listed: skip it, as ripgrep does
    }
    try {
      await index.refresh();
    } finally {
      await index.close();
    }
    if (stop) return;
  }
}
