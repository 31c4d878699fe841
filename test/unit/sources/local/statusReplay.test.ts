/**
 * A read from the start leaves the Claude Code scanner's status work to a second pass over
 * the file's end (from the last prompt or interruption). Whatever the file and wherever it
 * stops, the summary must equal one eager pass over the same bytes, and appends read
 * afterwards must continue from the right status.
 */
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ClaudeCodeScanner } from '../../../../src/sources/local/claudeCodeScan.ts';
import {
  discoverLocalFiles,
  type DiscoveredFile,
} from '../../../../src/sources/local/discovery.ts';
import { ScanCache } from '../../../../src/sources/local/scanCache.ts';
import type { FileSummary } from '../../../../src/sources/local/types.ts';
import { writeLocalCorpus } from '../../../support/localCorpus.ts';

/** One eager pass over `bytes` (no second pass), fed in chunks of `chunk` bytes. */
function eager(file: DiscoveredFile, bytes: Buffer, chunk = 64 << 10): FileSummary {
  const scanner = new ClaudeCodeScanner(file.path, {
    role: file.role,
    ...(file.sessionId ? { sessionId: file.sessionId } : {}),
    ...(file.agentId ? { agentId: file.agentId } : {}),
  });
  for (let i = 0; i < bytes.length; i += chunk) scanner.feed(bytes.subarray(i, i + chunk));
  scanner.finish();
  return scanner.summary();
}

/** The listed file at `path` as it is now (size and mtime change with each write). */
async function listedNow(file: DiscoveredFile): Promise<DiscoveredFile> {
  const s = await stat(file.path);
  return { ...file, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, dev: s.dev };
}

/** Deterministic cut points: a few per file, anywhere (mid-line included). */
function cuts(size: number, seed: number): number[] {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return [0.1, 0.5, 0.9, next(), next(), next()].map((f) => Math.floor(f * size));
}

describe('status work left to a second pass over the end of the file', () => {
  test('equals one eager pass on every Claude Code file of the corpus, cut anywhere, and after appends', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'asi-status-'));
    try {
      const corpus = await writeLocalCorpus(dir, { claudeSessions: 6, codexSessions: 0 });
      const { files } = await discoverLocalFiles({ claudeConfigDirs: [corpus.claudeDir] });
      const claude = files.filter((f) => f.harness === 'claude-code');
      assert.ok(claude.length > 6);
      let replayed = 0;
      let total = 0;
      for (const [n, file] of claude.entries()) {
        const whole = await readFile(file.path);
        total += whole.length;
        // The whole file.
        const cache = new ScanCache();
        const before = cache.stats.statusBytes;
        assert.deepEqual(await cache.scan(file), eager(file, whole), file.path);
        replayed += cache.stats.statusBytes - before;

        // Cut anywhere: read cold, then the rest appended (read from where it stopped).
        for (const at of cuts(whole.length, n + 1)) {
          const copy = join(dir, `cut-${n}-${at}.jsonl`);
          await writeFile(copy, whole.subarray(0, at));
          const part = { ...file, path: copy };
          const cut = new ScanCache();
          const cold = await cut.scan(await listedNow(part));
          assert.deepEqual(cold, eager(part, whole.subarray(0, at)), `${file.path} cut at ${at}`);
          await appendFile(copy, whole.subarray(at));
          const grown = await cut.scan(await listedNow(part));
          assert.equal(cut.stats.appendScans, 1, 'the rest was read as an append');
          assert.deepEqual(grown, eager(part, whole), `${file.path} cut at ${at}, then appended`);
          await rm(copy);
        }
      }
      // The second passes read the ends of the files, not the files again.
      assert.ok(replayed > 0, 'some status work was left to a second pass');
      assert.ok(replayed < total / 2, `second passes read ${replayed} of ${total} bytes`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
