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

/** Yielded buffers are about this many characters (always whole lines). */
const CHUNK_CHARS = 1 << 20;
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
  let written = 0;
  let pending: string[] = [];
  let pendingChars = 0;

  const take = (): void => {
    const lines = session.main.lines;
    for (let i = 0; i < lines.length; i++) {
      pending.push(lines[i]!);
      pendingChars += lines[i]!.length;
    }
    lines.length = 0;
  };
  const flush = (): Buffer => {
    const buf = Buffer.from(pending.join(''), 'utf8');
    pending = [];
    pendingChars = 0;
    written += buf.length;
    return buf;
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
    if (written + pendingChars >= target) break;
    if (pendingChars >= CHUNK_CHARS) {
      yield flush();
      continue;
    }
    // Characters undercount UTF-8 bytes (→, ✓, ⎯ in tool output): check exactly near the end.
    if (written + pendingChars * 3 >= target) {
      const joined = pending.join('');
      pending = [joined];
      if (written + Buffer.byteLength(joined, 'utf8') >= target) break;
    }
  }
  if (session.o.quirks) {
    session.truncatedTail();
    take();
  }
  if (pendingChars > 0) yield flush();
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
