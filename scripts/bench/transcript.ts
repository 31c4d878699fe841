/**
 * Transcript engine figures on a 200 MB Claude Code JSONL (generated once and cached in
 * the OS temp dir, keyed by FILE_VERSION): time to the first window of 100 normalized
 * entries, time to the full index, indexing throughput next to a "read + split +
 * JSON.parse every line" baseline on the same file, memory growth while indexing (RSS and
 * heap sampled every few ms), and getWindow latency at random offsets.
 *
 * The file is read from a warm page cache (it was just written or read): the figures are
 * CPU cost, not disk speed. Run with --expose-gc for the retained-heap figure.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, renameSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SeededRandom } from '../../src/demo/random.ts';
import { writeLargeClaudeCodeTranscript } from '../../src/demo/transcripts/index.ts';
import { TranscriptDocument } from '../../src/domain/transcript/transcriptDocument.ts';

/** Bump when the generator options change, so a stale cached file is not reused. */
const FILE_VERSION = 'v1-seed7-200MB';
const TARGET_BYTES = 200_000_000;
const MB = 1_000_000;

interface Row {
  name: string;
  value: number;
  unit: string;
}

/**
 * The cached file, generated in a child process when missing: generating in this process
 * would leave its garbage in our RSS and distort the memory figures.
 */
function benchFile(): string {
  const file = path.join(os.tmpdir(), `asi-bench-transcript-${FILE_VERSION}.jsonl`);
  if (existsSync(file)) return file;
  const partial = `${file}.${process.pid}.partial`;
  const child = spawnSync(
    process.execPath,
    [fileURLToPath(import.meta.url), '--generate', partial],
    {
      stdio: 'inherit',
    },
  );
  if (child.status !== 0) throw new Error('generating the benchmark transcript failed');
  renameSync(partial, file); // whole or absent, never half-written
  return file;
}

async function generate(file: string): Promise<void> {
  await writeLargeClaudeCodeTranscript(file, {
    seed: 7,
    sessionId: '7d3f0c1e-5a2b-4c6d-8e9f-0a1b2c3d4e5f',
    cwd: '/home/dev/orbit-api',
    model: 'claude-sonnet-4-5-20250929',
    startedAt: '2026-05-04T08:00:00.000Z',
    targetBytes: TARGET_BYTES,
    subagents: 40,
    compaction: true,
    quirks: true,
  });
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Max RSS / heapUsed seen while `run` is in flight (sampled on a timer and on demand). */
class MemorySampler {
  maxRss = 0;
  maxHeap = 0;
  private timer: NodeJS.Timeout | undefined;

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), 2);
  }

  sample(): void {
    const m = process.memoryUsage();
    this.maxRss = Math.max(this.maxRss, m.rss);
    this.maxHeap = Math.max(this.maxHeap, m.heapUsed);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }
}

/** The baseline: read in 4 MiB chunks, split into lines, JSON.parse each one. */
async function parseEveryLine(file: string): Promise<{ ms: number; lines: number }> {
  const handle = await open(file, 'r');
  const buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
  const started = performance.now();
  let rest = '';
  let lines = 0;
  let position = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const parts = (rest + buffer.toString('utf8', 0, bytesRead)).split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) {
      try {
        JSON.parse(line);
        lines++;
      } catch {
        // pretty-printed and truncated lines: counted as work done, not as records
      }
    }
  }
  const ms = performance.now() - started;
  await handle.close();
  return { ms, lines };
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

export async function benchTranscript(): Promise<Row[]> {
  const file = benchFile();
  const bytes = statSync(file).size;

  gc?.();
  const before = process.memoryUsage();
  const sampler = new MemorySampler();
  sampler.start();
  const started = performance.now();
  const doc = await TranscriptDocument.open(file, {
    format: 'claude-code',
    onProgress: () => sampler.sample(),
  });
  const first = await doc.getWindow(0, 100);
  const firstWindowMs = performance.now() - started;
  await doc.whenIndexed();
  const fullIndexMs = performance.now() - started;
  sampler.stop();
  if (first.entries.length !== 100) throw new Error('the first window is not 100 entries');
  gc?.();
  const retainedHeap = process.memoryUsage().heapUsed - before.heapUsed;

  // Windows at random offsets (not cached: each offset is new).
  const random = new SeededRandom(99);
  const latencies: number[] = [];
  for (let i = 0; i < 40; i++) {
    const start = random.int(0, doc.entryCount - 100);
    const t = performance.now();
    const window = await doc.getWindow(start, 100);
    latencies.push(performance.now() - t);
    if (window.entries.length !== 100) throw new Error(`short window at ${start}`);
  }
  latencies.sort((a, b) => a - b);

  const searchStarted = performance.now();
  const search = await doc.search('needs-review');
  const searchMs = performance.now() - searchStarted;
  const entries = doc.entryCount;
  const corrections = doc.fitCorrections;
  await doc.close();
  if (corrections !== 0) throw new Error(`${corrections} records did not match their plan`);

  gc?.();
  const baseline = await parseEveryLine(file);

  const mb = bytes / MB;
  const rows: Row[] = [
    { name: 'transcript: file size (Claude Code JSONL)', value: round(mb), unit: 'MB' },
    { name: 'transcript: entries', value: entries, unit: 'entries' },
    { name: 'transcript: first window of 100 entries', value: round(firstWindowMs), unit: 'ms' },
    { name: 'transcript: full index', value: round(fullIndexMs), unit: 'ms' },
    {
      name: 'transcript: indexing throughput',
      value: round(mb / (fullIndexMs / 1000)),
      unit: 'MB/s',
    },
    {
      name: 'transcript: baseline read+split+JSON.parse',
      value: round(mb / (baseline.ms / 1000)),
      unit: 'MB/s',
    },
    {
      name: 'transcript: RSS growth while indexing',
      value: round((sampler.maxRss - before.rss) / MB),
      unit: 'MB',
    },
    {
      name: 'transcript: heap growth while indexing',
      value: round((sampler.maxHeap - before.heapUsed) / MB),
      unit: 'MB',
    },
    {
      name: 'transcript: getWindow(100) at random offset, median',
      value: round(percentile(latencies, 0.5), 2),
      unit: 'ms',
    },
    {
      name: 'transcript: getWindow(100) at random offset, p95',
      value: round(percentile(latencies, 0.95), 2),
      unit: 'ms',
    },
    { name: 'transcript: search, count a rare word', value: round(searchMs), unit: 'ms' },
  ];
  if (gc)
    rows.push({
      name: 'transcript: heap retained by the index',
      value: round(retainedHeap / MB),
      unit: 'MB',
    });
  if (search.total < 1) throw new Error('the rare word was not found');
  return rows;
}

// Run directly: node --expose-gc scripts/bench/transcript.ts
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const generateAt = process.argv.indexOf('--generate');
  if (generateAt >= 0) {
    await generate(process.argv[generateAt + 1]!);
  } else {
    for (const row of await benchTranscript())
      console.log(`${row.name.padEnd(52)} ${String(row.value).padStart(10)} ${row.unit}`);
  }
}
