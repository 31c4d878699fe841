/**
 * Entry of a scan helper for parallel cold scans (parallelScan.ts), run as a worker thread
 * or as a child process: says it is ready, scans each batch of files it is sent with its
 * own ScanCache and posts every file's records, scanner state and cache key back, until the main thread
 * says the queue is empty.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { mapLimited } from '../../../util/mapLimited.ts';
import type { DiscoveredFile } from '../discovery.ts';
import {
  helperOptionsFromArgs,
  type FromWorker,
  type HelperOptions,
  type ToWorker,
} from './parallelScan.ts';
import { useScanProcessFlags } from './v8Flags.ts';
import { packUsage } from './packedUsage.ts';
import { ScanCache } from '../scanCache.ts';

/** Files read at once, as on the main thread (see scanCache.ts). */
const CONCURRENCY = 3;

/** The channel to the main thread: a worker's port, or a child process's IPC channel. */
interface Port {
  postMessage(message: FromWorker): void;
  on(event: 'message', listener: (message: ToWorker) => void): void;
  close(): void;
}

function processPort(): Port | undefined {
  const send = process.send?.bind(process);
  if (!send) return undefined;
  // The main process stopped this one or went away (the extension host quit mid-scan):
  // nothing more to send to, nothing to finish.
  process.once('disconnect', () => process.exit(0));
  return {
    postMessage: (message) => void send(message),
    on: (event, listener) => void process.on(event, listener),
    close: () => process.disconnect(),
  };
}

const port: Port | undefined = parentPort ?? processPort();
// A helper process's V8 flags are its own (a thread shares its process's).
if (port && !parentPort) useScanProcessFlags();
if (port) {
  const options: HelperOptions = parentPort
    ? ((workerData as HelperOptions | null) ?? {})
    : helperOptionsFromArgs(process.argv.slice(2));
  // This thread only scans: blocking reads cost less than the thread pool's round trips.
  const cache = new ScanCache({ ...options, blockingReads: true });
  // Batches arrive ahead of time (so this thread never waits for the next one) and are
  // scanned one after another.
  const batches: DiscoveredFile[][] = [];
  let scanning = false;
  const scanNext = async (): Promise<void> => {
    scanning = true;
    for (let files = batches.shift(); files; files = batches.shift()) {
      const before = cache.stats.bytesRead;
      const summaries = await mapLimited(files, CONCURRENCY, (f) => cache.scan(f));
      const reply: FromWorker = {
        type: 'scanned',
        files: files.map((f, i) => {
          const { usage, copies } = summaries[i]!;
          return {
            ...cache.takeEntry(f.path)!,
            usage: packUsage(usage),
            copies: packUsage(copies),
          };
        }),
        bytesRead: cache.stats.bytesRead - before,
        peakRssKb: process.resourceUsage().maxRSS,
      };
      port.postMessage(reply);
    }
    scanning = false;
  };
  port.on('message', (message: ToWorker) => {
    if (message.type === 'stop') {
      port.close();
      return;
    }
    batches.push(message.files);
    if (!scanning) void scanNext();
  });
  port.postMessage({ type: 'ready' } satisfies FromWorker);
}
