/**
 * A lock shared by every extension host (VS Code window) on the machine: the one that
 * holds it scans the files nobody has indexed yet and saves the persisted index; the
 * others wait for it and read what it saved. The lock is a directory holding one file,
 * named by the holder's token, with its pid and host; the holder touches that file while
 * it works. The directory is built under a name of the holder's own and renamed into
 * place, which fails while a lock exists. A lock whose file was not touched for `staleMs`,
 * or whose holder's process is gone (same host), is taken over by removing that file,
 * which only one window can do and which never removes a newer lock (its file has
 * another name), then the directory, which `rmdir` removes only while it is empty.
 */
import {
  mkdir,
  readFile,
  readdir,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';

export interface IndexLockOptions {
  /** A lock not touched for this long is stale (default 30 s). */
  staleMs?: number;
  /** How often the holder touches the lock (default 5 s). */
  heartbeatMs?: number;
  /** How often a waiting window looks again (default 100 ms). */
  pollMs?: number;
  /** Longest wait for another holder before going ahead without the lock (default 5 min). */
  maxWaitMs?: number;
  /** Whether a process runs (tests; default: signal 0). */
  isAlive?: (pid: number) => boolean;
}

interface Holder {
  pid: number;
  host: string;
  token: string;
  at: number;
}

export interface LockResult {
  /** False: the wait timed out (or the folder cannot hold a lock); go ahead unlocked. */
  acquired: boolean;
  /** Another holder was waited for (its index is worth reading again). */
  waited: boolean;
  /** A stale lock was taken over. */
  tookOver: boolean;
}

const DEFAULTS = { staleMs: 30_000, heartbeatMs: 5_000, pollMs: 100, maxWaitMs: 300_000 };

export class IndexLock {
  readonly path: string;
  private readonly options: Required<Omit<IndexLockOptions, 'isAlive'>> &
    Pick<IndexLockOptions, 'isAlive'>;
  private token: string | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(path: string, options: IndexLockOptions = {}) {
    this.path = path;
    this.options = { ...DEFAULTS, ...options };
  }

  get held(): boolean {
    return this.token !== undefined;
  }

  /**
   * Takes the lock, waiting while another live holder keeps it fresh; `onWait` is called
   * once, when the wait begins.
   */
  async acquire(onWait?: () => void): Promise<LockResult> {
    const result: LockResult = { acquired: false, waited: false, tookOver: false };
    if (this.token) return { ...result, acquired: true };
    const deadline = Date.now() + this.options.maxWaitMs;
    for (;;) {
      const attempt = await this.tryCreate();
      if (attempt === 'created') return { ...result, acquired: true };
      if (attempt === 'failed') return result;
      const holder = await this.readHolder();
      if (holder === 'gone') continue;
      // A takeover that fails (another window's came first) waits like any other.
      if (holder.stale && (await this.takeOver(holder.entry))) {
        result.tookOver = true;
        continue;
      }
      if (Date.now() >= deadline) return result;
      if (!result.waited) onWait?.();
      result.waited = true;
      await sleep(this.options.pollMs);
    }
  }

  /** Gives the lock up (if this still holds it). */
  async release(): Promise<void> {
    const token = this.token;
    if (!token) return;
    this.token = undefined;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    // Fails when the lock was taken over: then it is another window's, and stays.
    const removed = await unlink(join(this.path, token)).then(
      () => true,
      () => false,
    );
    if (removed) await rmdir(this.path).catch(() => undefined);
  }

  private async tryCreate(): Promise<'created' | 'exists' | 'failed'> {
    // node:crypto is loaded on first use (see persistedIndex.ts).
    const token = process.getBuiltinModule('node:crypto').randomUUID();
    const holder: Holder = { pid: process.pid, host: hostname(), token, at: Date.now() };
    const building = `${this.path}.${token.slice(0, 8)}.new`;
    try {
      await mkdir(dirname(this.path), { recursive: true });
      await mkdir(building);
      await writeFile(join(building, token), JSON.stringify(holder));
      // Fails while a lock holds its file (an empty directory is one being taken over).
      await rename(building, this.path);
    } catch (error) {
      await rm(building, { recursive: true, force: true }).catch(() => undefined);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOTEMPTY' || code === 'ENOTDIR') return 'exists';
      // Windows refuses to rename over any directory with EPERM.
      const exists = await stat(this.path).then(
        () => true,
        () => false,
      );
      return code === 'EPERM' && exists ? 'exists' : 'failed';
    }
    this.token = token;
    this.heartbeat = setInterval(() => {
      const now = new Date();
      void utimes(join(this.path, token), now, now).catch(() => undefined);
    }, this.options.heartbeatMs);
    this.heartbeat.unref();
    return 'created';
  }

  /**
   * The lock's holder file (`entry`; undefined for an empty directory or a lock file left
   * by an older build) and whether it is stale; 'gone' when the lock vanished meanwhile.
   */
  private async readHolder(): Promise<'gone' | { stale: boolean; entry: string | undefined }> {
    let entry: string | undefined;
    try {
      entry = (await readdir(this.path))[0];
      // Nobody's lock: one being taken over, or whose taker stopped before removing it.
      if (entry === undefined) return { stale: true, entry };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') return 'gone';
    }
    const file = entry === undefined ? this.path : join(this.path, entry);
    let content: string;
    let mtimeMs: number;
    try {
      mtimeMs = (await stat(file)).mtimeMs;
      content = await readFile(file, 'utf8');
    } catch {
      return 'gone';
    }
    if (Date.now() - mtimeMs > this.options.staleMs) return { stale: true, entry };
    // Its process is gone (on this host: a pid means nothing elsewhere).
    const holder = parseHolder(content);
    const dead = holder !== undefined && holder.host === hostname() && !this.alive(holder.pid);
    return { stale: dead, entry };
  }

  private alive(pid: number): boolean {
    if (this.options.isAlive) return this.options.isAlive(pid);
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }

  /**
   * Removes a stale lock whose holder file is `entry`: that file first (of windows taking
   * it over at once only one succeeds, and a newer lock, whose file has another name, is
   * left alone), then the directory if it is empty. Without `entry` (an empty directory,
   * or a lock file of an older build), only that. Public for tests: a lock replaced between
   * being judged and being taken over cannot be arranged through acquire.
   */
  async takeOver(entry: string | undefined): Promise<boolean> {
    if (entry !== undefined) {
      try {
        await unlink(join(this.path, entry));
      } catch {
        return false;
      }
      await rmdir(this.path).catch(() => undefined);
      return true;
    }
    // rmdir removes only an empty directory; an older build's lock file is unlinked.
    return rmdir(this.path).then(
      () => true,
      (error: NodeJS.ErrnoException) =>
        error.code === 'ENOTDIR'
          ? unlink(this.path).then(
              () => true,
              () => false,
            )
          : false,
    );
  }
}

function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (typeof value.pid === 'number' && typeof value.token === 'string') {
      return {
        pid: value.pid,
        token: value.token,
        host: typeof value.host === 'string' ? value.host : '',
        at: typeof value.at === 'number' ? value.at : 0,
      };
    }
  } catch {
    // A lock being written, or garbage: judged by its age alone.
  }
  return undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
