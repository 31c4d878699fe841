/**
 * The lock that lets one window scan while the others wait (indexLock.ts): a fresh lock of
 * a live holder is waited for, a lock whose holder is gone or that nobody touched for a
 * while is taken over, and of windows taking over one stale lock at once only one gets it,
 * also when they are processes of their own (the race of a rename-based takeover).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { mkdir, readFile, readdir, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { IndexLock } from '../../../../src/sources/local/indexLock.ts';
import { tempDir } from './fixtures.ts';

async function inDir(body: (path: string) => Promise<void>): Promise<void> {
  const { dir, cleanup } = await tempDir('asi-lock-');
  try {
    await body(join(dir, 'index.lock'));
  } finally {
    await cleanup();
  }
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/** Writes a lock as a window of `pid` would have (a directory holding the holder's file). */
async function writeLock(path: string, pid: number, token: string): Promise<string> {
  await mkdir(path);
  const file = join(path, token);
  await writeFile(file, JSON.stringify({ pid, host: hostname(), token, at: Date.now() }));
  return file;
}

/** The holder written in the lock, and the name of its file. */
async function readLock(path: string): Promise<{ entry: string; pid: number; token: string }> {
  const entries = await readdir(path);
  assert.equal(entries.length, 1, 'one holder file');
  const holder = JSON.parse(await readFile(join(path, entries[0]!), 'utf8'));
  return { entry: entries[0]!, pid: holder.pid, token: holder.token };
}

describe('index lock', () => {
  test('a fresh lock of a live holder is waited for, and taken once released', async () => {
    await inDir(async (path) => {
      const a = new IndexLock(path);
      assert.deepEqual(await a.acquire(), { acquired: true, waited: false, tookOver: false });
      const b = new IndexLock(path, { pollMs: 10 });
      let settled = false;
      const waiting = b.acquire().then((r) => {
        settled = true;
        return r;
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal(settled, false, 'still waiting while the holder works');
      await a.release();
      assert.deepEqual(await waiting, { acquired: true, waited: true, tookOver: false });
      assert.equal((await readLock(path)).pid, process.pid);
      await b.release();
      assert.deepEqual(await readdir(join(path, '..')), [], 'released: no lock file left');
    });
  });

  test('a lock whose process is gone is taken over at once', async () => {
    await inDir(async (path) => {
      await writeLock(path, await deadPid(), 'other');
      const lock = new IndexLock(path, { maxWaitMs: 0 });
      assert.deepEqual(await lock.acquire(), { acquired: true, waited: false, tookOver: true });
      await lock.release();
    });
  });

  test('a lock nobody touched for staleMs is taken over, even of a live process', async () => {
    await inDir(async (path) => {
      const file = await writeLock(path, process.pid, 'other');
      const old = new Date(Date.now() - 60_000);
      await utimes(file, old, old);
      const lock = new IndexLock(path, { staleMs: 30_000, maxWaitMs: 0 });
      assert.equal((await lock.acquire()).tookOver, true);
      await lock.release();
      // An empty lock directory (a taker stopped before removing it) holds nobody.
      await mkdir(path);
      assert.equal((await lock.acquire()).acquired, true);
      assert.equal((await readLock(path)).pid, process.pid);
      await lock.release();
      // A lock file left by an older build is judged like a lock: fresh, waited for...
      await writeFile(path, JSON.stringify({ pid: process.pid, host: hostname(), token: 'x' }));
      const waiting = new IndexLock(path, { maxWaitMs: 100, pollMs: 10 });
      assert.deepEqual(await waiting.acquire(), { acquired: false, waited: true, tookOver: false });
      // ...and taken over once nobody touched it for staleMs.
      await utimes(path, old, old);
      assert.equal((await lock.acquire()).tookOver, true);
      assert.equal((await readLock(path)).pid, process.pid);
      await lock.release();
      assert.deepEqual(await readdir(join(path, '..')), []);
    });
  });

  test('the holder keeps its lock fresh while it works', async () => {
    await inDir(async (path) => {
      const a = new IndexLock(path, { heartbeatMs: 20 });
      await a.acquire();
      await new Promise((resolve) => setTimeout(resolve, 400));
      const b = new IndexLock(path, { staleMs: 200, maxWaitMs: 200, pollMs: 10 });
      const r = await b.acquire();
      assert.equal(r.acquired, false, 'touched within staleMs: not stale');
      assert.equal(r.tookOver, false);
      await a.release();
    });
  });

  test('windows taking over one stale lock at once: exactly one gets it', async () => {
    await inDir(async (path) => {
      const dead = await deadPid();
      for (let round = 0; round < 20; round++) {
        await writeLock(path, dead, `stale-${round}`);
        const locks = [0, 1, 2].map(() => new IndexLock(path, { maxWaitMs: 50, pollMs: 5 }));
        const results = await Promise.all(locks.map((l) => l.acquire()));
        assert.equal(results.filter((r) => r.acquired).length, 1, `round ${round}`);
        for (const l of locks) await l.release();
        assert.deepEqual(await readdir(join(path, '..')), [], 'nothing left behind');
      }
    });
  });

  test('windows in separate processes taking over one stale lock: at most one holds it', async () => {
    await inDir(async (path) => {
      const dead = await deadPid();
      const takers = Array.from({ length: 6 }, () => new Taker(path));
      try {
        for (let round = 0; round < 15; round++) {
          await writeLock(path, dead, `stale-${round}`);
          // Every taker acquires at once and keeps what it got until all have answered.
          const acquired = await Promise.all(takers.map((t) => t.ask('acquire')));
          assert.equal(acquired.filter((a) => a === 'acquired').length, 1, `round ${round}`);
          await Promise.all(takers.map((t) => t.ask('release')));
          assert.deepEqual(await readdir(join(path, '..')), [], 'nothing left behind');
        }
      } finally {
        for (const t of takers) t.close();
      }
    });
  });

  test('a lock judged stale that another window replaced meanwhile is left in place', async () => {
    await inDir(async (path) => {
      const fresh = new IndexLock(path);
      await fresh.acquire();
      const { entry, token } = await readLock(path);
      const late = new IndexLock(path);
      assert.equal(await late.takeOver('stale-token'), false);
      assert.equal((await readLock(path)).token, token, 'the fresh lock is still in place');
      assert.deepEqual(await readdir(join(path, '..')), ['index.lock'], 'nothing else left');
      assert.equal(await late.takeOver(entry), true, 'the lock it judged is removed');
      assert.deepEqual(await readdir(join(path, '..')), []);
      await fresh.release();
    });
  });

  test('release leaves a lock that is not its own', async () => {
    await inDir(async (path) => {
      const a = new IndexLock(path);
      await a.acquire();
      assert.equal(await new IndexLock(path).takeOver((await readLock(path)).entry), true);
      const b = new IndexLock(path, { maxWaitMs: 0 });
      assert.equal((await b.acquire()).acquired, true);
      const { token } = await readLock(path);
      await a.release();
      assert.equal((await readLock(path)).token, token, "b's lock stays");
      await b.release();
    });
  });
});

const LOCK_MODULE = pathToFileURL(
  join(import.meta.dirname, '../../../../src/sources/local/indexLock.ts'),
).href;

/**
 * A window in a process of its own: answers each line on stdin ('acquire', 'release') with
 * a line once done, so that rounds are ordered by messages, not by timers.
 */
class Taker {
  private readonly child: ChildProcess;
  private readonly answers: string[] = [];
  private waiting: { resolve: (line: string) => void; reject: (e: Error) => void } | undefined;

  constructor(path: string) {
    const script = `
      import { createInterface } from 'node:readline';
      const { IndexLock } = await import(${JSON.stringify(LOCK_MODULE)});
      let lock;
      for await (const line of createInterface({ input: process.stdin })) {
        if (line === 'acquire') {
          lock = new IndexLock(${JSON.stringify(path)}, { maxWaitMs: 100, pollMs: 5 });
          const r = await lock.acquire();
          process.stdout.write((r.acquired ? 'acquired' : 'not') + '\\n');
        } else {
          await lock.release();
          process.stdout.write('released\\n');
        }
      }`;
    this.child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting) waiting.resolve(line);
      else this.answers.push(line);
    });
    this.child.once('exit', (code) => this.waiting?.reject(new Error(`taker exited (${code})`)));
  }

  ask(command: 'acquire' | 'release'): Promise<string> {
    this.child.stdin!.write(command + '\n');
    const answer = this.answers.shift();
    if (answer !== undefined) return Promise.resolve(answer);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  close(): void {
    this.child.stdin!.end();
  }
}
