/**
 * Cold scans in parallel: worker threads give the same summaries as one thread, the cache
 * recognises their files next time, and a file a worker read continues from its end on
 * its first append (the worker sent its parser's state back), with correct totals.
 */
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import {
  discoverLocalFiles,
  type DiscoveredFile,
} from '../../../../../src/sources/local/discovery.ts';
import { packUsage, unpackUsage } from '../../../../../src/sources/local/engine/packedUsage.ts';
import {
  idleCoresFrom,
  splitForThreads,
  workerCount,
  type ToWorker,
} from '../../../../../src/sources/local/engine/parallelScan.ts';
import { ScanCache } from '../../../../../src/sources/local/scanCache.ts';
import type { UsageRecord } from '../../../../../src/sources/local/types.ts';
import { usageRecord } from '../../../../../src/sources/local/usageRecord.ts';
import { writeLocalCorpus, type LocalCorpus } from '../../../../support/localCorpus.ts';
import { assistant, usage } from '../fixtures.ts';
import { usageFacts } from '../usageFacts.ts';

const WORKER = new URL('../../../../../src/sources/local/engine/scanWorker.ts', import.meta.url);

/** A listed file for the split tests: only path, harness, size and mtime matter there. */
function listed(
  path: string,
  size: number,
  options: { harness?: DiscoveredFile['harness']; mtimeMs?: number } = {},
): DiscoveredFile {
  return {
    path,
    harness: options.harness ?? 'claude-code',
    role: 'session',
    size,
    mtimeMs: options.mtimeMs ?? 0,
    ino: 0,
    dev: 0,
    root: '/',
  };
}

/** Files of both harnesses written an hour before `now`, then `more` (the split tests). */
function mixedListing(now: number, more: DiscoveredFile[] = []): DiscoveredFile[] {
  const file = (path: string, harness: DiscoveredFile['harness'], kb: number) =>
    listed(path, kb << 10, { harness, mtimeMs: now - 3_600_000 });
  return [
    file('claude-big', 'claude-code', 9000),
    file('claude-b', 'claude-code', 800),
    file('claude-tiny', 'claude-code', 3),
    file('claude-small', 'claude-code', 5),
    file('codex-a', 'codex', 700),
    file('codex-small', 'codex', 6),
    file('codex-tiny', 'codex', 2),
    ...more,
  ];
}

/**
 * Runs `body` over a corpus generated in a temporary folder (removed afterwards) and its
 * listed files; `prepare` runs between writing and listing.
 */
async function inCorpus(
  sizes: { claudeSessions: number; codexSessions: number },
  body: (c: { corpus: LocalCorpus; files: DiscoveredFile[]; dir: string }) => Promise<void>,
  prepare?: (corpus: LocalCorpus) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'asi-parallel-'));
  try {
    const corpus = await writeLocalCorpus(dir, sizes);
    await prepare?.(corpus);
    await body({ corpus, files: await listCorpus(corpus), dir });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function listCorpus(corpus: LocalCorpus): Promise<DiscoveredFile[]> {
  const { files } = await discoverLocalFiles({
    claudeConfigDirs: [corpus.claudeDir],
    codexHome: corpus.codexDir,
  });
  return files;
}

/** Appends one assistant response to `path` and lists the corpus again. */
async function appendResponse(
  corpus: LocalCorpus,
  path: string,
): Promise<{ line: string; grown: DiscoveredFile[] }> {
  const line = JSON.stringify(assistant({ id: 'appended', usage: usage(5, 7), seconds: 9e6 }));
  await appendFile(path, line + '\n');
  return { line, grown: await listCorpus(corpus) };
}

describe('parallel cold scan', () => {
  test('workers and one thread give the same summaries; the next refresh reuses them', async () => {
    await inCorpus({ claudeSessions: 6, codexSessions: 4 }, async ({ corpus, files }) => {
      const serial = new ScanCache();
      const parallel = new ScanCache({
        scanWorker: WORKER,
        workers: 2,
        parallelMinBytes: 0,
        helpWorkers: false,
      });
      const expected = await serial.scanAll(files);
      const got = await parallel.scanAll(files);
      assert.ok(parallel.stats.workerScans > 0, 'some files were read by workers');
      assert.ok(parallel.stats.workerScans < files.length, 'and some on this thread');
      assert.equal(parallel.stats.helperPeakRssKb, 0, 'threads: no helper processes');
      assert.deepEqual(got, expected);
      assert.equal(parallel.stats.bytesRead, serial.stats.bytesRead);

      const read = parallel.stats.bytesRead;
      await parallel.scanAll(files);
      assert.equal(parallel.stats.bytesRead, read, 'nothing is read again');
      assert.equal(parallel.stats.reused, files.length);

      // A worker's file grows: continued from the state the worker sent, totals right.
      const path = corpus.files.find(
        (f) => f.harness === 'claude-code' && f.role === 'session',
      )!.path;
      const file = files.find((f) => f.path === path)!;
      const { line, grown } = await appendResponse(corpus, path);
      const before = expected[files.indexOf(file)]!;
      const { fullScans, bytesRead } = parallel.stats;
      const after = (await parallel.scanAll(grown))[grown.findIndex((f) => f.path === path)]!;
      assert.equal(parallel.stats.fullScans, fullScans, 'not read from the start');
      assert.equal(parallel.stats.bytesRead - bytesRead, Buffer.byteLength(line) + 1);
      const check = (await new ScanCache().scanAll(grown))[
        grown.findIndex((f) => f.path === path)
      ]!;
      assert.deepEqual(after, check, 'the same as a fresh scan of the grown file');
      assert.equal(after.usage.size, before.usage.size + 1);
    });
  });

  test('a count of usage only skips the status pass, here and in helper threads and processes', async () => {
    await inCorpus({ claudeSessions: 6, codexSessions: 2 }, async ({ corpus, files }) => {
      const full = new ScanCache();
      const expected = await full.scanAll(files);
      const serial = new ScanCache({ status: false });
      const usageOnly = await serial.scanAll(files);
      assert.ok(full.stats.statusBytes > 0, 'the corpus has status work to skip');
      assert.equal(serial.stats.statusBytes, 0);
      // What the usage report reads is the same (problems too, on these clean files);
      // status facts and titles are left out.
      const facts = (summaries: typeof expected) =>
        summaries.map((s) => ({ ...usageFacts(s), problems: s.problems }));
      assert.deepEqual(facts(usageOnly), facts(expected));
      assert.notDeepEqual(
        usageOnly.map((s) => s.last),
        expected.map((s) => s.last),
      );
      for (const helpers of ['threads', 'processes'] as const) {
        const parallel = new ScanCache({
          scanWorker: WORKER,
          helpers,
          workers: 2,
          parallelMinBytes: 0,
          helpWorkers: false,
          status: false,
        });
        assert.deepEqual(await parallel.scanAll(files), usageOnly, helpers);
        assert.ok(parallel.stats.workerScans > 0, `${helpers} read some files`);
      }
      // Read once (the CLI's own cache): the same, and no scanner is kept for an append.
      const once = new ScanCache({ status: false, readOnce: true });
      assert.deepEqual(await once.scanAll(files), usageOnly);
      const { grown } = await appendResponse(corpus, files[0]!.path);
      const after = await once.scanAll(grown);
      assert.equal(once.stats.appendScans, 0);
      assert.equal(after[0]!.usage.size, usageOnly[0]!.usage.size + 1);
    });
  });

  test('workers started before the folders are listed are used, or stopped when not needed', async () => {
    await inCorpus({ claudeSessions: 4, codexSessions: 2 }, async ({ files }) => {
      const expected = await new ScanCache().scanAll(files);

      const early = new ScanCache({
        scanWorker: WORKER,
        workers: 1,
        parallelMinBytes: 0,
        helpWorkers: false,
      });
      early.startWorkers();
      await early.helpersOnline(); // settles once the worker runs (the CLI then sets V8 flags)
      assert.deepEqual(await early.scanAll(files), expected);
      assert.ok(early.stats.workerScans > 0, 'the early worker scanned');

      // Too few bytes for a worker: the one started early is stopped (else this test
      // would not end), everything is read here.
      const unneeded = new ScanCache({ scanWorker: WORKER, workers: 1 });
      unneeded.startWorkers();
      assert.deepEqual(await unneeded.scanAll(files), expected);
      assert.equal(unneeded.stats.workerScans, 0);
      unneeded.startWorkers();
      assert.deepEqual(await unneeded.scanAll(files), expected, 'known files: no worker');

      // Late workers: none before the listing; one once the bytes to read call for it.
      const late = new ScanCache({
        scanWorker: WORKER,
        workers: 1,
        parallelMinBytes: 0,
        helpWorkers: false,
        lateWorkers: true,
      });
      late.startWorkers();
      assert.equal(late.stats.workersStarted, 0);
      assert.deepEqual(await late.scanAll(files), expected);
      assert.equal(late.stats.workersStarted, 1);
      assert.ok(late.stats.workerScans > 0, 'the late worker scanned');

      // Empty folders: the first scan's early worker is stopped, later refreshes start none.
      const empty = new ScanCache({ scanWorker: WORKER, workers: 1 });
      empty.startWorkers();
      assert.deepEqual(await empty.scanAll([]), []);
      assert.equal(empty.stats.workersStarted, 1);
      empty.startWorkers();
      assert.deepEqual(await empty.scanAll([]), []);
      assert.equal(empty.stats.workersStarted, 1, 'no thread per refresh');
    });
  });

  test('a file taken from a cache to be sent back is forgotten there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'asi-parallel-'));
    try {
      const corpus = await writeLocalCorpus(dir, { claudeSessions: 1, codexSessions: 0 });
      const { files } = await discoverLocalFiles({ claudeConfigDirs: [corpus.claudeDir] });
      const file = files[0]!;
      const cache = new ScanCache();
      await cache.scan(file);
      const taken = cache.takeEntry(file.path);
      assert.equal(taken?.size, file.size);
      assert.equal(cache.takeEntry(file.path), undefined, 'taken once');
      const before = { ...cache.stats };
      await cache.scan(file);
      assert.equal(cache.stats.fullScans, before.fullScans + 1, 'read again from the start');
      assert.equal(cache.stats.bytesRead - before.bytesRead, file.size);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('helper processes: same summaries; only the recently written file is read here', async () => {
    const liveOf = (corpus: LocalCorpus) =>
      corpus.files.find((f) => f.harness === 'claude-code')!.path;
    // Written an hour ago, all but one: written just now, it is likely to grow and stays
    // here (with its parser state).
    const writtenAgo = async (corpus: LocalCorpus) => {
      const hourAgo = new Date(Date.now() - 3_600_000);
      for (const f of corpus.files) {
        const at = f.path === liveOf(corpus) ? new Date() : hourAgo;
        await utimes(f.path, at, at);
      }
    };
    const sizes = { claudeSessions: 5, codexSessions: 3 };
    await inCorpus(
      sizes,
      async ({ corpus, files }) => {
        const live = liveOf(corpus);
        const expected = await new ScanCache().scanAll(files);
        const parallel = new ScanCache({
          scanWorker: WORKER,
          helpers: 'processes',
          workers: 2,
          parallelMinBytes: 0,
        });
        parallel.startWorkers();
        assert.deepEqual(await parallel.scanAll(files), expected);
        assert.equal(parallel.stats.workersStarted, 2);
        assert.equal(parallel.stats.workerScans, files.length - 1, 'all but the live file');
        // Each helper is a Node process of its own: tens of MB each, summed.
        assert.ok(
          parallel.stats.helperPeakRssKb > 40 << 10,
          `${parallel.stats.helperPeakRssKb} KiB`,
        );

        // The live file grows: read from where the scan stopped (its parser state is here).
        const before = parallel.stats.bytesRead;
        const { line, grown } = await appendResponse(corpus, live);
        const i = grown.findIndex((f) => f.path === live);
        const after = await parallel.scanAll(grown);
        assert.equal(parallel.stats.bytesRead - before, Buffer.byteLength(line) + 1);
        assert.deepEqual(after[i], (await new ScanCache().scanAll(grown))[i]);
      },
      writtenAgo,
    );
  });

  for (const helpers of ['threads', 'processes'] as const) {
    test(`a helper (${helpers}) that cannot start, or fails, leaves its files to this thread`, async () => {
      await inCorpus({ claudeSessions: 3, codexSessions: 2 }, async ({ files, dir }) => {
        const expected = await new ScanCache().scanAll(files);
        const failures: Error[] = [];
        const withHelper = (scanWorker: string) =>
          new ScanCache({
            scanWorker,
            helpers,
            workers: 1,
            parallelMinBytes: 0,
            helpWorkers: false,
            onHelperFailure: (error) => failures.push(error),
          });
        const broken = withHelper(join(dir, 'no-such-worker.cjs'));
        broken.startWorkers();
        await broken.helpersOnline(); // settles for a helper that fails too
        assert.deepEqual(await broken.scanAll(files), expected);
        assert.equal(broken.stats.workerScans, 0);

        // A worker that fails after taking a batch: its files are scanned here instead.
        const crashing = join(dir, 'crashing-worker.cjs');
        await writeFile(
          crashing,
          [
            "const { parentPort } = require('node:worker_threads');",
            '// A thread throws; a process exits (as a crash would, without a stack on stderr).',
            "const fail = () => { if (parentPort) throw new Error('boom'); process.exit(3); };",
            "if (parentPort) parentPort.on('message', fail); else process.on('message', fail);",
            "if (parentPort) parentPort.postMessage({ type: 'ready' });",
            "else process.send({ type: 'ready' });",
          ].join('\n'),
        );
        const crashed = withHelper(crashing);
        assert.deepEqual(await crashed.scanAll(files), expected);
        assert.equal(crashed.stats.workerScans, 0);
        assert.equal(crashed.stats.fullScans, files.length);
        // Each failure is reported, saying what happened.
        assert.equal(failures.length, 2);
        if (helpers === 'processes') assert.match(failures[1]!.message, /exited with code 3/);
        else assert.match(failures[1]!.message, /boom/);
      });
    });
  }

  test('a helper process exits when its main process goes away, even mid-scan', async () => {
    await inCorpus({ claudeSessions: 3, codexSessions: 1 }, async ({ files }) => {
      const child = fork(fileURLToPath(WORKER), [], { serialization: 'advanced', stdio: 'ignore' });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      await new Promise((resolve) => child.once('message', resolve)); // ready
      child.send({ type: 'scan', files } satisfies ToWorker);
      child.disconnect();
      assert.equal(await exited, 0);
    });
  });

  test('split: the largest and recently written files stay here, the rest wait in a queue', () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    const file = (path: string, mb: number, minutesAgo: number) =>
      listed(path, mb << 20, { mtimeMs: now - minutesAgo * 60_000 });
    const files = [
      file('big', 50, 600),
      file('live', 1, 2),
      file('b', 30, 600),
      file('c', 25, 600),
      file('d', 10, 600),
      file('e', 5, 600),
    ];
    const { here, queue } = splitForThreads(files, now);
    assert.deepEqual(
      here.map((f) => f.path),
      ['big', 'live'],
    );
    assert.deepEqual(
      splitForThreads(files, now, true, false).here.map((f) => f.path),
      ['big'],
      'files read once: a recent file waits in the queue too',
    );
    // The rest, largest first: one file at a time for this thread, batches for workers.
    assert.equal(queue.take()!.path, 'b');
    assert.deepEqual(
      queue.takeBatch(30 << 20).map((f) => f.path),
      ['c', 'd'],
      'a batch stops once it reaches its size',
    );
    assert.deepEqual(
      queue.takeBatch(1).map((f) => f.path),
      ['e'],
      'at least one file',
    );
    assert.equal(queue.take(), undefined);
    assert.deepEqual(queue.takeBatch(), []);
  });

  test('split: with both harnesses, each thread starts with a small file of each', () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    const { here, queue } = splitForThreads(mixedListing(now), now);
    assert.deepEqual(
      here.map((f) => f.path),
      ['claude-tiny', 'codex-tiny', 'claude-big'],
      'the smallest of each harness first, then the largest file',
    );
    assert.deepEqual(
      queue.takeBatch(1 << 30).map((f) => f.path),
      ['claude-small', 'codex-small', 'claude-b', 'codex-a'],
      "the first batch: the next smallest of each, then the queue's largest first",
    );
    assert.equal(queue.take(), undefined, 'every file once');
  });

  test('split for helper processes: only recent files stay here; the small ones lead the queue', () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    const live = listed('claude-live', 4000 << 10, { mtimeMs: now - 60_000 });
    const { here, queue } = splitForThreads(mixedListing(now, [live]), now, false);
    assert.deepEqual(
      here.map((f) => f.path),
      ['claude-live'],
    );
    assert.deepEqual(
      queue.takeBatch(1 << 30).map((f) => f.path),
      [
        'claude-tiny',
        'claude-small',
        'codex-tiny',
        'codex-small',
        'claude-big',
        'claude-b',
        'codex-a',
      ],
    );
  });

  test('split: with one harness, no file is moved ahead', () => {
    const files = [10, 2, 30, 1].map((mb) => listed(`f${mb}`, mb << 20, { harness: 'codex' }));
    const { here, queue } = splitForThreads(files, Date.now());
    assert.deepEqual(
      here.map((f) => f.path),
      ['f30'],
    );
    assert.deepEqual(
      queue.takeBatch(1 << 30).map((f) => f.path),
      ['f10', 'f2', 'f1'],
    );
  });

  test('helper threads only on cores other work leaves idle; helper processes one per core', () => {
    assert.equal(workerCount('threads', 2, 1.9), 1, 'an idle two-core machine: one helper');
    assert.equal(workerCount('threads', 2, 0.3), 0, 'both cores busy: this thread alone');
    assert.equal(workerCount('threads', 8, 7.5), 3, 'at most three');
    assert.equal(workerCount('threads', 8, 2.6), 3);
    assert.equal(workerCount('threads', 8, 1.4), 1);
    assert.equal(workerCount('threads', 1, 1), 0, 'one core: none');
    assert.equal(workerCount('processes', 2, 0), 2, 'processes keep the host thread free');
  });

  test('idle cores now: the cores less the runnable threads other than this one', () => {
    assert.equal(idleCoresFrom('1.71 3.01 3.04 1/92 19291\n', 2), 2, 'only this thread runs');
    assert.equal(idleCoresFrom('0.10 0.20 0.30 2/92 19291\n', 2), 1, 'one other thread');
    assert.equal(idleCoresFrom('3.90 3.01 3.04 4/300 1\n', 2), -1, 'more than the cores');
    assert.equal(idleCoresFrom('', 2), undefined, 'not Linux: left to the load average');
    assert.equal(workerCount('threads', 2, idleCoresFrom('1.90 1.8 1.7 1/92 5', 2)), 1);
  });

  test("a worker's batches shrink towards the end of the queue", () => {
    const files = Array.from({ length: 40 }, (_, i) => listed(`f${i}`, 1 << 20));
    const { queue } = splitForThreads(files, Date.now());
    const sizes: number[] = [];
    for (let batch = queue.takeBatch(); batch.length > 0; batch = queue.takeBatch()) {
      sizes.push(batch.length);
    }
    assert.equal(
      sizes.reduce((a, b) => a + b, 0),
      39,
      'every file but the largest (kept here)',
    );
    assert.equal(sizes[0], 4, '4 MB while plenty is left');
    assert.deepEqual(sizes.slice(-8), [1, 1, 1, 1, 1, 1, 1, 1], 'one file at a time at the end');
  });
});

describe('packed usage (what a worker posts back)', () => {
  const record = (model: string | undefined, ms: number, n: number, agentId?: string) =>
    usageRecord(model, ms, n, n + 1, n + 2, n + 3, n + 4, n + 5, agentId);

  test('unpacks to the same records, keys and order, through a structured clone', () => {
    const usage = new Map<string, UsageRecord>([
      ['msg_1:req_1', record('claude-opus-4-5', 1_764_590_400_000, 10)],
      ['msg_2:req_é☃', record(undefined, NaN, 0)],
      ['', record('', 1, 2)],
      ['msg_3', record('claude-opus-4-5', 2, 3, 'a1')],
      ['12', record('gpt-5-codex', 3, 2 ** 40)],
    ]);
    const packed = structuredClone(packUsage(usage));
    assert.deepEqual(unpackUsage(packed), usage);
    assert.equal(packed.models.filter((m) => m === 'claude-opus-4-5').length, 1, 'models once');
    assert.deepEqual(unpackUsage(packUsage(new Map())), new Map());
  });
});
