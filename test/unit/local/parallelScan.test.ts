/**
 * Cold scans in parallel: worker threads give the same summaries as one thread, the cache
 * recognises their files next time, and a file a worker read is read in full on its first
 * append (its parser state stayed in the worker), with correct totals.
 */
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { discoverLocalFiles } from '../../../src/sources/local/discovery.ts';
import { splitForThreads } from '../../../src/sources/local/parallelScan.ts';
import { ScanCache } from '../../../src/sources/local/scanCache.ts';
import { writeLocalCorpus } from '../../support/localCorpus.ts';
import { assistant, usage } from './fixtures.ts';

const WORKER = new URL('../../../src/sources/local/scanWorker.ts', import.meta.url);

describe('parallel cold scan', () => {
  test('workers and one thread give the same summaries; the next refresh reuses them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'asi-parallel-'));
    try {
      const corpus = await writeLocalCorpus(dir, { claudeSessions: 6, codexSessions: 4 });
      const { files } = await discoverLocalFiles({
        claudeConfigDirs: [corpus.claudeDir],
        codexHome: corpus.codexDir,
      });
      const serial = new ScanCache();
      const parallel = new ScanCache({ scanWorker: WORKER, workers: 2, parallelMinBytes: 0 });
      const expected = await serial.scanAll(files);
      const got = await parallel.scanAll(files);
      assert.ok(parallel.stats.workerScans > 0, 'some files were read by workers');
      assert.ok(parallel.stats.workerScans < files.length, 'and some on this thread');
      assert.deepEqual(got, expected);
      assert.equal(parallel.stats.bytesRead, serial.stats.bytesRead);

      const read = parallel.stats.bytesRead;
      await parallel.scanAll(files);
      assert.equal(parallel.stats.bytesRead, read, 'nothing is read again');
      assert.equal(parallel.stats.reused, files.length);

      // A worker's file grows: read again in full (no parser state here), totals right.
      const path = corpus.files.find(
        (f) => f.harness === 'claude-code' && f.role === 'session',
      )!.path;
      const file = files.find((f) => f.path === path)!;
      const line = JSON.stringify(assistant({ id: 'appended', usage: usage(5, 7), seconds: 9e6 }));
      await appendFile(path, line + '\n');
      const grown = (
        await discoverLocalFiles({
          claudeConfigDirs: [corpus.claudeDir],
          codexHome: corpus.codexDir,
        })
      ).files;
      const before = expected[files.indexOf(file)]!;
      const after = (await parallel.scanAll(grown))[grown.findIndex((f) => f.path === path)]!;
      const check = (await new ScanCache().scanAll(grown))[
        grown.findIndex((f) => f.path === path)
      ]!;
      assert.deepEqual(after, check, 'the same as a fresh scan of the grown file');
      assert.equal(after.usage.size, before.usage.size + 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a worker that cannot start leaves its files to this thread', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'asi-parallel-'));
    try {
      const corpus = await writeLocalCorpus(dir, { claudeSessions: 3, codexSessions: 2 });
      const { files } = await discoverLocalFiles({
        claudeConfigDirs: [corpus.claudeDir],
        codexHome: corpus.codexDir,
      });
      const broken = new ScanCache({
        scanWorker: join(dir, 'no-such-worker.cjs'),
        workers: 1,
        parallelMinBytes: 0,
      });
      assert.deepEqual(await broken.scanAll(files), await new ScanCache().scanAll(files));
      assert.equal(broken.stats.workerScans, 0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('shares: the largest and recently written files stay here, the rest balance by size', () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    const file = (path: string, mb: number, minutesAgo: number) =>
      ({
        path,
        harness: 'claude-code',
        role: 'session',
        size: mb << 20,
        mtimeMs: now - minutesAgo * 60_000,
        ino: 0,
        dev: 0,
        root: '/',
      }) as const;
    const files = [
      file('big', 50, 600),
      file('live', 1, 2),
      file('b', 30, 600),
      file('c', 25, 600),
      file('d', 10, 600),
      file('e', 5, 600),
    ];
    const { main, workers } = splitForThreads(files, 1, now, 0);
    // big 50 → here; b 30, c 25 → worker (55); d 10 → here (60); e 5 → worker (60); live → here.
    assert.deepEqual(
      main.map((f) => f.path),
      ['big', 'd', 'live'],
    );
    assert.deepEqual(
      workers[0]!.map((f) => f.path),
      ['b', 'c', 'e'],
    );
    // A worker's start-up counts as bytes of its share, at most an eighth of the total
    // here (121 / 8 ≈ 15 MB of the 20 asked): it gets less.
    const headStart = splitForThreads(files, 1, now, 20 << 20);
    // big 50 → here; b 30 → worker (15 + 30); c 25 → worker (70); d 10, e 5 → here (65).
    assert.deepEqual(
      headStart.main.map((f) => f.path),
      ['big', 'd', 'e', 'live'],
    );
    assert.deepEqual(
      headStart.workers[0]!.map((f) => f.path),
      ['b', 'c'],
    );
  });
});
