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

/**
 * What a window shows: its rows, the usage report (which reads every record), and each
 * row's records in order (the order its cost is summed in).
 */
function shown(snapshot: LocalSnapshot, index: LocalIndex): unknown {
  return {
    rows: snapshot.sessions.map((s) => s.summary),
    report: buildUsageReport(snapshot, index.pricing, { dayOf: (ms) => String(ms) }),
    records: snapshot.sessions.map((s) => s.records),
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

describe('appends added to the last de-duplication (the ledger) instead of aggregating the group again', () => {
  test('new responses, a response growing in place, copies owned by a subagent, a key another group has: each refresh equals a full scan', async () => {
    const { dir, cleanup } = await tempDir('asi-agg-');
    try {
      const roots = { claude: join(dir, 'claude'), codex: join(dir, 'codex') };
      const project = join(roots.claude, 'projects', '-home-dev-orbit-api');
      const P = join(project, 'P.jsonl');
      const S = join(project, 'P', 'subagents', 'agent-a1.jsonl');
      const R = join(project, 'R.jsonl');
      const Q = join(project, 'Q.jsonl');
      const reply = (id: string, seconds: number, output: number, sessionId = 'P') =>
        assistant({
          id,
          requestId: `req_${id}`,
          sessionId,
          seconds,
          usage: usage(3, output, 50, 7),
        });
      const s1 = reply('s1', 20, 7);
      await writeAt(
        P,
        jsonl(
          prompt('work', 10),
          reply('p1', 11, 20),
          progressCopy('a1', s1, 21),
          progressCopy('a9', reply('x1', 22, 9), 22),
        ),
      );
      await writeAt(
        S,
        jsonl(
          { ...prompt('Look around', 19), isSidechain: true, agentId: 'a1' },
          s1,
          reply('s2', 23, 3),
        ),
      );
      // A resumed session after P, repeating one of P's responses: the same group, a later rank.
      await writeAt(
        R,
        jsonl(prompt('again', 30), reply('p1', 11, 20, 'R'), reply('r1', 31, 4, 'R')),
      );
      await writeAt(Q, jsonl(prompt('other', 40), reply('q1', 41, 6, 'Q')));
      // A session no change reaches (a part of the rows is aggregated again, not all).
      await writeAt(
        join(roots.claude, 'projects', '-home-dev-other', 'Z.jsonl'),
        jsonl(prompt('apart', 5), reply('z1', 6, 2, 'Z')),
      );
      // Written before a window opens; files a step appends to are written now.
      // A 2.0.x subagent beside the sessions, whose session is gone: attached by the
      // agentId a parent names, once one does.
      const A7 = join(project, 'agent-a7.jsonl');
      await writeAt(A7, jsonl(reply('a7r', 8, 2, 'gone')));
      const W = join(project, 'W.jsonl');
      const untimed = reply('p1', 11, 20, 'W');
      delete untimed.timestamp;
      await writeAt(W, jsonl(untimed));
      for (const f of [P, S, R, Q, W, A7]) await utimes(f, T0 / 1000, T0 / 1000);
      const w = window(roots);
      await w.refresh();
      let seconds = 50;
      const steps: [string, string, string, boolean][] = [
        [
          'a new response in the parent (the first change: the group is aggregated)',
          P,
          jsonl(reply('p2', seconds++, 11)),
          false,
        ],
        [
          'a subagent response growing in place and a new one',
          S,
          jsonl(reply('s2', 23, 30), reply('s3', seconds++, 5)),
          true,
        ],
        [
          'a response the parent copied, grown in the subagent',
          S,
          jsonl(reply('s1', 20, 70)),
          true,
        ],
        [
          'a new copy of a response the subagent file lacks (counted in the subagent)',
          P,
          jsonl(progressCopy('a1', reply('s4', seconds++, 13), seconds++)),
          true,
        ],
        [
          'a copy the parent holds, grown in place (counted in the subagent)',
          P,
          jsonl(progressCopy('a1', reply('s4', 52, 40), 60)),
          true,
        ],
        [
          'a new copy for an agent without a file (counted in the parent)',
          P,
          jsonl(progressCopy('a9', reply('x2', seconds++, 17), seconds++)),
          true,
        ],
        [
          'a new response in the parent, before its copies in order',
          P,
          jsonl(reply('p3', seconds++, 19)),
          true,
        ],
        [
          'a new response in the later session of the group',
          R,
          jsonl(reply('r2', seconds++, 23, 'R')),
          true,
        ],
        [
          'a file without a timestamp gets one, earlier than the others (its place in the order moves)',
          W,
          jsonl(prompt('first', 1)),
          false,
        ],
        [
          'a Task result naming the agent of a file beside the sessions (it gets a parent)',
          P,
          jsonl(
            toolResult('toolu_a7', seconds++, false, {
              toolUseResult: { status: 'completed', agentId: 'a7' },
            }),
          ),
          false,
        ],
        [
          "a response another group's session has (aggregated again)",
          P,
          jsonl(reply('q1', 41, 6)),
          false,
        ],
        [
          'after that, a new response in the joined group',
          Q,
          jsonl(reply('q2', seconds++, 29, 'Q')),
          true,
        ],
      ];
      let step = 0;
      for (const [name, path, lines, byLedger] of steps) {
        await appendFile(path, lines);
        // The subagent is written now, the others long ago: its parent's last write (and
        // status) follows the subagent's.
        const t = path === S ? NOW / 1000 - 5 : T0 / 1000 + ++step;
        await utimes(path, t, t);
        const before = w.aggregation.reuse.appends;
        const snapshot = await w.refresh();
        assert.equal(
          w.aggregation.reuse.appends - before,
          byLedger ? 1 : 0,
          `${name}: by the ledger`,
        );
        assert.deepEqual(shown(snapshot, w), await fullScan(roots), name);
      }
    } finally {
      await cleanup();
    }
  });
});

describe('rows reused by a refresh', () => {
  test("a row no change reaches gets the status the clock gives it (its file's age crossed a threshold)", async () => {
    const { dir, cleanup } = await tempDir('asi-agg-');
    try {
      const roots = { claude: join(dir, 'claude'), codex: join(dir, 'codex') };
      const project = join(roots.claude, 'projects', '-home-dev-orbit-api');
      const P = join(project, 'P.jsonl');
      const Z = join(project, 'Z.jsonl');
      const X = join(project, 'X.jsonl');
      const reply = (id: string, seconds: number, sessionId: string) =>
        assistant({ id, requestId: `req_${id}`, sessionId, seconds, usage: usage(3, 5) });
      for (const [path, id] of [
        [P, 'p'],
        [Z, 'z'],
        [X, 'x'],
      ] as const) {
        await writeAt(path, jsonl(prompt('go', 1), reply(`${id}1`, 2, id)));
        await utimes(path, T0 / 1000, T0 / 1000);
      }
      // Z ended its turn a minute ago: idle now, finished half an hour later.
      await utimes(Z, NOW / 1000 - 60, NOW / 1000 - 60);
      let clock = NOW;
      const open = () =>
        new LocalIndex({
          claudeConfigDirs: [roots.claude],
          codexHome: roots.codex,
          now: () => clock,
        });
      const w = open();
      await w.refresh();
      for (const [i, advance] of [0, 31 * 60_000].entries()) {
        clock += advance;
        await appendFile(P, jsonl(reply(`p${i + 2}`, 3 + i, 'p')));
        await utimes(P, T0 / 1000 + i + 1, T0 / 1000 + i + 1);
        const before = w.aggregation.reuse.appends;
        const snapshot = await w.refresh();
        const scan = open();
        assert.deepEqual(shown(snapshot, w), shown(await scan.refresh(), scan), `step ${i}`);
        assert.equal(w.aggregation.reuse.appends - before, i, `step ${i}: by the ledger`);
        const z = snapshot.sessions.find((s) => s.path === Z)!;
        assert.equal(z.summary.status.status, i === 0 ? 'idle' : 'finished');
      }
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
