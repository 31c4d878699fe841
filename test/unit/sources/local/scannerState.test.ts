/**
 * A scanner resumed from the persisted index continues where the saving one stopped:
 * whatever the file (every real transcript of the conformance corpus, and generated ones
 * with their quirks) and wherever the first read stopped (mid-line, inside a
 * pretty-printed entry), reading the rest from the saved state gives the summary of one
 * read of the whole file, and reads only the rest.
 */
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  discoverLocalFiles,
  type DiscoveredFile,
} from '../../../../src/sources/local/discovery.ts';
import { PersistedIndex } from '../../../../src/sources/local/persistedIndex.ts';
import { ScanCache } from '../../../../src/sources/local/scanCache.ts';
import { writeLocalCorpus } from '../../../support/localCorpus.ts';
import { CASES, layOut } from '../../conformance/realFiles.ts';
import {
  assistant,
  jsonl,
  prompt,
  tempDir,
  toolResult,
  toolUse,
  usage,
  writeAt,
} from './fixtures.ts';

async function listedNow(file: DiscoveredFile): Promise<DiscoveredFile> {
  const s = await stat(file.path);
  return { ...file, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino, dev: s.dev };
}

/** Deterministic cut points: a few per file, anywhere (mid-line included). */
function cuts(size: number, seed: number): number[] {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return [0.3, 0.97, next(), next()].map((f) => Math.floor(f * size));
}

/**
 * Reads `file`'s first `cut` bytes, saves the cache to a persisted index, loads it into a
 * new cache, appends the rest and reads it there: that summary, and the bytes it read.
 */
async function resumedAt(
  file: DiscoveredFile,
  bytes: Buffer,
  cut: number,
  store: string,
): Promise<{ summary: unknown; stats: ScanCache['stats'] }> {
  await writeFile(file.path, bytes.subarray(0, cut));
  const first = new ScanCache();
  await first.scan(await listedNow(file));
  const index = new PersistedIndex({ dir: store, version: 'test' }, ['resume']);
  await index.save(first.resting());
  await appendFile(file.path, bytes.subarray(cut));
  const whole = await listedNow(file);
  const loaded = await new PersistedIndex({ dir: store, version: 'test' }, [
    'resume',
  ]).loadIfChanged();
  assert.ok(loaded?.has(file.path), 'the entry was saved and loaded');
  const second = new ScanCache();
  assert.equal(second.seed([whole], loaded!).length, 1);
  const summary = await second.scan(whole);
  return { summary, stats: second.stats };
}

async function checkFiles(files: DiscoveredFile[], store: string): Promise<number> {
  let checked = 0;
  for (const [n, file] of files.entries()) {
    const bytes = await readFile(file.path);
    const expected = await new ScanCache().scan(await listedNow(file));
    for (const cut of cuts(bytes.length, n + 1)) {
      if (cut === 0) continue;
      const { summary, stats } = await resumedAt(file, bytes, cut, store);
      const where = `${file.path} cut at ${cut} of ${bytes.length}`;
      assert.deepEqual(summary, expected, where);
      assert.equal(stats.fullScans, 0, where);
      assert.equal(stats.bytesRead, bytes.length - cut, `${where}: only the rest was read`);
      checked++;
    }
    await writeFile(file.path, bytes);
  }
  return checked;
}

describe('scanner state saved and resumed', () => {
  test('every real transcript, cut anywhere: the same summary as one read, reading only the rest', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const claude = join(dir, 'claude');
      const codex = join(dir, 'codex');
      for (const c of CASES) await layOut(c, c.harness === 'codex' ? codex : claude);
      const { files } = await discoverLocalFiles({ claudeConfigDirs: [claude], codexHome: codex });
      assert.ok(
        files.some((f) => f.harness === 'codex') && files.some((f) => f.role === 'subagent'),
      );
      assert.ok((await checkFiles(files, join(dir, 'store'))) > files.length * 2);
    } finally {
      await cleanup();
    }
  });

  test('generated transcripts with quirks (pretty-printed entries, a truncated tail, legacy Codex)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'asi-state-'));
    try {
      const corpus = await writeLocalCorpus(dir, { claudeSessions: 3, codexSessions: 3 });
      const { files } = await discoverLocalFiles({
        claudeConfigDirs: [corpus.claudeDir],
        codexHome: corpus.codexDir,
      });
      await checkFiles(files, join(dir, 'store'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('cut inside a pretty-printed entry and inside a line: the saved state holds the unfinished bytes', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const claude = join(dir, 'claude');
      const path = join(claude, 'projects', '-p', 'S1.jsonl');
      const pretty = JSON.stringify(
        assistant({ id: 'm2', usage: usage(2, 20), seconds: 5 }),
        null,
        2,
      );
      const text =
        jsonl(
          prompt('go'),
          assistant({ id: 'm1', usage: usage(1, 10), content: [toolUse('t1')] }),
        ) +
        pretty +
        '\n' +
        jsonl(
          toolResult('t1', 6),
          prompt('naïve café ✓ next', 7),
          assistant({ id: 'm3', usage: usage(3, 30), seconds: 8 }),
        );
      await writeAt(path, text);
      const { files } = await discoverLocalFiles({
        claudeConfigDirs: [claude],
        codexHome: join(dir, 'x'),
      });
      const bytes = Buffer.from(text);
      const file = files[0]!;
      const expected = await new ScanCache().scan(file);
      const insidePretty = bytes.indexOf(
        Buffer.from('"usage"', 'utf8'),
        bytes.indexOf(Buffer.from(pretty.slice(0, 20))),
      );
      const insideChar = bytes.indexOf(Buffer.from('✓')) + 1;
      for (const cut of [insidePretty, insideChar]) {
        const { summary, stats } = await resumedAt(file, bytes, cut, join(dir, 'store'));
        assert.deepEqual(summary, expected, `cut at ${cut}`);
        assert.equal(stats.bytesRead, bytes.length - cut);
      }
    } finally {
      await cleanup();
    }
  });
});
