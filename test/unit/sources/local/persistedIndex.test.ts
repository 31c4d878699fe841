/**
 * The scan cache kept on disk and shared by windows (persistedIndex.ts, indexLock.ts):
 * a second window reads no transcript it does not have to, continues a grown file from
 * where another window stopped, and scans files nobody indexed once in total when it
 * opens together with another; an index that is damaged, from another version or cut
 * short by a killed writer is rebuilt with one log line, never a crash.
 */
import assert from 'node:assert/strict';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import {
  appendFile,
  mkdir,
  readFile,
  readdir,
  rename,
  rm,
  stat,
  truncate,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { watch } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { LocalIndex, type LocalSnapshot } from '../../../../src/sources/local/localIndex.ts';
import {
  INDEX_FORMAT_VERSION,
  PersistedIndex,
  type PersistOptions,
} from '../../../../src/sources/local/persistedIndex.ts';
import type { ScanStats } from '../../../../src/sources/local/scanCache.ts';
import type { PersistStats } from '../../../../src/sources/local/persistedIndex.ts';
import { buildUsageReport } from '../../../../src/sources/local/usageReport.ts';
import { writeLocalCorpus, type LocalCorpus } from '../../../support/localCorpus.ts';
import { assistant, jsonl, tempDir, usage } from './fixtures.ts';
import { syntheticIndex } from './indexFixtures.ts';

const CHILD = fileURLToPath(new URL('./indexChild.ts', import.meta.url));

interface World {
  dir: string;
  corpus: LocalCorpus;
  store: string;
  /** A window: a LocalIndex persisting to the shared store. */
  open: (persist?: Partial<PersistOptions>) => LocalIndex;
  logs: string[];
}

async function inWorld(body: (w: World) => Promise<void>): Promise<void> {
  const { dir, cleanup } = await tempDir('asi-index-');
  try {
    const corpus = await writeLocalCorpus(join(dir, 'corpus'), {
      claudeSessions: 4,
      codexSessions: 3,
    });
    const store = join(dir, 'store');
    const logs: string[] = [];
    const open = (persist: Partial<PersistOptions> = {}) =>
      new LocalIndex({
        claudeConfigDirs: [corpus.claudeDir],
        codexHome: corpus.codexDir,
        persist: { dir: store, version: '1.0.0', log: (m) => logs.push(m), ...persist },
      });
    await body({ dir, corpus, store, open, logs });
  } finally {
    await cleanup();
  }
}

/** What a window shows: the sessions' summaries (rows) and the usage totals. */
function shown(snapshot: LocalSnapshot, index: LocalIndex): unknown {
  return {
    rows: snapshot.sessions.map((s) => s.summary),
    totals: buildUsageReport(snapshot, index.pricing).totals,
  };
}

async function indexFile(store: string): Promise<string> {
  const name = (await readdir(store)).find((n) => n.endsWith('.idx'));
  assert.ok(name, 'an index file was written');
  return join(store, name);
}

/** A window that scanned the corpus cold and saved the index (which it does at once). */
async function firstWindow(w: World): Promise<{ index: LocalIndex; snapshot: LocalSnapshot }> {
  const index = w.open();
  const snapshot = await index.refresh();
  await index.saveIndex();
  assert.equal(index.cache.stats.fullScans, w.corpus.files.length);
  assert.equal(index.persisted!.stats.saves, 1, 'saved once, right after the cold scan');
  return { index, snapshot };
}

describe('persisted local index', () => {
  test('round trip: the next window reads no transcript and shows the same', async () => {
    await inWorld(async (w) => {
      const a = await firstWindow(w);
      const b = w.open();
      const snapshot = await b.refresh();
      assert.equal(b.cache.stats.bytesRead, 0, 'no transcript byte read');
      assert.ok(a.index.cache.stats.metaReads > 0, 'the corpus has subagent meta files');
      assert.equal(b.cache.stats.metaReads, 0, 'subagent metadata from the index');
      assert.equal(b.cache.stats.fullScans, 0);
      assert.equal(b.cache.stats.seeded, w.corpus.files.length);
      assert.equal(b.persisted!.stats.loads, 1);
      assert.equal(b.cache.stats.workersStarted, 0, 'no helper started for a warm index');
      assert.deepEqual(shown(snapshot, b), shown(a.snapshot, a.index));
      const totals = buildUsageReport(snapshot, b.pricing).totals;
      assert.equal(totals.outputTokens, w.corpus.expected.total.output);
      assert.equal(totals.responses, w.corpus.expected.total.responses);
      // Nothing changed: nothing to save.
      await b.dispose();
      assert.equal(b.persisted!.stats.saves, 0);
      assert.deepEqual(w.logs, []);
    });
  });

  const damages: [string, (file: string) => Promise<void>][] = [
    [
      'a changed byte',
      async (file) => {
        const buf = await readFile(file);
        buf[buf.length - 100] = buf[buf.length - 100]! ^ 0x40;
        await writeFile(file, buf);
      },
    ],
    ['cut in half', async (file) => truncate(file, (await stat(file)).size >> 1)],
    ['cut inside its header', async (file) => truncate(file, 10)],
    ['empty', async (file) => writeFile(file, '')],
    ['not an index', async (file) => writeFile(file, '{"entries": []}\n')],
    [
      'an older format',
      async (file) => {
        const buf = await readFile(file);
        buf.writeUInt32LE(INDEX_FORMAT_VERSION - 1, 8);
        await writeFile(file, buf);
      },
    ],
  ];
  for (const [name, damage] of damages) {
    test(`an index ${name}: rebuilt from the transcripts, with one log line`, async () => {
      await inWorld(async (w) => {
        const a = await firstWindow(w);
        await damage(await indexFile(w.store));
        const b = w.open();
        assert.deepEqual(shown(await b.refresh(), b), shown(a.snapshot, a.index));
        assert.equal(b.cache.stats.fullScans, w.corpus.files.length, 'everything read again');
        await b.refresh();
        await b.saveIndex();
        assert.equal(w.logs.length, 1, w.logs.join('\n'));
        assert.match(w.logs[0]!, /cannot be used .*rebuilt from the transcripts/);
        // Rebuilt: the next window uses it.
        const c = w.open();
        await c.refresh();
        assert.equal(c.cache.stats.fullScans, 0);
        assert.equal(w.logs.length, 1);
      });
    });
  }

  test('a damaged body (state and records, read only when needed): that file is read from the start when it grows', async () => {
    await inWorld(async (w) => {
      const a = await firstWindow(w);
      const file = await indexFile(w.store);
      const buf = await readFile(file);
      // The first body (the newest file's), inside its state: the heads still check out.
      buf[4096 + 12] = buf[4096 + 12]! ^ 0x40;
      await writeFile(file, buf);
      const b = w.open();
      const opened = await b.refresh();
      assert.equal(b.cache.stats.fullScans, 0, 'rows and summaries from the heads');
      assert.deepEqual(
        opened.sessions.map((s) => s.summary),
        a.snapshot.sessions.map((s) => s.summary),
      );
      const newest = [...a.snapshot.files].sort((x, y) => y.mtimeMs - x.mtimeMs)[0]!;
      await appendFile(
        newest.path,
        jsonl(assistant({ id: 'late', usage: usage(5, 7), seconds: 9e6 })),
      );
      const grown = await b.refresh();
      assert.equal(b.cache.stats.fullScans, 1, 'the damaged one read from the start');
      assert.equal(b.cache.stats.appendScans, 0);
      const scan = w.open();
      await rm(w.store, { recursive: true, force: true });
      assert.deepEqual(shown(grown, b), shown(await scan.refresh(), scan));
      assert.deepEqual(w.logs, []);
      // Their saves (the scan's, under the lock; b's timer) must end before the folder is removed.
      await scan.dispose();
      await b.dispose();
    });
  });

  test('an index another version of the extension wrote: rebuilt, one log line', async () => {
    await inWorld(async (w) => {
      await firstWindow(w);
      const b = w.open({ version: '1.0.1' });
      await b.refresh();
      assert.equal(b.cache.stats.fullScans, w.corpus.files.length);
      assert.equal(w.logs.length, 1);
      assert.match(w.logs[0]!, /written by scanner \d+\/1\.0\.0, this is \d+\/1\.0\.1/);
      await b.dispose(); // its save under the lock ends before the folder is removed
    });
  });

  test('changed files are read from the start, appended ones from their saved end', async () => {
    await inWorld(async (w) => {
      const a = await firstWindow(w);
      const files = a.snapshot.files.filter(
        (f) => f.harness === 'claude-code' && f.role === 'session',
      );
      const [touched, shrunk, replaced, grown] = files;
      assert.ok(grown, 'enough files');
      await utimes(touched!.path, new Date(), new Date()); // mtime moved, same size
      await truncate(shrunk!.path, shrunk!.size - 10);
      const copy = await readFile(replaced!.path);
      await writeFile(`${replaced!.path}.new`, copy);
      await rename(`${replaced!.path}.new`, replaced!.path); // same bytes, another inode
      const line = jsonl(assistant({ id: 'more', usage: usage(5, 7), seconds: 9e6 }));
      await appendFile(grown.path, line);

      const b = w.open();
      const snapshot = await b.refresh();
      const stats = b.cache.stats;
      assert.equal(stats.fullScans, 3, 'the touched, shrunk and replaced files');
      assert.equal(stats.appendScans, 1, 'the grown one continues');
      assert.equal(
        stats.bytesRead,
        touched!.size + (shrunk!.size - 10) + replaced!.size + Buffer.byteLength(line),
      );
      const fresh = new LocalIndex({
        claudeConfigDirs: [w.corpus.claudeDir],
        codexHome: w.corpus.codexDir,
      });
      assert.deepEqual(shown(snapshot, b), shown(await fresh.refresh(), fresh));
    });
  });

  test('an append seen by window A is continued by window B, not read from the start', async () => {
    await inWorld(async (w) => {
      const a = await firstWindow(w);
      const file = a.snapshot.files.find((f) => f.harness === 'claude-code')!;
      const first = jsonl(assistant({ id: 'a1', usage: usage(5, 7), seconds: 9e6 }));
      await appendFile(file.path, first);
      await a.index.refresh();
      assert.equal(a.index.cache.stats.appendScans, 1);
      await a.index.saveIndex();
      assert.equal(a.index.persisted!.stats.saves, 2);

      // B opens: A's read of the append is in the index.
      const b = w.open();
      await b.refresh();
      assert.equal(b.cache.stats.bytesRead, 0);
      // The file grows again; B continues from A's end.
      const second = jsonl(assistant({ id: 'a2', usage: usage(5, 11), seconds: 9e6 + 1 }));
      await appendFile(file.path, second);
      const snapshot = await b.refresh();
      assert.equal(b.cache.stats.fullScans, 0);
      assert.equal(b.cache.stats.appendScans, 1);
      assert.equal(b.cache.stats.bytesRead, Buffer.byteLength(second));
      const totals = buildUsageReport(snapshot, b.pricing).totals;
      assert.equal(totals.outputTokens, w.corpus.expected.total.output + 7 + 11);

      // C opens after the second append, before anyone saved it: reads only that append.
      const c = w.open();
      await c.refresh();
      assert.equal(c.cache.stats.fullScans, 0);
      assert.equal(c.cache.stats.bytesRead, Buffer.byteLength(second));
    });
  });

  test('changes are saved after a delay, and what is left when the window closes', async () => {
    await inWorld(async (w) => {
      const a = await firstWindow(w);
      const file = a.snapshot.files.find((f) => f.harness === 'codex')!;
      const b = w.open({ saveDelayMs: 50 });
      await b.refresh();
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(b.persisted!.stats.saves, 0, 'nothing changed: nothing saved');
      await appendFile(
        file.path,
        '{"timestamp":"2026-07-01T10:00:00.000Z","type":"compacted","payload":{}}\n',
      );
      await b.refresh();
      for (let i = 0; i < 100 && b.persisted!.stats.saves === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(b.persisted!.stats.saves, 1, 'saved after the delay');
      await appendFile(
        file.path,
        '{"timestamp":"2026-07-01T10:00:01.000Z","type":"compacted","payload":{}}\n',
      );
      await b.refresh();
      await b.dispose();
      assert.equal(b.persisted!.stats.saves, 2, 'saved when closed');
      const c = w.open();
      await c.refresh();
      assert.equal(c.cache.stats.bytesRead, 0, 'the next window has both appends');
    });
  });

  test('files that are gone leave the index; the size cap keeps the newest files', async () => {
    await inWorld(async (w) => {
      const a = await firstWindow(w);
      const gone = a.snapshot.files[0]!;
      await rm(gone.path);
      await a.index.refresh();
      await a.index.saveIndex();
      const loaded = await new PersistedIndex(
        { dir: w.store, version: '1.0.0' },
        a.index.roots().map((r) => `${r.harness}:${r.path}`),
      ).loadIfChanged();
      assert.equal(loaded?.size, a.snapshot.files.length - 1);
      assert.ok(!loaded.has(gone.path));

      // A cap of a third of the index: only the most recently written files fit.
      const full = a.index.persisted!.stats.savedBytes;
      const capped = w.open({ maxBytes: Math.floor(full / 3) });
      await capped.refresh();
      await utimes(a.snapshot.files[1]!.path, new Date(), new Date()); // now the newest
      await capped.refresh();
      await capped.saveIndex();
      const stats = capped.persisted!.stats;
      assert.ok(stats.savedBytes <= full / 3);
      assert.ok(stats.evicted > 0 && stats.savedEntries > 0);
      assert.equal(stats.savedEntries + stats.evicted, a.snapshot.files.length - 1);
      const kept = await new PersistedIndex(
        { dir: w.store, version: '1.0.0' },
        a.index.roots().map((r) => `${r.harness}:${r.path}`),
      ).loadIfChanged();
      assert.ok(kept?.has(a.snapshot.files[1]!.path), 'the newest file is kept');
      assert.ok(kept);
      const oldest = Math.min(...[...kept.values()].map((f) => f.mtimeMs));
      const left = capped.snapshot!.files.filter((f) => !kept.has(f.path));
      assert.ok(
        left.every((f) => f.mtimeMs <= oldest),
        'only older files were left out',
      );
    });
  });

  test("another folder set's index is removed once no window wrote it for 30 days", async () => {
    await inWorld(async (w) => {
      await mkdir(w.store, { recursive: true });
      const unused = join(w.store, 'local-0123456789abcdef.idx');
      const recent = join(w.store, 'local-fedcba9876543210.idx');
      await writeFile(unused, 'x');
      await writeFile(recent, 'x');
      const longAgo = new Date(Date.now() - 31 * 86_400_000);
      await utimes(unused, longAgo, longAgo);
      await firstWindow(w);
      const names = await readdir(w.store);
      assert.ok(!names.includes('local-0123456789abcdef.idx'), 'unused for 31 days: removed');
      assert.ok(names.includes('local-fedcba9876543210.idx'), 'written lately: kept');
    });
  });

  test('two windows opening together in one process: one cold scan in total', async () => {
    await inWorld(async (w) => {
      const a = w.open({ lock: { pollMs: 20 } });
      const b = w.open({ lock: { pollMs: 20 } });
      const [sa, sb] = await Promise.all([a.refresh(), b.refresh()]);
      const full = a.cache.stats.fullScans + b.cache.stats.fullScans;
      assert.equal(full, w.corpus.files.length, 'each file read once, by one window');
      assert.equal(a.persisted!.stats.lockWaits + b.persisted!.stats.lockWaits, 1);
      assert.deepEqual(shown(sb, b), shown(sa, a));
      await Promise.all([a.dispose(), b.dispose()]); // the saves end before the folder is removed
    });
  });

  test('two windows opening together as two processes: one cold scan in total', async () => {
    await inWorld(async (w) => {
      const children = [0, 1].map(() =>
        fork(CHILD, ['window', w.store, w.corpus.claudeDir, w.corpus.codexDir], {
          stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        }),
      );
      const results = children.map(
        (child) =>
          new Promise<{ stats: ScanStats; persist: PersistStats; sessions: number }>(
            (resolve, reject) => {
              child.on('message', (m) => {
                if (m !== 'ready') resolve(m as never);
              });
              child.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
            },
          ),
      );
      await Promise.all(children.map((c) => new Promise((r) => c.once('message', r))));
      for (const c of children) c.send('go');
      const [a, b] = await Promise.all(results);
      assert.equal(a!.stats.fullScans + b!.stats.fullScans, w.corpus.files.length);
      assert.equal(a!.persist.lockWaits + b!.persist.lockWaits, 1, 'one waited for the other');
      assert.equal(a!.sessions, b!.sessions);
    });
  });

  test('a window that died holding the lock does not keep the next one waiting', async () => {
    await inWorld(async (w) => {
      const a = w.open();
      const lockPath = a.persisted!.lock.path;
      const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
      const pid = dead.pid!;
      await new Promise((resolve) => dead.once('exit', resolve));
      await mkdir(w.store, { recursive: true });
      await writeFile(
        lockPath,
        JSON.stringify({ pid, host: hostname(), token: 'x', at: Date.now() }),
      );
      await a.refresh();
      assert.equal(a.persisted!.stats.lockTakeovers, 1);
      assert.equal(a.persisted!.stats.lockWaits, 0);
      assert.equal(a.cache.stats.fullScans, w.corpus.files.length);
      await a.saveIndex();
      const b = w.open();
      await b.refresh();
      assert.equal(b.cache.stats.fullScans, 0, 'and saved its scan for the next');
    });
  });

  test('a window (LocalIndex, as the extension host runs it) killed mid-save, many times: the next window shows what a scan shows', async () => {
    const { dir, cleanup } = await tempDir('asi-index-kill-');
    try {
      const corpus = await writeLocalCorpus(join(dir, 'corpus'), {
        claudeSessions: 24,
        claudeTurns: 6,
        codexSessions: 8,
      });
      const store = join(dir, 'store');
      const file = corpus.files.find((f) => f.harness === 'claude-code' && f.role === 'session')!;
      let seed = 777;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      let midWrite = 0;
      for (let round = 0; round < 16; round++) {
        const child: ChildProcess = fork(
          CHILD,
          ['saver', store, corpus.claudeDir, corpus.codexDir, file.path],
          { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
        );
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // Once it has saved a first time (the first window scanned): every other round as
        // soon as its next save starts writing (within a few ms), else at any moment.
        await new Promise((resolve) => child.once('message', resolve));
        if (round % 2 === 0) {
          const watcher = watch(store);
          await new Promise<void>((resolve) =>
            watcher.on('change', (_, name) => {
              if (String(name).endsWith('.tmp')) resolve();
            }),
          );
          watcher.close();
          await new Promise((resolve) => setTimeout(resolve, random() * 4));
        } else await new Promise((resolve) => setTimeout(resolve, random() * 150));
        child.kill('SIGKILL');
        await exited;
        if ((await readdir(store)).some((n) => n.endsWith('.tmp'))) midWrite++;
        const logs: string[] = [];
        const window = new LocalIndex({
          claudeConfigDirs: [corpus.claudeDir],
          codexHome: corpus.codexDir,
          persist: { dir: store, version: 'test', log: (m) => logs.push(m) },
        });
        // The saved rows beside it are written the same way: whole or not at all.
        const rows = await window.savedRows();
        assert.equal(
          rows?.length,
          (
            await new LocalIndex({
              claudeConfigDirs: [corpus.claudeDir],
              codexHome: corpus.codexDir,
            }).refresh()
          ).sessions.length,
        );
        const opened = await window.refresh();
        assert.deepEqual(logs, [], `round ${round}: never a torn index`);
        assert.equal(window.persisted!.stats.loads, 1, `round ${round}: the index loads whole`);
        assert.ok(window.cache.stats.fullScans < corpus.files.length, 'not scanned again');
        const scan = new LocalIndex({
          claudeConfigDirs: [corpus.claudeDir],
          codexHome: corpus.codexDir,
        });
        assert.deepEqual(
          shown(opened, window),
          shown(await scan.refresh(), scan),
          `round ${round}`,
        );
        // Its own save removes the killed writer's temporary file.
        await window.dispose();
      }
      assert.ok(midWrite >= 4, `some kills landed inside a save (${midWrite} of 16)`);
      // A kill while the saved rows were written leaves the index up to date: the next
      // save, after a change, removes that temporary file.
      const last = new LocalIndex({
        claudeConfigDirs: [corpus.claudeDir],
        codexHome: corpus.codexDir,
        persist: { dir: store, version: 'test' },
      });
      await appendFile(file.path, jsonl(assistant({ id: 'last', usage: usage(1, 1) })));
      await last.refresh();
      await last.dispose();
      assert.deepEqual(
        (await readdir(store)).filter((n) => n.endsWith('.tmp')),
        [],
      );
    } finally {
      await cleanup();
    }
  });

  test('a writer killed mid-write, many times, leaves an index that loads (or none)', async () => {
    const { dir, cleanup } = await tempDir('asi-index-kill-');
    try {
      const entries = 300;
      const expected = syntheticIndex(entries);
      let seed = 12345;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      let loadedOnes = 0;
      for (let round = 0; round < 8; round++) {
        const child: ChildProcess = fork(CHILD, ['writer', dir, String(entries)], {
          stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        });
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // After 0–3 complete saves, somewhere in the next one.
        const saves = Math.floor(random() * 4);
        await new Promise<void>((resolve) => {
          if (saves === 0) resolve();
          child.on('message', (m: { saved: number }) => {
            if (m.saved + 1 >= saves) resolve();
          });
        });
        await new Promise((resolve) => setTimeout(resolve, random() * 60));
        child.kill('SIGKILL');
        await exited;
        const logs: string[] = [];
        const index = new PersistedIndex({ dir, version: 'test', log: (m) => logs.push(m) }, [
          'synthetic',
        ]);
        const loaded = await index.loadIfChanged();
        assert.deepEqual(logs, [], 'never a torn index');
        if (await index.exists()) {
          assert.equal(loaded?.size, entries, `round ${round}: the whole index`);
          const one = loaded.get(expected[7]!.path)!;
          assert.deepEqual([...one.usage], [...expected[7]!.usage]);
          loadedOnes++;
        }
      }
      assert.ok(loadedOnes > 3, `most rounds had an index to load (${loadedOnes})`);
      // The temporary files of killed writers are removed by the next save.
      await new PersistedIndex({ dir, version: 'test' }, ['synthetic']).save(expected.slice(0, 1));
      assert.deepEqual(
        (await readdir(dir)).filter((n) => n.endsWith('.tmp')),
        [],
      );
    } finally {
      await cleanup();
    }
  });
});
