/**
 * Worker thread entry for parallel cold scans (parallelScan.ts): scans the files it is
 * given with its own ScanCache and posts each file's summary and cache key back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { DiscoveredFile } from './discovery.ts';
import type { WorkerResult } from './parallelScan.ts';
import { ScanCache } from './scanCache.ts';

async function main(): Promise<void> {
  const files = (workerData as { files: DiscoveredFile[] }).files;
  const cache = new ScanCache();
  const summaries = await cache.scanAll(files);
  const result: WorkerResult = {
    files: files.map((f, i) => ({ ...cache.exportEntry(f.path)!, summary: summaries[i]! })),
    bytesRead: cache.stats.bytesRead,
  };
  parentPort?.postMessage(result);
}

void main();
