/**
 * A cold scan split over threads: a machine with two or more cores reads the transcript
 * files of a first scan in parallel, the main thread taking one share and worker threads
 * (scanWorker.ts, each with its own ScanCache) the others. Workers return each file's
 * summary and what the cache needs to recognise the file next time, but not the parser
 * state, which stays in the worker: a file scanned there is read in full again on its
 * first append. That is why the files most likely to grow (written recently) and the
 * largest ones stay on the main thread.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { DiscoveredFile } from './discovery.ts';
import type { FileSummary } from './types.ts';

/** What a worker sends back per file (structured-cloned). */
export interface ScannedElsewhere {
  path: string;
  summary: FileSummary;
  size: number;
  mtimeMs: number;
  ino: number;
  dev: number;
  failed: boolean;
  tail: Uint8Array;
}

export interface WorkerResult {
  files: ScannedElsewhere[];
  bytesRead: number;
}

/** Below this many bytes to read from scratch, starting a worker costs more than it saves. */
export const PARALLEL_MIN_BYTES = 24 << 20;
/** Files written this recently are likely to grow: their parser state should stay here. */
const RECENT_MS = 15 * 60_000;

/** Worker threads to use besides the main thread (none on one core; at most 3). */
export function workerCount(): number {
  return Math.max(0, Math.min(3, availableParallelism() - 1));
}

/**
 * What the main thread reads while a worker starts (measured: a worker begins about
 * 100 ms later, at 80 MB/s or so while both run): counted in each worker's share so that
 * the threads finish together. At most a quarter of an even share.
 */
export const WORKER_START_BYTES = 8 << 20;

/**
 * Shares of `files` for the main thread and `workers` workers, balanced by bytes: the
 * largest file and recently written ones go to the main thread, the rest by size
 * (largest first) to whichever share is smallest, a worker's counting its start-up.
 */
export function splitForThreads(
  files: readonly DiscoveredFile[],
  workers: number,
  now: number,
  workerStartBytes = WORKER_START_BYTES,
): { main: DiscoveredFile[]; workers: DiscoveredFile[][] } {
  // Never more than a small part of a share (a small scan still gets split).
  const total = files.reduce((n, f) => n + f.size, 0);
  const headStart = Math.min(workerStartBytes, total / (4 * (workers + 1)));
  const bins = Array.from({ length: workers + 1 }, (_, i) => ({
    bytes: i === 0 ? 0 : headStart,
    files: [] as DiscoveredFile[],
  }));
  const sorted = [...files].sort((a, b) => b.size - a.size);
  sorted.forEach((file, i) => {
    const keep = i === 0 || now - file.mtimeMs < RECENT_MS;
    const bin = keep ? bins[0]! : bins.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    bin.bytes += file.size;
    bin.files.push(file);
  });
  return { main: bins[0]!.files, workers: bins.slice(1).map((b) => b.files) };
}

/** Scans `files` in a worker running `script`; rejects if the worker fails. */
export function scanInWorker(script: string | URL, files: DiscoveredFile[]): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { workerData: { files } });
    let settled = false;
    worker.once('message', (result: WorkerResult) => {
      settled = true;
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', (error) => {
      if (!settled) reject(error);
      settled = true;
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the scan worker exited with code ${code}`));
      settled = true;
    });
  });
}
