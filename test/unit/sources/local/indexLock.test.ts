/**
 * The lock that lets one window scan while the others wait (indexLock.ts): a fresh lock of
 * a live holder is waited for, a lock whose holder is gone or that nobody touched for a
 * while is taken over, and of windows taking over one stale lock at once only one gets it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, readdir, utimes, writeFile } from 'node:fs/promises';
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

const holder = (pid: number, token = 'other') =>
  JSON.stringify({ pid, host: hostname(), token, at: Date.now() });

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
      assert.equal(JSON.parse(await readFile(path, 'utf8')).pid, process.pid);
      await b.release();
      assert.deepEqual(await readdir(join(path, '..')), [], 'released: no lock file left');
    });
  });

  test('a lock whose process is gone is taken over at once', async () => {
    await inDir(async (path) => {
      await writeFile(path, holder(await deadPid()));
      const lock = new IndexLock(path, { maxWaitMs: 0 });
      assert.deepEqual(await lock.acquire(), { acquired: true, waited: false, tookOver: true });
      await lock.release();
    });
  });

  test('a lock nobody touched for staleMs is taken over, even of a live process', async () => {
    await inDir(async (path) => {
      await writeFile(path, holder(process.pid));
      const old = new Date(Date.now() - 60_000);
      await utimes(path, old, old);
      const lock = new IndexLock(path, { staleMs: 30_000, maxWaitMs: 0 });
      assert.equal((await lock.acquire()).tookOver, true);
      await lock.release();
      // A half-written lock (no content yet) is judged by its age alone: fresh, waited for.
      await writeFile(path, '');
      const waiting = new IndexLock(path, { maxWaitMs: 100, pollMs: 10 });
      assert.deepEqual(await waiting.acquire(), { acquired: false, waited: true, tookOver: false });
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
        await writeFile(path, holder(dead, `stale-${round}`));
        const locks = [0, 1, 2].map(() => new IndexLock(path, { maxWaitMs: 50, pollMs: 5 }));
        const results = await Promise.all(locks.map((l) => l.acquire()));
        assert.equal(results.filter((r) => r.acquired).length, 1, `round ${round}`);
        for (const l of locks) await l.release();
        assert.deepEqual(await readdir(join(path, '..')), [], 'nothing left behind');
      }
    });
  });

  test('a lock judged stale that another window replaced meanwhile is put back, not removed', async () => {
    await inDir(async (path) => {
      const stale = holder(await deadPid(), 'stale');
      const fresh = holder(process.pid, 'fresh');
      await writeFile(path, fresh);
      const late = new IndexLock(path);
      assert.equal(await late.takeOver(stale), false);
      assert.equal(await readFile(path, 'utf8'), fresh, 'the fresh lock is back in place');
      assert.deepEqual(await readdir(join(path, '..')), ['index.lock'], 'nothing else left');
      assert.equal(await late.takeOver(fresh), true, 'the lock it judged is removed');
      assert.deepEqual(await readdir(join(path, '..')), []);
    });
  });

  test('release leaves a lock that is not its own', async () => {
    await inDir(async (path) => {
      const a = new IndexLock(path);
      await a.acquire();
      await writeFile(path, holder(process.pid, 'someone-else'));
      await a.release();
      assert.equal(JSON.parse(await readFile(path, 'utf8')).token, 'someone-else');
    });
  });
});
