/**
 * A cold scan split over helpers: a machine with two or more cores reads the transcript
 * files of a first scan in parallel. The files most likely to grow (written recently)
 * stay on the main thread, whose parser state later appends continue from; the rest wait
 * in one queue, largest first, that the helpers (scanWorker.ts, each with its own
 * ScanCache) take from until it is empty. Helpers are worker threads, with the main
 * thread scanning too (and keeping the largest file), or child processes with V8 flags
 * of their own (v8Flags.ts), one per core. A fixed split would leave one helper
 * idle at the end (bytes cost different amounts of work, and a helper starts late); with
 * the queue they finish within one small file of each other. Helpers return each file's
 * usage records, what the cache needs to recognise the file next time, and the parser's
 * state at rest (scannerState.ts), from which this thread builds the summary and, on the
 * file's first append, a scanner that continues from the file's end.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DiscoveredFile } from '../discovery.ts';
import type { PackedUsage } from './packedUsage.ts';
import type { ScannerState } from '../scannerState.ts';
import type { FileSummary } from '../types.ts';

/** What a worker sends back per file (structured-cloned; usage packed, see packedUsage.ts). */
export interface ScannedElsewhere {
  path: string;
  /** The scanner's state at rest (not for a file that could not be read). */
  state?: ScannerState;
  /** The summary of a file that could not be read (no records). */
  failure?: FileSummary;
  usage: PackedUsage;
  copies: PackedUsage;
  size: number;
  mtimeMs: number;
  ino: number;
  dev: number;
  failed: boolean;
  tail: Uint8Array;
}

/** Main thread → worker. */
export type ToWorker = { type: 'scan'; files: DiscoveredFile[] } | { type: 'stop' };
/**
 * Worker → main thread: ready for files, or the results of the last batch (and ready),
 * with the helper's peak resident memory so far (its process's: for a thread, the
 * process it shares).
 */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'scanned'; files: ScannedElsewhere[]; bytesRead: number; peakRssKb: number };

/**
 * What a helper's own scan cache is told (see ScanCacheOptions): a thread gets it as its
 * workerData, a process as its arguments (helperArgs).
 */
export interface HelperOptions {
  /** False: a count of usage only, without the status work (ScanCacheOptions.status). */
  status?: boolean;
}

const NO_STATUS_ARG = '--no-status';

/** A helper process's arguments for `options`. */
function helperArgs(options: HelperOptions): string[] {
  return options.status === false ? [NO_STATUS_ARG] : [];
}

/** The options a helper process was started with (see helperArgs). */
export function helperOptionsFromArgs(args: readonly string[]): HelperOptions {
  return args.includes(NO_STATUS_ARG) ? { status: false } : {};
}

/** Below this many bytes to read from scratch, starting a worker costs more than it saves. */
export const PARALLEL_MIN_BYTES = 24 << 20;
/** Files written this recently are likely to grow: their parser state should stay here. */
const RECENT_MS = 15 * 60_000;
/**
 * A worker takes files from the queue in batches of about this many bytes, or of an
 * eighth of what is left when that is less: near the end the batches shrink, so that no
 * thread waits long for another's last batch (it holds two in flight).
 */
const BATCH_BYTES = 4 << 20;
const MIN_BATCH_BYTES = 256 << 10;

/**
 * Where helpers run. `threads`: worker threads of this process, which also scans. With
 * `processes`: child processes with V8's optimising tier off (v8Flags.ts), one per
 * core, while this thread scans only the files likely to grow; for a host whose V8 flags
 * are not this code's to choose (the VS Code extension host).
 */
export type ScanHelpers = 'threads' | 'processes';

/**
 * Helpers besides this thread: threads, one less than the cores (none on one core), and
 * no more than the cores other work leaves idle (`idle`, by default the cores less the
 * one-minute load average); or processes, one per core (this thread only scans the files
 * likely to grow). At most 3. A helper thread's start-up, its own warm-up of the scanning
 * code and the hand-over of its results cost about half its share of the scan again: that
 * pays back only on a core that would otherwise wait.
 */
export function workerCount(
  helpers: ScanHelpers = 'threads',
  cores = availableParallelism(),
  idle = cores - loadavg()[0]!,
): number {
  if (helpers === 'processes') return Math.max(0, Math.min(3, cores));
  return Math.max(0, Math.min(3, cores - 1, Math.round(idle)));
}

/**
 * Cores other work leaves idle at this moment: the cores less the threads Linux counts
 * as runnable now (the fourth field of /proc/loadavg, this thread included). For a scan
 * that starts right after another (a previous run of the usage-report CLI, another
 * tool), the one-minute load average still counts that work for a minute and says no
 * core is idle. Elsewhere, or unreadable: the cores less the load average.
 */
export function idleCoresNow(cores = availableParallelism()): number {
  let text = '';
  try {
    text = readFileSync('/proc/loadavg', 'latin1');
  } catch {
    // Not Linux: the load average below.
  }
  return idleCoresFrom(text, cores) ?? cores - loadavg()[0]!;
}

/** Idle cores from the text of /proc/loadavg (see idleCoresNow); undefined if not such. */
export function idleCoresFrom(procLoadavg: string, cores: number): number | undefined {
  const runnable = /^\S+ \S+ \S+ (\d+)\//.exec(procLoadavg)?.[1];
  return runnable === undefined ? undefined : cores - Math.max(0, Number(runnable) - 1);
}

/** Files still to scan, largest first, taken by every thread until none is left. */
export class ScanQueue {
  private readonly files: DiscoveredFile[];
  private next = 0;
  /** Bytes of the files not taken yet. */
  private left: number;

  /** `first`: files taken before all others, in this order (see splitForThreads). */
  constructor(files: readonly DiscoveredFile[], first: readonly DiscoveredFile[] = []) {
    this.files = [...first, ...[...files].sort((a, b) => b.size - a.size)];
    this.left = this.files.reduce((n, f) => n + f.size, 0);
  }

  /** The next file, or undefined when the queue is empty. */
  take(): DiscoveredFile | undefined {
    const f = this.files[this.next++];
    if (f) this.left -= f.size;
    return f;
  }

  /**
   * Files adding up to about `bytes` (at least one while any is left); by default a
   * worker's batch, which shrinks towards the end of the queue.
   */
  takeBatch(
    bytes = Math.max(MIN_BATCH_BYTES, Math.min(BATCH_BYTES, this.left / 8)),
  ): DiscoveredFile[] {
    const batch: DiscoveredFile[] = [];
    let total = 0;
    while (this.next < this.files.length && (batch.length === 0 || total < bytes)) {
      const f = this.take()!;
      batch.push(f);
      total += f.size;
    }
    return batch;
  }
}

/**
 * The split of a cold scan: files this thread scans itself (the largest, and any written
 * in the last 15 minutes) and the queue of the others, which every thread takes from.
 *
 * With both harnesses present, each thread first meets a small file of each: this one
 * the smallest of each harness, the first worker batch the next smallest. V8 compiles
 * the hot scanning code once per thread; code compiled while it has seen only one
 * scanner's objects is thrown away and compiled again when the other's arrive, so each
 * thread sees both before that point.
 */
export function splitForThreads(
  files: readonly DiscoveredFile[],
  now: number,
  /**
   * False with helper processes, when this thread takes nothing from the queue: it keeps
   * only the recently written files, and the queue starts with all the small ones.
   */
  scansQueue = true,
  /**
   * False for files read once (the usage-report CLI): no later append continues from a
   * state, so recent files go to the queue like the others rather than all to this thread.
   */
  keepRecent = true,
): { here: DiscoveredFile[]; queue: ScanQueue } {
  let largest: DiscoveredFile | undefined;
  if (scansQueue) for (const f of files) if (!largest || f.size > largest.size) largest = f;
  const kept = files.filter((f) => f === largest || (keepRecent && now - f.mtimeMs < RECENT_MS));
  const rest = files.filter((f) => !kept.includes(f));
  const smallest = smallestOfEachHarness(rest);
  const firstHere = scansQueue ? smallest.map((l) => l[0]!) : [];
  const firstThere = smallest.flatMap((l) => (scansQueue ? l.slice(1, 2) : l));
  const early = new Set([...firstHere, ...firstThere]);
  return {
    here: [...firstHere, ...kept],
    queue: new ScanQueue(
      rest.filter((f) => !early.has(f)),
      firstThere,
    ),
  };
}

/** Per harness, its two smallest files (smallest first); none when only one harness. */
function smallestOfEachHarness(files: readonly DiscoveredFile[]): DiscoveredFile[][] {
  const byHarness = new Map<string, DiscoveredFile[]>();
  for (const f of files) {
    const list = byHarness.get(f.harness);
    if (list) list.push(f);
    else byHarness.set(f.harness, [f]);
  }
  if (byHarness.size < 2) return [];
  return [...byHarness.values()].map((l) => l.sort((a, b) => a.size - b.size).slice(0, 2));
}

/** The messaging end of a helper, thread or process alike. */
interface HelperEnd {
  send(message: ToWorker): void;
  /** Ends the helper at once (one not given work, or stopped early). */
  kill(): void;
}

/**
 * A scan helper, a worker thread or a child process: started ahead of time (while the
 * folders are being listed, say), then given a queue to take batches from until it is
 * empty. It starts, scans and stops on its own: `stop` is only for a helper that ends up
 * not needed.
 */
export class ScanWorker {
  private readonly end: HelperEnd;
  /** Settles once the helper runs its own code (or failed to start). */
  readonly online: Promise<void>;
  private markOnline: () => void = () => undefined;
  private ready = false;
  private done = false;
  private failure: Error | undefined;
  private job:
    | {
        queue: ScanQueue;
        onScanned: (files: ScannedElsewhere[], bytesRead: number, peakRssKb: number) => void;
        resolve: () => void;
        reject: (error: Error) => void;
        /** Batches sent and not answered: two, so the next one is at hand while this
         * thread is busy and cannot answer at once. */
        inFlight: number;
      }
    | undefined;

  constructor(script: string | URL, helpers: ScanHelpers = 'threads', options: HelperOptions = {}) {
    this.online = new Promise((resolve) => (this.markOnline = resolve));
    this.end =
      helpers === 'processes'
        ? this.startProcess(script, options)
        : this.startThread(script, options);
  }

  private startThread(script: string | URL, options: HelperOptions): HelperEnd {
    const worker = new Worker(script, { workerData: options });
    worker.once('online', () => this.markOnline());
    worker.on('message', (message: FromWorker) => this.onMessage(message));
    worker.once('error', (error) => this.fail(error));
    worker.once('exit', (code) => this.fail(new Error(`the scan worker exited with code ${code}`)));
    return {
      send: (message) => worker.postMessage(message),
      kill: () => void worker.terminate(),
    };
  }

  private startProcess(script: string | URL, options: HelperOptions): HelperEnd {
    // The host's own runtime: Node, or Electron run as Node (the VS Code extension host),
    // without the host's runtime options (an inspector port, say). It sets its V8 flags
    // itself once started (see scanWorker.ts). Structured clone over the channel, like a
    // worker's messages. child_process is loaded here, not with this module: a worker
    // thread loads this module too, and would compile child_process (with net, dgram and
    // readline) as it starts.
    const { fork } = process.getBuiltinModule('node:child_process');
    const child: ChildProcess = fork(
      typeof script === 'string' ? script : fileURLToPath(script),
      helperArgs(options),
      {
        execArgv: [],
        serialization: 'advanced',
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      },
    );
    // The end of what it wrote to stderr says why it failed, if it does.
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-2000);
    });
    child.once('spawn', () => this.markOnline());
    child.on('message', (message) => this.onMessage(message as FromWorker));
    child.once('error', (error) => this.fail(error));
    child.once('exit', (code, signal) => {
      const why = stderr.trim() ? `: ${stderr.trim()}` : '';
      this.fail(new Error(`the scan process exited with ${signal ?? `code ${code}`}${why}`));
    });
    return {
      send: (message) => {
        if (child.connected) child.send(message);
      },
      kill: () => void child.kill(),
    };
  }

  /**
   * Takes batches from `queue` until it is empty, handing each batch's results to
   * `onScanned`. Rejects if the worker fails; files it had taken and not returned are
   * then simply not scanned yet (the caller scans what is missing).
   */
  run(
    queue: ScanQueue,
    onScanned: (files: ScannedElsewhere[], bytesRead: number, peakRssKb: number) => void,
  ): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.job = { queue, onScanned, resolve, reject, inFlight: 0 };
      if (this.ready) this.feed();
    });
  }

  /** Ends a worker that was not given work (or whose work is over). */
  stop(): void {
    if (this.done) return;
    this.done = true;
    this.end.kill();
  }

  private onMessage(message: FromWorker): void {
    if (message.type === 'ready') this.ready = true;
    const job = this.job;
    if (!job) return;
    if (message.type === 'scanned') {
      job.inFlight--;
      job.onScanned(message.files, message.bytesRead, message.peakRssKb);
    }
    this.feed();
  }

  private feed(): void {
    const job = this.job!;
    while (job.inFlight < 2) {
      const files = job.queue.takeBatch();
      if (files.length === 0) break;
      this.end.send({ type: 'scan', files });
      job.inFlight++;
    }
    if (job.inFlight > 0) return;
    this.job = undefined;
    this.done = true;
    this.end.send({ type: 'stop' });
    job.resolve();
  }

  private fail(error: Error): void {
    this.markOnline();
    if (this.done) return;
    this.done = true;
    this.failure = error;
    const job = this.job;
    this.job = undefined;
    job?.reject(error);
  }
}
