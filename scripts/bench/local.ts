/**
 * Local transcript figures on a ~200 MB mixed corpus (Claude Code incl. three very large
 * sessions, subagents and quirks; Codex current and legacy): cold scan time, throughput
 * and peak RSS growth, and a warm refresh after 1 MB was appended to one file. The corpus
 * (corpora.ts) is written once to os.tmpdir() and reused while its version is unchanged.
 *
 * "Cold" means a fresh scan cache (nothing known about any file); the files themselves
 * are in the OS page cache, as they are after the first scan on a real machine. As in
 * the extension, a cold scan runs in helper processes (new ones each time), and the file
 * being written stays in this process; the figure is the median of three.
 *
 * "Window open" is a new LocalIndex's first refresh with a persisted index that another
 * window saved (persistedIndex.ts): the listing, the index read and decoded, the sessions
 * built. Two windows opening together on a store with no index must read each file from
 * the start once in total (one waits for the other's lock and reads its index).
 *
 * benchLocal2gb (`npm run bench -- local-2gb`) repeats the window-open rows on the ~2 GB,
 * ~11,500-file corpus of the same generator, with a warm refresh after a 1 MB append in
 * a window that opened from the index, and the time to the sessions shown from the saved
 * rows (savedRowsFile.ts) before the checked ones.
 */
import { spawnSync } from 'node:child_process';
import { appendFile, mkdtemp, rm, stat, truncate, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../lib/tools.ts';
import { generateClaudeCodeTranscript } from '../../src/demo/transcripts/index.ts';
import { LocalIndex, type LocalIndexOptions } from '../../src/sources/local/localIndex.ts';
import { buildUsageReport } from '../../src/sources/local/usageReport.ts';
import type { LocalCorpus } from '../../test/support/localCorpus.ts';
import { localCorpus, localCorpus2gb } from './corpora.ts';

const MB = 1_048_576;

interface Row {
  name: string;
  value: number;
  unit: string;
}

/** JSON text with every object's keys sorted (rows built in another key order compare equal). */
function canonicalJson(json: string): string {
  return JSON.stringify(JSON.parse(json), (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Peak RSS above the starting point while `fn` runs (sampled every 2 ms). */
async function withPeakRss<T>(fn: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  const start = process.memoryUsage.rss();
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  try {
    const result = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, peakMb: (peak - start) / MB };
  } finally {
    clearInterval(timer);
  }
}

/** About `bytes` of valid Claude Code lines (fresh message ids) for the append test. */
function appendLines(bytes: number, round: number): string {
  let text = '';
  for (let seed = 0; text.length < bytes; seed++) {
    const t = generateClaudeCodeTranscript({
      seed: 50_000 + round * 1000 + seed,
      sessionId: 'bench-append',
      cwd: '/home/dev/orbit-api',
      model: 'claude-sonnet-4-5-20250929',
      startedAt: '2026-06-10T00:00:00.000Z',
      turns: 6,
    });
    text += t.main;
  }
  // Whole lines only, cut to about the size asked for.
  return text.slice(0, text.lastIndexOf('\n', bytes) + 1);
}

/** As in the extension: first scans use helper processes (the bundled dist/scanWorker.cjs). */
function scanOptions(c: LocalCorpus) {
  return {
    claudeConfigDirs: [c.claudeDir],
    codexHome: c.codexDir,
    scanWorker: path.join(projectRoot, 'dist', 'scanWorker.cjs'),
    scanHelpers: 'processes' as const,
  };
}

/**
 * The file the warm refresh appends to: the largest Claude Code session, a session being
 * written (touched now, so that a first scan keeps it in this process with its parser).
 */
async function appendTarget(c: LocalCorpus): Promise<string> {
  const target = c.files
    .filter((f) => f.harness === 'claude-code' && f.role === 'session')
    .sort((a, b) => b.bytes - a.bytes)[0]!;
  const now = new Date();
  await utimes(target.path, now, now);
  return target.path;
}

/** Refreshes after ~1 MB appended to `target`, five rounds (the file is restored after). */
async function warmRefreshes(
  index: LocalIndex,
  target: string,
  hint = false,
): Promise<{ ms: number[]; read: number }> {
  const original = (await stat(target)).size;
  const ms: number[] = [];
  let read = 0;
  try {
    for (let r = 0; r < 5; r++) {
      const lines = appendLines(MB, r);
      await appendFile(target, lines);
      if (hint) index.noteChanges([target], 'changed');
      const readBefore = index.cache.stats.bytesRead;
      const started = performance.now();
      await index.refresh();
      ms.push(performance.now() - started);
      read = index.cache.stats.bytesRead - readBefore;
    }
  } finally {
    await truncate(target, original);
  }
  return { ms, read };
}

export async function benchLocal(): Promise<Row[]> {
  const c = await localCorpus();
  const options = scanOptions(c);
  const target = { path: await appendTarget(c) };
  const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

  const cold: number[] = [];
  let peakMb = 0;
  let helpersMb = 0;
  let index: LocalIndex | undefined;
  for (let i = 0; i < 3; i++) {
    global.gc?.();
    index = new LocalIndex(options);
    const started = performance.now();
    const { peakMb: peak } = await withPeakRss(() => index!.refresh());
    cold.push(performance.now() - started);
    peakMb = Math.max(peakMb, peak);
    helpersMb = Math.max(helpersMb, index.cache.stats.helperPeakRssKb / 1024);
  }
  const snapshot = index!.snapshot!;
  const totals = buildUsageReport(snapshot, index!.pricing).totals;
  const matches =
    totals.outputTokens === c.expected.total.output &&
    totals.inputTokens === c.expected.total.input &&
    totals.cacheReadTokens === c.expected.total.cacheRead &&
    totals.responses === c.expected.total.responses;
  const coldMs = median(cold);

  // Warm: append ~1 MB to one large file, refresh; five rounds, then restore the file.
  const { ms: warm, read: appendedRead } = await warmRefreshes(index!, target.path);

  const persisted = await benchPersisted(options, c);

  return [
    { name: 'local: corpus size', value: round(c.bytes / MB), unit: 'MB' },
    { name: 'local: corpus files', value: c.files.length, unit: 'files' },
    { name: 'local: cold scan (median of 3)', value: round(coldMs, 0), unit: 'ms' },
    { name: 'local: cold scan, first in process', value: round(cold[0]!, 0), unit: 'ms' },
    {
      name: 'local: cold scan throughput',
      value: round(c.bytes / MB / (coldMs / 1000), 0),
      unit: 'MB/s',
    },
    {
      name: 'local: peak RSS growth of this process during a cold scan',
      value: round(peakMb, 0),
      unit: 'MB',
    },
    {
      name: 'local: peak RSS of the helper processes, summed (they exit after the scan)',
      value: round(helpersMb, 0),
      unit: 'MB',
    },
    {
      name: 'local: warm refresh after a 1 MB append (median of 5)',
      value: round(median(warm)),
      unit: 'ms',
    },
    { name: 'local: bytes read by that refresh', value: round(appendedRead / MB, 2), unit: 'MB' },
    { name: 'local: totals equal the reference computation', value: matches ? 1 : 0, unit: 'bool' },
    ...persisted,
  ];
}

/** Window open with a warm persisted index, and two windows opening together. */
export async function benchPersisted(options: LocalIndexOptions, c: LocalCorpus): Promise<Row[]> {
  const store = await mkdtemp(path.join(os.tmpdir(), 'asi-bench-index-'));
  const persist = (dir: string) => ({ ...options, persist: { dir, version: 'bench' } });
  const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
  try {
    // The window that scanned first and saved the index.
    const first = new LocalIndex(persist(store));
    const expected = await first.refresh();
    const saveStarted = performance.now();
    await first.saveIndex();
    const saveMs = performance.now() - saveStarted;
    const indexBytes = first.persisted!.stats.savedBytes;

    const open: number[] = [];
    let peakMb = 0;
    let read = 0;
    let loadMs = 0;
    let same = true;
    for (let i = 0; i < 3; i++) {
      global.gc?.();
      const started = performance.now();
      const { result: window, peakMb: peak } = await withPeakRss(async () => {
        const index = new LocalIndex(persist(store));
        await index.refresh();
        return index;
      });
      open.push(performance.now() - started);
      peakMb = Math.max(peakMb, peak);
      const s = window.cache.stats;
      read = s.bytesRead + s.statusBytes + s.checkBytes;
      loadMs = window.persisted!.stats.loadMs;
      same &&=
        s.fullScans === 0 &&
        JSON.stringify(window.snapshot!.sessions.map((x) => x.summary)) ===
          JSON.stringify(expected.sessions.map((x) => x.summary));
    }

    // Two windows opening together on an empty store.
    const together = await mkdtemp(path.join(os.tmpdir(), 'asi-bench-index-'));
    let fullScans = 0;
    try {
      const windows = [0, 1].map(() => new LocalIndex(persist(together)));
      await Promise.all(windows.map((w) => w.refresh()));
      fullScans = windows.reduce((n, w) => n + w.cache.stats.fullScans, 0);
    } finally {
      await rm(together, { recursive: true, force: true });
    }

    return [
      {
        name: 'local: window open with a warm persisted index, sessions built (median of 3)',
        value: round(median(open), 0),
        unit: 'ms',
      },
      {
        name: 'local: of which reading and decoding the index',
        value: round(loadMs, 0),
        unit: 'ms',
      },
      {
        name: 'local: transcript bytes read by that window open, of the corpus',
        value: round((read / c.bytes) * 100, 3),
        unit: '%',
      },
      {
        name: 'local: peak RSS growth of this process during that window open',
        value: round(peakMb, 0),
        unit: 'MB',
      },
      { name: 'local: persisted index size', value: round(indexBytes / MB, 1), unit: 'MB' },
      { name: 'local: saving the persisted index', value: round(saveMs, 0), unit: 'ms' },
      {
        name: 'local: window open from the index shows what a scan shows',
        value: same ? 1 : 0,
        unit: 'bool',
      },
      {
        name: 'local: two windows opening together, cold scans in total (1 = each file read once)',
        value: round(fullScans / c.files.length, 2),
        unit: 'scans',
      },
    ];
  } finally {
    await rm(store, { recursive: true, force: true });
  }
}

/**
 * `npm run bench -- local-2gb`: a window that opens from a warm persisted index on the
 * ~2 GB corpus (time to the sessions, transcript bytes read, memory growth), the first
 * usage report after it (every record decoded then), a warm refresh after a 1 MB append
 * in that window, the index's size and save time, and two windows opening together.
 */
export async function benchLocal2gb(): Promise<Row[]> {
  const c = await localCorpus2gb();
  const options = scanOptions(c);
  const target = await appendTarget(c);
  const name = (text: string) => `local 2 GB: ${text}`;
  const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
  const store = await mkdtemp(path.join(os.tmpdir(), 'asi-bench-index-'));
  const persist = (dir: string) => ({ ...options, persist: { dir, version: 'bench' } });
  try {
    // The window that scanned first and saved the index.
    let first: LocalIndex | undefined = new LocalIndex(persist(store));
    const coldStarted = performance.now();
    const scanned = await first.refresh();
    const coldMs = performance.now() - coldStarted;
    const expectedRows = JSON.stringify(scanned.sessions.map((x) => x.summary));
    const expectedShown = canonicalJson(expectedRows);
    const saveStarted = performance.now();
    await first.saveIndex();
    const saveMs = performance.now() - saveStarted;
    const indexBytes = first.persisted!.stats.savedBytes;
    const rowsBytes = (await stat(first.savedRowsFile!.file)).size;
    await first.dispose();
    first = undefined;

    // Each window open alone in a fresh process, as a new extension host starts.
    const open: number[] = [];
    const shownOpen: number[] = [];
    const openCpu: number[] = [];
    let shownSame = true;
    let peakMb = 0;
    let read = 0;
    let loadMs = 0;
    let same = true;
    for (let i = 0; i < 3; i++) {
      const child = spawnSync(
        process.execPath,
        [
          path.join(projectRoot, 'scripts', 'bench', 'localOpen.ts'),
          store,
          c.claudeDir,
          c.codexDir,
        ],
        { encoding: 'utf8', maxBuffer: 256 << 20 },
      );
      if (child.status !== 0) throw new Error(`window open failed: ${child.stderr}`);
      const r = JSON.parse(child.stdout) as {
        ms: number;
        cpuMs: number;
        shownMs: number | null;
        shownRows: string | null;
        peakMb: number;
        read: number;
        fullScans: number;
        loadMs: number;
        recomputed: number;
        rows: string;
      };
      open.push(r.ms);
      openCpu.push(r.cpuMs);
      if (r.shownMs !== null) shownOpen.push(r.shownMs);
      shownSame &&= r.shownRows !== null && canonicalJson(r.shownRows) === expectedShown;
      peakMb = Math.max(peakMb, r.peakMb);
      read = r.read;
      loadMs = r.loadMs;
      same &&= r.fullScans === 0 && r.recomputed === 0 && r.rows === expectedRows;
    }
    let window: LocalIndex | undefined = new LocalIndex(persist(store));
    await window.refresh();
    // The usage report in the last window: every record decoded, on demand.
    const reportStarted = performance.now();
    const totals = buildUsageReport(window!.snapshot!, window!.pricing).totals;
    const reportMs = performance.now() - reportStarted;
    const matches =
      totals.outputTokens === c.expected.total.output &&
      totals.inputTokens === c.expected.total.input &&
      totals.cacheReadTokens === c.expected.total.cacheRead &&
      totals.responses === c.expected.total.responses;
    // A warm refresh in a window that opened from the index and has not decoded records,
    // told which file changed as the extension's file watcher tells it.
    window = new LocalIndex(persist(store));
    await window.refresh();
    const warm = await warmRefreshes(window, target, true);
    window = undefined;

    // Two windows opening together on an empty store.
    const together = await mkdtemp(path.join(os.tmpdir(), 'asi-bench-index-'));
    let fullScans = 0;
    try {
      const windows = [0, 1].map(() => new LocalIndex(persist(together)));
      await Promise.all(windows.map((w) => w.refresh()));
      fullScans = windows.reduce((n, w) => n + w.cache.stats.fullScans, 0);
      await Promise.all(windows.map((w) => w.dispose()));
    } finally {
      await rm(together, { recursive: true, force: true });
    }

    return [
      { name: name('corpus size'), value: round(c.bytes / MB), unit: 'MB' },
      { name: name('corpus files'), value: c.files.length, unit: 'files' },
      {
        name: name('cold scan of the first window (helper processes), before it saves the index'),
        value: round(coldMs, 0),
        unit: 'ms',
      },
      {
        name: name(
          'window open with a warm persisted index, fresh process, sessions built (median of 3)',
        ),
        value: round(median(open), 0),
        unit: 'ms',
      },
      {
        name: name(
          'window open with a warm persisted index, fresh process, sessions shown from the saved rows (median of 3)',
        ),
        value: shownOpen.length === 3 ? round(median(shownOpen), 0) : -1,
        unit: 'ms',
      },
      {
        name: name('CPU time of that window open to the checked sessions (median of 3)'),
        value: round(median(openCpu), 0),
        unit: 'ms',
      },
      {
        name: name('of which reading and checking the index'),
        value: round(loadMs, 0),
        unit: 'ms',
      },
      {
        name: name('transcript bytes read by that window open, of the corpus'),
        value: round((read / c.bytes) * 100, 3),
        unit: '%',
      },
      {
        name: name('peak RSS growth of that process during the window open'),
        value: round(peakMb, 0),
        unit: 'MB',
      },
      {
        name: name('window open from the index shows what a scan shows, no record decoded'),
        value: same ? 1 : 0,
        unit: 'bool',
      },
      {
        name: name('sessions shown from the saved rows equal what a scan shows'),
        value: shownSame ? 1 : 0,
        unit: 'bool',
      },
      {
        name: name('first usage report after that window open (decodes every record)'),
        value: round(reportMs, 0),
        unit: 'ms',
      },
      {
        name: name('usage totals after a window open equal the reference computation'),
        value: matches ? 1 : 0,
        unit: 'bool',
      },
      {
        name: name(
          "warm refresh after a 1 MB append, window opened from the index, watcher's hint (median of 5)",
        ),
        value: round(median(warm.ms)),
        unit: 'ms',
      },
      { name: name('bytes read by that refresh'), value: round(warm.read / MB, 2), unit: 'MB' },
      { name: name('persisted index size'), value: round(indexBytes / MB, 1), unit: 'MB' },
      { name: name('saving the persisted index'), value: round(saveMs, 0), unit: 'ms' },
      { name: name('saved rows size'), value: round(rowsBytes / MB, 1), unit: 'MB' },
      {
        name: name('two windows opening together, cold scans in total (1 = each file read once)'),
        value: round(fullScans / c.files.length, 2),
        unit: 'scans',
      },
    ];
  } finally {
    await rm(store, { recursive: true, force: true });
  }
}
