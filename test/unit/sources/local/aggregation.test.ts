/**
 * Incremental aggregation (Aggregation) and the rows the persisted index keeps: whatever
 * changes between refreshes (responses repeated across files, agent_progress copies, new
 * and removed subagent files, Codex cumulative totals, files rewritten or deleted), the
 * rows a window shows and its usage report equal those of a full scan, both in a window
 * that refreshes and in one that opens from the index saved before the change; and a
 * window that opens on unchanged files takes every row from the index without decoding a
 * usage record.
 */
import assert from 'node:assert/strict';
import { appendFile, rename, rm, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  discoverLocalFiles,
  type DiscoveredFile,
} from '../../../../src/sources/local/discovery.ts';
import { LocalIndex, type LocalSnapshot } from '../../../../src/sources/local/localIndex.ts';
import { buildUsageReport } from '../../../../src/sources/local/usageReport.ts';
import { writeLocalCorpus } from '../../../support/localCorpus.ts';
import { CASES, layOut } from '../../conformance/realFiles.ts';
import {
  assistant,
  codexMeta,
  jsonl,
  progressCopy,
  prompt,
  T0,
  tempDir,
  tokenCount,
  toolResult,
  toolUse,
  turnContext,
  usage,
  writeAt,
} from './fixtures.ts';

const NOW = T0 + 86_400_000;

interface Roots {
  claude: string;
  codex: string;
}

function window(roots: Roots, store?: string): LocalIndex {
  return new LocalIndex({
    claudeConfigDirs: [roots.claude],
    codexHome: roots.codex,
    now: () => NOW,
    ...(store ? { persist: { dir: store, version: 'test', saveDelayMs: 3_600_000 } } : {}),
  });
}

/** What a window shows: its rows, and the usage report (which reads every record). */
function shown(snapshot: LocalSnapshot, index: LocalIndex): unknown {
  return {
    rows: snapshot.sessions.map((s) => s.summary),
    report: buildUsageReport(snapshot, index.pricing, { dayOf: (ms) => String(ms) }),
  };
}

async function fullScan(roots: Roots): Promise<unknown> {
  const index = window(roots);
  return shown(await index.refresh(), index);
}

/** Every file a window lists must be decoded for this many rows (0: none). */
function recomputed(index: LocalIndex): number {
  return index.aggregation.lastRecomputed;
}

describe('rows kept from the index and aggregated again where files changed', () => {
  test('every real transcript: a window opening from the index shows what a scan shows, decoding no record', async () => {
    const { dir, cleanup } = await tempDir('asi-agg-');
    try {
      const roots = { claude: join(dir, 'claude'), codex: join(dir, 'codex') };
      for (const c of CASES) await layOut(c, c.harness === 'codex' ? roots.codex : roots.claude);
      const store = join(dir, 'store');
      const first = window(roots, store);
      const scanned = await first.refresh();
      await first.saveIndex();
      const expected = shown(scanned, first);
      const second = window(roots, store);
      const opened = await second.refresh();
      assert.equal(second.cache.stats.fullScans, 0);
      assert.equal(recomputed(second), 0, 'every row from the index');
      assert.ok(opened.sessions.some((s) => s.summary.outputTokens! > 0));
      // Rows before any record is read, then the report (records decoded on demand).
      assert.deepEqual(
        opened.sessions.map((s) => s.summary),
        scanned.sessions.map((s) => s.summary),
      );
      assert.deepEqual(shown(opened, second), expected);
      assert.deepEqual(expected, await fullScan(roots));
    } finally {
      await cleanup();
    }
  });

  for (const seed of [4242, 7, 1999]) {
    test(`a random run of changes (seed ${seed}): refreshed and reopened windows equal a full scan at every step`, async () => {
      await randomRun(seed);
    });
  }

  test('a window whose first listing found nothing takes the rows from the index once the files are there', async () => {
    const { dir, cleanup } = await tempDir('asi-agg-');
    try {
      const corpus = await writeLocalCorpus(join(dir, 'corpus'), {
        claudeSessions: 3,
        codexSessions: 2,
        largeClaudeBytes: [9 << 20],
      });
      const roots = { claude: corpus.claudeDir, codex: corpus.codexDir };
      const store = join(dir, 'store');
      const first = window(roots, store);
      const expected = shown(await first.refresh(), first);
      await first.saveIndex();
      await rename(join(dir, 'corpus'), join(dir, 'away'));
      const later = window(roots, store);
      assert.equal((await later.refresh()).sessions.length, 0);
      await rename(join(dir, 'away'), join(dir, 'corpus'));
      const snapshot = await later.refresh();
      assert.equal(later.cache.stats.fullScans, 0);
      assert.equal(recomputed(later), 0, 'every row from the index');
      assert.deepEqual(shown(snapshot, later), expected);
    } finally {
      await cleanup();
    }
  });

  test('other prices than the saving window had: the rows are aggregated again', async () => {
    const { dir, cleanup } = await tempDir('asi-agg-');
    try {
      const roots = { claude: join(dir, 'claude'), codex: join(dir, 'codex') };
      const path = join(roots.claude, 'projects', '-p', 'S1.jsonl');
      await writeAt(path, jsonl(prompt('go'), assistant({ usage: usage(1_000_000, 0) })));
      const store = join(dir, 'store');
      const first = window(roots, store);
      await first.refresh();
      await first.saveIndex();
      const cheaper = new LocalIndex({
        claudeConfigDirs: [roots.claude],
        codexHome: roots.codex,
        now: () => NOW,
        priceOverrides: { 'claude-sonnet-4-5': { input: 1, output: 1 } },
        persist: { dir: store, version: 'test' },
      });
      const snapshot = await cheaper.refresh();
      assert.equal(cheaper.cache.stats.fullScans, 0, 'the scan state is still used');
      assert.equal(recomputed(cheaper), 1);
      assert.equal(snapshot.sessions[0]!.summary.estimatedCost, 1);
    } finally {
      await cleanup();
    }
  });
});

async function randomRun(seed: number): Promise<void> {
  const { dir, cleanup } = await tempDir('asi-agg-');
  try {
    const roots = { claude: join(dir, 'claude'), codex: join(dir, 'codex') };
    const project = join(roots.claude, 'projects', '-home-dev-orbit-api');
    const store = join(dir, 'store');
    let x = seed;
    const random = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const n = (max: number) => 1 + Math.floor(random() * max);
    let seconds = 100;
    let step = 0;
    let nextId = 0;
    // Every response written so far, to repeat (a resumed session) or copy (agent_progress).
    const written: { id: string; requestId: string }[] = [];
    const response = (sessionId: string, repeat: boolean) => {
      seconds += 5;
      const key =
        repeat && written.length > 0
          ? pick(written)
          : { id: `msg_${++nextId}`, requestId: `req_${nextId}` };
      if (!written.includes(key)) written.push(key);
      return assistant({
        ...key,
        sessionId,
        seconds,
        usage: usage(n(9), n(400), n(5000), n(300)),
        ...(random() < 0.3
          ? { model: pick(['claude-opus-4-1-20250805', 'claude-haiku-4-5', null]) }
          : {}),
      });
    };
    const sessionPath = (s: string) => join(project, `${s}.jsonl`);
    const subagentPath = (s: string, a: string) =>
      join(project, s, 'subagents', `agent-${a}.jsonl`);
    const codexPath = (i: number) =>
      join(
        roots.codex,
        'sessions',
        '2026',
        '07',
        '01',
        `rollout-2026-07-01T10-00-0${i}-0199a2b3-1c2d-7e3f-8a9b-0c1d2e3f4a5${i}.jsonl`,
      );
    const codexTotals = new Map<
      number,
      { input: number; cached: number; output: number; reasoning: number }
    >();
    const touch = async (path: string) => {
      const t = (T0 + 3_600_000 + step * 1000) / 1000;
      await utimes(path, t, t);
    };
    const writeSession = async (s: string, lines: string) => {
      await writeAt(sessionPath(s), jsonl(prompt(`work on ${s}`, seconds)) + lines);
      await touch(sessionPath(s));
    };
    const writeCodex = async (i: number) => {
      codexTotals.set(i, { input: 0, cached: 0, output: 0, reasoning: 0 });
      await writeAt(
        codexPath(i),
        jsonl(codexMeta(`0199a2b3-1c2d-7e3f-8a9b-0c1d2e3f4a5${i}`), turnContext('gpt-5', 1)),
      );
      await touch(codexPath(i));
    };
    for (const s of ['S1', 'S2', 'S3', 'S4']) {
      await writeSession(s, jsonl(response(s, false), response(s, false)));
    }
    await writeAt(
      subagentPath('S1', 'a1'),
      jsonl({ ...prompt('Look around'), isSidechain: true, agentId: 'a1' }, response('S1', false)),
    );
    await touch(subagentPath('S1', 'a1'));
    for (const i of [1, 2]) await writeCodex(i);

    const claudeFiles = async (): Promise<DiscoveredFile[]> =>
      (await discoverLocalFiles({ claudeConfigDirs: [roots.claude], codexHome: roots.codex }))
        .files;
    const ops: [string, () => Promise<string>][] = [
      [
        'a new response',
        async () => {
          const f = pick((await claudeFiles()).filter((f) => f.harness === 'claude-code'));
          await appendFile(f.path, jsonl(response(f.sessionId ?? 'S1', false)));
          return f.path;
        },
      ],
      [
        "another file's response repeated (a resumed session)",
        async () => {
          const f = pick((await claudeFiles()).filter((f) => f.harness === 'claude-code'));
          await appendFile(f.path, jsonl(response(f.sessionId ?? 'S1', true)));
          return f.path;
        },
      ],
      [
        'an agent_progress copy and a Task result in a parent',
        async () => {
          const s = pick(['S1', 'S2', 'S3']);
          const agent = pick(['a1', 'a2', 'a3']);
          const line = response(s, random() < 0.5);
          await appendFile(
            sessionPath(s),
            jsonl(
              assistant({
                id: `msg_t${++nextId}`,
                requestId: `req_t${nextId}`,
                sessionId: s,
                seconds,
                content: [toolUse(`toolu_${nextId}`, 'Task')],
                stop: 'tool_use',
              }),
              progressCopy(agent, line, seconds),
              toolResult(`toolu_${nextId}`, seconds + 1, false, {
                toolUseResult: { status: 'completed', agentId: agent },
              }),
            ),
          );
          return sessionPath(s);
        },
      ],
      [
        'a new subagent file',
        async () => {
          const s = pick(['S1', 'S2', 'S3']);
          const agent = pick(['a1', 'a2', 'a3']);
          const path = subagentPath(s, agent);
          await writeAt(
            path,
            jsonl(
              { ...prompt('Look around', seconds), isSidechain: true, agentId: agent },
              response(s, true),
              response(s, false),
            ),
          );
          return path;
        },
      ],
      [
        'a new session repeating old responses',
        async () => {
          const s = `R${++nextId}`;
          await writeSession(s, jsonl(response(s, true), response(s, true), response(s, false)));
          return sessionPath(s);
        },
      ],
      [
        'a file removed',
        async () => {
          const files = (await claudeFiles()).filter(
            (f) => !f.path.endsWith('S4.jsonl') && !f.path.endsWith('S1.jsonl'),
          );
          const f = pick(files);
          await unlink(f.path);
          return f.path;
        },
      ],
      [
        'a file rewritten shorter',
        async () => {
          const s = pick(['S2', 'S3']);
          await writeSession(s, jsonl(response(s, true)));
          return sessionPath(s);
        },
      ],
      [
        'Codex token counts (cumulative; repeated, or a new series)',
        async () => {
          const i = pick([1, 2]);
          const t = codexTotals.get(i)!;
          const roll = random();
          const next =
            roll < 0.2
              ? { ...t }
              : roll < 0.3
                ? { input: n(50), cached: 0, output: n(20), reasoning: 0 }
                : {
                    input: t.input + n(500),
                    cached: t.cached + n(100),
                    output: t.output + n(90),
                    reasoning: t.reasoning + n(9),
                  };
          codexTotals.set(i, next);
          seconds += 5;
          await appendFile(codexPath(i), jsonl(tokenCount(next, seconds)));
          return codexPath(i);
        },
      ],
    ];

    const refreshed = window(roots, store);
    await refreshed.refresh();
    await refreshed.saveIndex();
    let partial = 0;
    for (step = 1; step <= 40; step++) {
      const [name, op] = pick(ops);
      const path = await op();
      await touch(path).catch(() => undefined);
      const expected = await fullScan(roots);
      const where = `step ${step}: ${name} (${path.slice(dir.length)})`;
      // A window that opens now, from the index saved before the change.
      const reopened = window(roots, store);
      const opened = await reopened.refresh();
      assert.deepEqual(shown(opened, reopened), expected, `${where}, reopened`);
      // The window that was open all along.
      const snapshot = await refreshed.refresh();
      const sessions = snapshot.sessions.length;
      if (recomputed(refreshed) < sessions) partial++;
      assert.deepEqual(shown(snapshot, refreshed), expected, `${where}, refreshed`);
      await refreshed.saveIndex();
      await reopened.dispose();
    }
    assert.ok(partial > 20, `most refreshes aggregated only some rows (${partial} of 40)`);
    await rm(store, { recursive: true, force: true });
  } finally {
    await cleanup();
  }
}
