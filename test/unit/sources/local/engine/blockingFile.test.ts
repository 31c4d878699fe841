/**
 * Blocking reads (engine/blockingFile.ts) give a scan the same results as the promise
 * reads: every file of a corpus, an append read from the previous end, a file that is
 * gone, and a thread that still takes its messages between files.
 */
import assert from 'node:assert/strict';
import { appendFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { discoverLocalFiles } from '../../../../../src/sources/local/discovery.ts';
import { openBlocking } from '../../../../../src/sources/local/engine/blockingFile.ts';
import { ScanCache } from '../../../../../src/sources/local/scanCache.ts';
import { writeLocalCorpus } from '../../../../support/localCorpus.ts';
import { assistant, jsonl, prompt, tempDir, toolResult, usage, writeAt } from '../fixtures.ts';

describe('blocking reads', () => {
  test('every file of a corpus: the same summaries as promise reads', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const c = await writeLocalCorpus(dir, { claudeSessions: 4, codexSessions: 4 });
      const { files } = await discoverLocalFiles({
        claudeConfigDirs: [c.claudeDir],
        codexHome: c.codexDir,
      });
      const blocking = new ScanCache({ blockingReads: true });
      const promised = new ScanCache();
      const a = await blocking.scanAll(files);
      const b = await promised.scanAll(files);
      assert.ok(files.length > 8);
      assert.deepEqual(a, b);
      assert.equal(blocking.stats.bytesRead, c.bytes);
      assert.equal(blocking.stats.statusBytes, promised.stats.statusBytes);
    } finally {
      await cleanup();
    }
  });

  test('a file of several reads, with lines longer than a read: the same as promise reads', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = join(dir, 'claude', 'projects', '-p', 'S1.jsonl');
      const lines: string[] = [];
      for (let i = 0; i < 3000; i++) {
        lines.push(
          jsonl(assistant({ id: `m${i}`, requestId: `r${i}`, usage: usage(i, 1), seconds: i })),
        );
        // Tool output of 0.3 to 2.5 MB on one line, now and then.
        if (i % 700 === 350) {
          const out = 'x'.repeat(300_000 + i * 1000);
          lines.push(jsonl(toolResult(`t${i}`, i, false, { toolUseResult: { stdout: out } })));
        }
      }
      await writeAt(file, lines.join(''));
      const { files } = await discoverLocalFiles({
        claudeConfigDirs: [join(dir, 'claude')],
        codexHome: join(dir, 'x'),
      });
      assert.ok(files[0]!.size > 6 << 20, 'several reads');
      const blocking = new ScanCache({ blockingReads: true });
      const a = await blocking.scanAll(files);
      const b = await new ScanCache().scanAll(files);
      assert.deepEqual(a, b);
      assert.equal(a[0]!.usage.size, 3000);
      assert.equal(blocking.stats.bytesRead, files[0]!.size);
    } finally {
      await cleanup();
    }
  });

  test('an append is read from the previous end; a file that is gone is a problem', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = join(dir, 'claude', 'projects', '-p', 'S1.jsonl');
      await writeAt(file, jsonl(prompt('one'), assistant({ id: 'm1', usage: usage(1, 10) })));
      const cache = new ScanCache({ blockingReads: true });
      const list = async () =>
        (
          await discoverLocalFiles({
            claudeConfigDirs: [join(dir, 'claude')],
            codexHome: join(dir, 'x'),
          })
        ).files;
      const [first] = await cache.scanAll(await list());
      assert.deepEqual(
        [...first!.usage.values()].map((r) => r.output),
        [10],
      );
      const before = cache.stats.bytesRead;
      const more = jsonl(assistant({ id: 'm2', usage: usage(1, 25), seconds: 30 }));
      await appendFile(file, more);
      const [second] = await cache.scanAll(await list());
      assert.equal(cache.stats.appendScans, 1);
      assert.equal(cache.stats.bytesRead - before, Buffer.byteLength(more));
      assert.deepEqual(
        [...second!.usage.values()].map((r) => r.output).sort((x, y) => x - y),
        [10, 25],
      );

      const files = await list();
      await rm(file);
      const [gone] = await cache.scanAll(files.map((f) => ({ ...f, size: f.size + 1 })));
      assert.ok(
        gone!.problems.some((p) => p.kind === 'unreadable' && p.message.includes('ENOENT')),
      );
    } finally {
      await cleanup();
    }
  });

  test('opening waits for a turn of the event loop, so messages between files get through', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = join(dir, 'a.jsonl');
      await writeAt(file, 'abc\n');
      const order: string[] = [];
      setImmediate(() => order.push('event loop'));
      const handle = await openBlocking(file);
      order.push('opened');
      const buf = Buffer.alloc(8);
      assert.equal((await handle.read(buf, 0, 8, 1)).bytesRead, 3);
      assert.equal(buf.toString('latin1', 0, 3), 'bc\n');
      assert.equal((await handle.stat()).size, 4);
      await handle.close();
      await assert.rejects(handle.read(buf, 0, 8, 0), /closed/);
      assert.deepEqual(order, ['event loop', 'opened']);
    } finally {
      await cleanup();
    }
  });
});
