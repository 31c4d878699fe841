/**
 * Very long Claude Code transcripts (tens to hundreds of MB) for benchmarks and for the
 * reference backend's "large" sessions, streamed turn by turn without holding the file in
 * memory. Same generator as generateClaudeCodeTranscript(), run until the byte target is
 * reached; in this mode a session auto-compacts whenever its context grows past ~155k
 * tokens (with `compaction`), and subagent files are not kept (their Task calls, results
 * and agent_progress copies still appear in the parent).
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { ClaudeSession, type ClaudeCodeTranscriptOptions } from './claudeCode.ts';

export type LargeClaudeCodeTranscriptOptions = Omit<ClaudeCodeTranscriptOptions, 'turns'> & {
  targetBytes: number;
};

/** Yielded buffers are at most about this many bytes (always whole lines). */
const CHUNK_BYTES = 1 << 20;
/**
 * A little above the average size of one turn (~25 kB), used only to spread the Task calls
 * over the file: overestimating makes sure all of them are placed before the target is hit.
 */
const TURN_BYTES_ESTIMATE = 32_000;
const AUTO_COMPACT_TOKENS = 155_000;

/**
 * Streams a Claude Code transcript of at least `targetBytes` bytes. Every yielded Buffer
 * holds whole '\n'-terminated lines, except that with `quirks` the last one ends with the
 * truncated last line. Identical options give identical bytes.
 */
export async function* largeClaudeCodeTranscript(
  opts: LargeClaudeCodeTranscriptOptions,
): AsyncGenerator<Buffer, void, undefined> {
  const session = new ClaudeSession(opts, false);
  const target = Math.max(0, opts.targetBytes);
  const subagents = Math.max(0, Math.floor(opts.subagents ?? 0));
  const estimatedTurns = Math.max(1, Math.ceil(target / TURN_BYTES_ESTIMATE));
  const every = subagents > 0 ? Math.max(1, Math.floor(estimatedTurns / subagents)) : 0;
  let spawned = 0;
  /** Bytes in yielded chunks plus bytes in `buf`. */
  let total = 0;
  let buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  const ready: Buffer[] = [];

  // Lines are encoded straight into a chunk-sized buffer (no join, no second copy). A line
  // that might not fit (UTF-8 needs at most 3 bytes per UTF-16 unit) starts a new chunk.
  const take = (): void => {
    const lines = session.main.lines;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (used + line.length * 3 > buf.length) {
        if (used > 0) ready.push(buf.subarray(0, used));
        buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, line.length * 3));
        used = 0;
      }
      const n = buf.write(line, used, 'utf8');
      used += n;
      total += n;
    }
    lines.length = 0;
  };

  for (;;) {
    const turn = session.turnIndex;
    if (opts.compaction && session.contextTokens > AUTO_COMPACT_TOKENS) session.compact();
    else session.trimContextIfNeeded();
    let tasks = 0;
    if (every > 0 && spawned < subagents && turn % every === every - 1) {
      tasks = 1;
      spawned++;
    }
    session.runTurn(tasks);
    take();
    if (total >= target) break;
    while (ready.length > 0) yield ready.shift()!;
  }
  if (session.o.quirks) {
    session.truncatedTail();
    take();
  }
  if (used > 0) ready.push(buf.subarray(0, used));
  while (ready.length > 0) yield ready.shift()!;
}

/** Writes largeClaudeCodeTranscript(opts) to `path`; returns its size and SHA-256 (hex). */
export async function writeLargeClaudeCodeTranscript(
  path: string,
  opts: LargeClaudeCodeTranscriptOptions,
): Promise<{ byteSize: number; sha256: string }> {
  const hash = createHash('sha256');
  let byteSize = 0;
  const file = await open(path, 'w');
  try {
    for await (const chunk of largeClaudeCodeTranscript(opts)) {
      hash.update(chunk);
      byteSize += chunk.length;
      for (let at = 0; at < chunk.length;) {
        const { bytesWritten } = await file.write(chunk, at, chunk.length - at);
        at += bytesWritten;
      }
    }
  } finally {
    await file.close();
  }
  return { byteSize, sha256: hash.digest('hex') };
}
