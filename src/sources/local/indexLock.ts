/**
 * A lock file shared by every extension host (VS Code window) on the machine: the one
 * that holds it scans the files nobody has indexed yet and saves the persisted index; the
 * others wait for it and read what it saved. The file is created exclusively and holds
 * the holder's pid, host and a token; the holder touches it while it works. A lock whose
 * file was not touched for `staleMs`, or whose holder's process is gone (same host), is
 * taken over: it is renamed away first, so that of two windows taking it over at once
 * only one removes it, and one that was renamed while fresh is put back.
 */
import { randomUUID } from 'node:crypto';
import { link, mkdir, open, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';

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
      if (holder.stale) {
        if (await this.takeOver(holder.content)) result.tookOver = true;
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
    const text = await readFile(this.path, 'utf8').catch(() => '');
    if (parseHolder(text)?.token === token) await unlink(this.path).catch(() => undefined);
  }

  private async tryCreate(): Promise<'created' | 'exists' | 'failed'> {
    const token = randomUUID();
    const holder: Holder = { pid: process.pid, host: hostname(), token, at: Date.now() };
    try {
      await mkdir(dirname(this.path), { recursive: true });
      const handle = await open(this.path, 'wx');
      try {
        await handle.writeFile(JSON.stringify(holder));
      } finally {
        await handle.close();
      }
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EEXIST' ? 'exists' : 'failed';
    }
    this.token = token;
    this.heartbeat = setInterval(() => {
      const now = new Date();
      void utimes(this.path, now, now).catch(() => undefined);
    }, this.options.heartbeatMs);
    this.heartbeat.unref();
    return 'created';
  }

  /** The lock's holder and whether it is stale; 'gone' when the lock vanished meanwhile. */
  private async readHolder(): Promise<'gone' | { stale: boolean; content: string }> {
    let content: string;
    let mtimeMs: number;
    try {
      [content, mtimeMs] = await Promise.all([
        readFile(this.path, 'utf8'),
        stat(this.path).then((s) => s.mtimeMs),
      ]);
    } catch {
      return 'gone';
    }
    const holder = parseHolder(content);
    if (Date.now() - mtimeMs > this.options.staleMs) return { stale: true, content };
    // Its process is gone (on this host: a pid means nothing elsewhere).
    const dead = holder !== undefined && holder.host === hostname() && !this.alive(holder.pid);
    return { stale: dead, content };
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
   * Removes a stale lock whose content was `seen`: renamed to a name of this process's
   * own first, then removed if it still is that lock; a lock that is not (another window
   * took the stale one over and made a fresh one in between) is put back. Public for
   * tests: that interleaving cannot be arranged through acquire.
   */
  async takeOver(seen: string): Promise<boolean> {
    const aside = `${this.path}.${process.pid}.${randomUUID().slice(0, 8)}.stale`;
    try {
      await rename(this.path, aside);
    } catch {
      return false;
    }
    const content = await readFile(aside, 'utf8').catch(() => '');
    if (content !== seen) {
      // link fails if a lock exists again: never replaces one.
      await link(aside, this.path).catch(() => undefined);
      await unlink(aside).catch(() => undefined);
      return false;
    }
    await unlink(aside).catch(() => undefined);
    return true;
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
