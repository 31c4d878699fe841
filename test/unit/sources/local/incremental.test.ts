/**
 * The cache reads only what was appended (checked with its bytes-read counter), keeps the
 * parser state between reads, waits for an unfinished last line, and starts over when a
 * file shrank or was replaced.
 */
import assert from 'node:assert/strict';
import { appendFile, rename, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { discoverLocalFiles } from '../../../../src/sources/local/discovery.ts';
import { LocalIndex } from '../../../../src/sources/local/localIndex.ts';
import { ScanCache } from '../../../../src/sources/local/scanCache.ts';
import type { FileSummary } from '../../../../src/sources/local/types.ts';
import { buildUsageReport } from '../../../../src/sources/local/usageReport.ts';
import {
  assistant,
  codexMeta,
  jsonl,
  prompt,
  sum,
  tempDir,
  tokenCount,
  turnContext,
  usage,
  writeAt,
} from './fixtures.ts';

async function setup() {
  const { dir, cleanup } = await tempDir();
  const claude = join(dir, 'claude');
  const file = join(claude, 'projects', '-p', 'S1.jsonl');
  const other = join(claude, 'projects', '-p', 'S2.jsonl');
  await writeAt(file, jsonl(prompt('one'), assistant({ id: 'm1', usage: usage(1, 10) })));
  await writeAt(other, jsonl(prompt('two'), assistant({ id: 'm9', usage: usage(1, 1000) })));
  const index = new LocalIndex({ claudeConfigDirs: [claude], codexHome: join(dir, 'codex') });
  const output = async () =>
    buildUsageReport(await index.refresh(), index.pricing).totals.outputTokens;
  return { dir, file, other, index, output, cleanup };
}

describe('incremental refresh', () => {
  test('half a line, then the rest: only appended bytes are read; totals follow', async () => {
    const t = await setup();
    try {
      assert.equal(await t.output(), 1010);
      const stats = t.index.cache.stats;
      const read0 = stats.bytesRead;

      const line = JSON.stringify(assistant({ id: 'm2', usage: usage(1, 25), seconds: 30 })) + '\n';
      const half = Buffer.from(line).subarray(0, 57);
      const rest = Buffer.from(line).subarray(57);
      await appendFile(t.file, half);
      assert.equal(await t.output(), 1010, 'an unfinished line is not counted');
      assert.equal(stats.bytesRead - read0, half.length, 'only the appended bytes were read');
      const snap = t.index.snapshot!;
      assert.ok(
        snap.problems.some((p) => p.kind === 'truncated-line' && p.path === t.file && p.line === 3),
      );

      await appendFile(t.file, rest);
      assert.equal(await t.output(), 1035);
      assert.equal(stats.bytesRead - read0, line.length, 'the rest, and nothing else');
      assert.ok(!t.index.snapshot!.problems.some((p) => p.kind === 'truncated-line'));
      assert.equal(stats.appendScans, 2);
      assert.ok(stats.reused >= 2, 'the other file was not read again');

      // Another line of the same response: max, not sum.
      await appendFile(t.file, jsonl(assistant({ id: 'm2', usage: usage(1, 40), seconds: 31 })));
      assert.equal(await t.output(), 1050);
    } finally {
      await t.cleanup();
    }
  });

  test('a line split inside a multi-byte character', async () => {
    const t = await setup();
    try {
      await t.output();
      const line = Buffer.from(jsonl(prompt('naïve café ✓ — done', 40)));
      const cut = line.indexOf(Buffer.from('✓')) + 1; // inside the 3-byte character
      await appendFile(t.file, line.subarray(0, cut));
      await t.index.refresh();
      await appendFile(t.file, line.subarray(cut));
      const snap = await t.index.refresh();
      const s = snap.sessions.find((x) => x.path === t.file)!;
      assert.equal(s.file.last.kind, 'user-prompt');
      assert.deepEqual(
        snap.problems.filter((p) => p.path === t.file),
        [],
      );
    } finally {
      await t.cleanup();
    }
  });

  test('a pretty-printed entry arriving in pieces', async () => {
    const t = await setup();
    try {
      await t.output();
      const pretty = JSON.stringify(assistant({ id: 'm3', usage: usage(1, 7) }), null, 2) + '\n';
      const mid = Math.floor(pretty.length / 2);
      await appendFile(t.file, pretty.slice(0, mid));
      assert.equal(await t.output(), 1010);
      await appendFile(t.file, pretty.slice(mid));
      assert.equal(await t.output(), 1017);
    } finally {
      await t.cleanup();
    }
  });

  test('a file that shrank or was replaced is read again from the start', async () => {
    const t = await setup();
    try {
      await t.output();
      const stats = t.index.cache.stats;
      const full0 = stats.fullScans;
      await truncate(t.file, 0);
      await appendFile(t.file, jsonl(prompt('new'), assistant({ id: 'x', usage: usage(1, 3) })));
      assert.equal(await t.output(), 1003);
      assert.equal(stats.fullScans, full0 + 1);
      // Replaced by a new file (new inode) that happens to be longer.
      const replacement = join(t.dir, 'replacement.jsonl');
      await writeFile(
        replacement,
        jsonl(
          prompt('r'),
          assistant({ id: 'y', usage: usage(1, 4) }),
          assistant({ id: 'z', usage: usage(1, 5) }),
        ),
      );
      await rename(replacement, t.file);
      assert.equal(await t.output(), 1009);
      assert.equal(stats.fullScans, full0 + 2);
      // Rewritten in place (same inode), longer than before: the old end no longer matches.
      await writeFile(
        t.file,
        jsonl(
          prompt('rewritten, and longer than before'),
          ...[1, 2, 3].map((i) => assistant({ id: `w${i}`, usage: usage(1, i) })),
        ),
      );
      assert.equal(await t.output(), 1006);
      assert.equal(stats.fullScans, full0 + 3);
      assert.ok(stats.checkBytes > 0);
    } finally {
      await t.cleanup();
    }
  });

  test('nothing changed: nothing read, statuses still follow the clock', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = join(dir, 'claude', 'projects', '-p', 'S1.jsonl');
      const written = Date.parse('2026-07-01T10:00:00Z');
      await writeAt(file, jsonl(prompt('q'), assistant()), written);
      let now = written + 60_000;
      const index = new LocalIndex({
        claudeConfigDirs: [join(dir, 'claude')],
        codexHome: join(dir, 'none'),
        now: () => now,
      });
      assert.equal((await index.refresh()).sessions[0]!.summary.status.status, 'idle');
      const read = index.cache.stats.bytesRead;
      now = written + 3_600_000;
      const later = (await index.refresh()).sessions[0]!.summary;
      assert.equal(later.status.status, 'finished');
      assert.equal(later.endedAt, later.lastActivityAt);
      assert.equal(index.cache.stats.bytesRead, read);
    } finally {
      await cleanup();
    }
  });

  test('concurrent refreshes share one run; an aborted wait leaves the run intact', async () => {
    const t = await setup();
    try {
      const [a, b] = await Promise.all([t.index.refresh(), t.index.refresh()]);
      assert.equal(a, b);
      assert.equal(t.index.cache.stats.fullScans, 2, 'each file read once');
      await appendFile(t.file, jsonl(assistant({ id: 'm5', usage: usage(1, 5) })));
      const controller = new AbortController();
      const waiting = t.index.refresh({ signal: controller.signal });
      controller.abort(new Error('user left'));
      await assert.rejects(waiting, /user left/);
      assert.equal(await t.output(), 1015);
    } finally {
      await t.cleanup();
    }
  });

  test('Codex: appended token counts continue the cumulative series', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = join(
        dir,
        'codex',
        'sessions',
        '2026',
        '07',
        '01',
        'rollout-2026-07-01T10-00-00-x.jsonl',
      );
      const t1 = { input: 100, cached: 0, output: 10, reasoning: 0 };
      const t2 = { input: 300, cached: 100, output: 30, reasoning: 5 };
      await writeAt(
        file,
        jsonl(codexMeta(), turnContext('gpt-5'), tokenCount(t1, 2), tokenCount(t1, 2)),
      );
      const index = new LocalIndex({
        claudeConfigDirs: [join(dir, 'none')],
        codexHome: join(dir, 'codex'),
      });
      assert.equal((await index.refresh()).sessions[0]!.summary.outputTokens, 10);
      await appendFile(file, jsonl(tokenCount(t2, 3), tokenCount(t2, 3)));
      const s = (await index.refresh()).sessions[0]!.summary;
      assert.equal(s.outputTokens, 30);
      assert.equal(s.inputTokens, 200);
      assert.equal(s.cacheReadTokens, 100);
    } finally {
      await cleanup();
    }
  });

  test('a line written between the listing and the read counts once; the next refresh reads nothing', async () => {
    const t = await setup();
    try {
      const cache = new ScanCache();
      const roots = { claudeConfigDirs: [join(t.dir, 'claude')], codexHome: join(t.dir, 'codex') };
      const listed = (await discoverLocalFiles(roots)).files;
      const line = JSON.stringify(assistant({ id: 'm2', usage: usage(1, 25), seconds: 30 }));
      await appendFile(t.file, `${line}\n`);
      const outputOf = (summaries: FileSummary[]) =>
        summaries.reduce((n, s) => n + sum(s.usage.values()).output, 0);
      assert.equal(outputOf(await cache.scanAll(listed)), 1035, 'the racing line is read');
      const read = cache.stats.bytesRead;
      const again = await cache.scanAll((await discoverLocalFiles(roots)).files);
      assert.equal(outputOf(again), 1035, 'and not counted twice');
      assert.equal(cache.stats.bytesRead, read, 'nothing read again');
      assert.equal(cache.stats.reused, 2);
    } finally {
      await t.cleanup();
    }
  });
});
