/**
 * Real-file conformance, sessions: each real case (realFiles.ts) laid out in a Claude
 * Code config folder or Codex home as the harness writes it, then listed as the Sessions
 * view lists it: the rows (sessions, subagents under their parent, resume ids, start
 * times), the status of every row at three ages — just after the last line was written,
 * 10 minutes later, 2 days later — and the token totals per day and model, which must
 * equal an independent count (ccusage).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REASONS, type Reason } from '../../../scripts/bench/ccusageRules.ts';
import { LocalIndex } from '../../../src/sources/local/localIndex.ts';
import { buildUsageReport, utcDay } from '../../../src/sources/local/usageReport.ts';
import { CASES, layOut, type RealCase } from './realFiles.ts';

const MIN = 60_000;
/** Just after the last line, 10 minutes later (idle window), 2 days later (past every window). */
const AGES = [30_000, 10 * MIN, 2 * 24 * 60 * MIN] as const;

/**
 * ccusage 20.0.24's count of each case: `node scripts/real-ccusage.ts`, which runs
 *   ccusage claude daily --json --offline --timezone UTC   (Claude Code cases)
 *   ccusage codex daily --json --offline --timezone UTC    (Codex cases)
 * on the case's files alone (CLAUDE_CONFIG_DIR / CODEX_HOME, an empty HOME, TZ=UTC).
 * Per `day|model`: [input, output, cache read, cache write, cost USD]. ccusage's Codex
 * input excludes the cached part, as ours does.
 */
const CCUSAGE: Record<string, Record<string, [number, number, number, number, number]>> = {
  sniffly: {
    '2025-06-08|claude-sonnet-4-20250514': [91, 2266, 503769, 16072, 0.2456637],
    '2025-06-10|claude-sonnet-4-20250514': [88, 278, 44544, 16000, 0.0777972],
  },
  viewer: {
    '2025-09-03|claude-sonnet-4-20250514': [93, 953, 103219, 12698, 0.0931572],
    '2025-09-07|claude-sonnet-4-20250514': [129, 3629, 324259, 47747, 0.3311509],
  },
  'git-ai-1.0.111': {
    '2025-09-11|claude-sonnet-4-20250514': [57, 3306, 293447, 28933, 0.2462939],
  },
  'git-ai-2.0.69': {
    '2025-12-16|claude-sonnet-4-5-20250929': [18, 484, 32612, 7461, 0.0450764],
  },
  'entire-a6-2.0.76': {
    '2026-01-07|claude-opus-4-5-20251101': [102, 2038, 654807, 649094, 4.435701],
  },
  'entire-ca-2.1.5': {
    '2026-01-12|claude-opus-4-5-20251101': [164, 3653, 2038052, 199247, 2.3564648],
  },
  'entire-b1-2.1.17': {
    '2026-02-13|claude-opus-4-5-20251101': [152, 42, 563052, 60069, 0.6587673],
  },
  'entire-89-2.1.17': {
    '2026-02-09|claude-sonnet-4-5-20250929': [4328, 78, 1514184, 182016, 1.1509692],
  },
  'entire-60-2.1.34': {
    '2026-02-09|claude-opus-4-6': [17, 2075, 441175, 19056, 0.4631075],
    '2026-02-09|claude-haiku-4-5-20251001': [9452, 30, 632768, 43259, 0.1593968],
  },
  'entire-68-2.1.38': {
    '2026-02-10|claude-opus-4-6': [7, 805, 136049, 13211, 0.2202945],
  },
  'spotter-short-2.1.38': {
    '2026-02-10|claude-opus-4-6': [3, 13, 11515, 13835, 0.1444475],
  },
  'spotter-tool-heavy-2.1.38': {
    '2026-02-10|claude-opus-4-6': [54, 212, 88231, 17696, 0.2266455],
  },
  'spotter-subagent-2.1.38': {
    '2026-02-10|claude-opus-4-6': [1576, 1586, 427286, 25842, 0.519593],
    '2026-02-10|claude-haiku-4-5-20251001': [24, 7, 95343, 14285, 0.0381633],
  },
  'spotter-258c-2.1.39': {
    '2026-02-11|claude-opus-4-6': [183, 38905, 14938375, 351961, 11.9623375],
    '2026-02-11|claude-sonnet-4-5-20250929': [15, 3, 34159, 42176, 0.2633937],
  },
  'codex-long-0.104': {
    '2026-02-23|gpt-5.3-codex': [730926, 67742, 17322112, 0, 5.2588781],
    '2026-02-24|gpt-5.3-codex': [1458055, 66257, 14299392, 0, 5.9815879],
  },
  'codex-tiny-0.104': {
    '2026-02-23|gpt-5.3-codex': [31013, 431, 3456, 0, 0.0609116],
  },
  'codex-0.104': {
    '2026-02-23|gpt-5.3-codex': [59525, 1123, 238848, 0, 0.1616892],
  },
};

/**
 * Cells where ours differ from ccusage's, with the rule that explains each difference
 * (the names of scripts/bench/ccusageRules.ts) and ours − ccusage's per field. None on
 * these files: the `synthetic` rule (a `<synthetic>` row ccusage leaves out) no longer
 * applies since the harness's zero-token messages make no row of their own.
 */
const DIFFERENCES: Record<string, Record<string, { rule: Reason; delta: number[] }>> = {};

interface Row {
  /** The file, relative to the config folder / Codex home. */
  file: string;
  role: 'session' | 'subagent';
  /** The parent's file, for subagents attached to it. */
  parent?: string;
  resumeId?: string;
  startedAt?: string;
  /** `status/outcome (raw)` at each of AGES. */
  status: [string, string, string];
}

const idle = (raw: string) => `idle (${raw})`;
const active = (raw: string) => `active (${raw})`;
const done = (raw: string, outcome = 'completed') => `finished/${outcome} (${raw})`;
const interrupted = [
  'idle/interrupted (interrupted)',
  'idle/interrupted (interrupted)',
  done('interrupted', 'interrupted'),
] as [string, string, string];
/** A turn that ended: idle at once, finished two days later. */
const ended = [idle('turn-ended'), idle('turn-ended'), done('turn-ended')] as [
  string,
  string,
  string,
];
/**
 * A final text with no stop reason and no end-of-turn line after it (as most versions
 * write it, and Entire's checkpoints cut it): active while written, then a turn end.
 */
const quietText = [active('assistant-text'), idle('turn-ended'), done('turn-ended')] as [
  string,
  string,
  string,
];
const old = [done('turn-ended'), done('turn-ended'), done('turn-ended')] as [
  string,
  string,
  string,
];

const P258 = 'projects/spotter-d/258c7280-ae70-4798-800f-63464d01a85d';
const ROWS: Record<string, Row[]> = {
  sniffly: [
    {
      file: 'projects/music/fed8ce56-bc79-401f-a83e-af084253362f.jsonl',
      role: 'session',
      resumeId: 'fed8ce56-bc79-401f-a83e-af084253362f',
      startedAt: '2025-06-10T12:36:23.208Z',
      status: quietText,
    },
    // Summary-only: no entry, dated with the case (it has no timestamp of its own).
    {
      file: 'projects/music/ff71dbed-a4f2-4284-a4fc-fe2fb90de929.jsonl',
      role: 'session',
      resumeId: 'ff71dbed-a4f2-4284-a4fc-fe2fb90de929',
      status: [active('empty'), idle('empty'), done('empty')],
    },
    // Two days before the case's last write.
    {
      file: 'projects/music/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl',
      role: 'session',
      resumeId: 'ba79134d-b6e9-4867-af0c-6941038c9e4b',
      startedAt: '2025-06-08T10:47:08.446Z',
      status: old,
    },
  ],
  viewer: [
    {
      file: 'projects/sample/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl',
      role: 'session',
      resumeId: '5c0375b4-57a5-4f26-b12d-d022ee4e51b7',
      startedAt: '2025-09-07T09:52:03.071Z',
      status: quietText,
    },
    // Ends with a text whose stop_reason is end_turn, four days earlier.
    {
      file: 'projects/sample/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl',
      role: 'session',
      resumeId: '1af7fc5e-8455-4414-9ccd-011d40f70b2a',
      startedAt: '2025-09-03T00:47:19.293Z',
      status: old,
    },
  ],
  // Ends with "[Request interrupted by user]".
  'git-ai-1.0.111': [
    {
      file: 'projects/git-ai-a/cb947e5b-246e-4253-a953-631f7e464c6b.jsonl',
      role: 'session',
      resumeId: 'cb947e5b-246e-4253-a953-631f7e464c6b',
      startedAt: '2025-09-11T13:28:05.638Z',
      status: interrupted,
    },
  ],
  'git-ai-2.0.69': [
    {
      file: 'projects/git-ai-b/dac34307-159f-4fcd-9c21-35210246ad38.jsonl',
      role: 'session',
      resumeId: 'dac34307-159f-4fcd-9c21-35210246ad38',
      startedAt: '2025-12-16T00:35:39.299Z',
      status: quietText,
    },
  ],
  'entire-a6-2.0.76': [
    {
      file: 'projects/entire-a6/198393f2-22db-477b-ac77-1825bea883ae.jsonl',
      role: 'session',
      resumeId: '198393f2-22db-477b-ac77-1825bea883ae',
      startedAt: '2026-01-07T11:47:31.774Z',
      status: quietText,
    },
  ],
  'entire-ca-2.1.5': [
    {
      file: 'projects/entire-ca/d1423492-e4f5-4a86-a997-1f1c8d09a940.jsonl',
      role: 'session',
      resumeId: 'd1423492-e4f5-4a86-a997-1f1c8d09a940',
      startedAt: '2026-01-12T15:49:49.887Z',
      status: quietText,
    },
  ],
  // Text, stop_hook_summary, turn_duration, then /exit (slash-command lines are skipped).
  'entire-b1-2.1.17': [
    {
      file: 'projects/entire-b1/d563fb6b-39cf-4895-bb5f-681c33e58bbc.jsonl',
      role: 'session',
      resumeId: 'd563fb6b-39cf-4895-bb5f-681c33e58bbc',
      startedAt: '2026-02-13T08:51:07.605Z',
      status: ended,
    },
  ],
  'entire-89-2.1.17': [
    {
      file: 'projects/entire-89/9f26971d-da0a-46db-b911-e156aad9548e.jsonl',
      role: 'session',
      resumeId: '9f26971d-da0a-46db-b911-e156aad9548e',
      startedAt: '2026-02-09T15:50:28.257Z',
      status: ended,
    },
  ],
  // The checkpoint was taken while a Bash call waited: a permission prompt once quiet.
  'entire-60-2.1.34': [
    {
      file: 'projects/entire-60/61cb3ba8-484b-4a21-bf99-34f7dc361170.jsonl',
      role: 'session',
      resumeId: '61cb3ba8-484b-4a21-bf99-34f7dc361170',
      startedAt: '2026-02-09T07:36:05.522Z',
      status: [
        active('tool-call'),
        'waiting (permission: Bash)',
        done('permission: Bash', 'interrupted'),
      ],
    },
  ],
  'entire-68-2.1.38': [
    {
      file: 'projects/entire-68/9d440bfc-a64f-43be-aa10-10a3764a59ea.jsonl',
      role: 'session',
      resumeId: '9d440bfc-a64f-43be-aa10-10a3764a59ea',
      startedAt: '2026-02-10T06:22:36.558Z',
      status: ended,
    },
  ],
  'spotter-short-2.1.38': [
    {
      file: 'projects/spotter-a/55604662-cf2a-4331-851a-ec234028f8ca.jsonl',
      role: 'session',
      resumeId: '55604662-cf2a-4331-851a-ec234028f8ca',
      startedAt: '2026-02-10T21:11:52.438Z',
      status: interrupted,
    },
  ],
  'spotter-tool-heavy-2.1.38': [
    {
      file: 'projects/spotter-b/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl',
      role: 'session',
      resumeId: 'd6e0bada-1959-4eec-a9d2-0bfade768d8f',
      startedAt: '2026-02-10T22:57:51.291Z',
      status: interrupted,
    },
  ],
  // The turn ends with stop_hook_summary and no turn_duration: idle at once.
  'spotter-subagent-2.1.38': [
    {
      file: 'projects/spotter-c/491e126e-1e71-469c-ade2-fcc8af567c74.jsonl',
      role: 'session',
      resumeId: '491e126e-1e71-469c-ade2-fcc8af567c74',
      startedAt: '2026-02-10T21:54:15.897Z',
      status: ended,
    },
  ],
  'spotter-258c-2.1.39': [
    {
      file: `${P258}.jsonl`,
      role: 'session',
      resumeId: '258c7280-ae70-4798-800f-63464d01a85d',
      startedAt: '2026-02-11T20:31:53.375Z',
      status: ended,
    },
    // Subagents end 21 and 28 minutes before the parent's last line.
    {
      file: `${P258}/subagents/agent-a881341.jsonl`,
      role: 'subagent',
      parent: `${P258}.jsonl`,
      startedAt: '2026-02-11T21:24:19.366Z',
      status: [idle('turn-ended'), done('turn-ended'), done('turn-ended')],
    },
    {
      file: `${P258}/subagents/agent-acompact-fffbd0.jsonl`,
      role: 'subagent',
      parent: `${P258}.jsonl`,
      startedAt: '2026-02-11T20:57:47.609Z',
      status: [idle('turn-ended'), done('turn-ended'), done('turn-ended')],
    },
  ],
  // Codex: started at session_meta's timestamp (the line itself comes later).
  'codex-long-0.104': [
    {
      file: 'sessions/2026/02/23/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
      role: 'session',
      resumeId: '019c8a59-e9dd-71f0-9ae3-4079fe9726a9',
      startedAt: '2026-02-23T11:54:34.334Z',
      status: ended,
    },
  ],
  // Ends with a call without output: no escalation, so idle rather than waiting.
  'codex-tiny-0.104': [
    {
      file: 'sessions/2026/02/23/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl',
      role: 'session',
      resumeId: '019c8a70-dda7-7f33-98ea-f30553347322',
      startedAt: '2026-02-23T12:19:38.535Z',
      status: [
        active('tool-call'),
        idle('tool-call: exec_command'),
        done('tool-call: exec_command', 'interrupted'),
      ],
    },
  ],
  'codex-0.104': [
    {
      file: 'sessions/2026/02/23/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl',
      role: 'session',
      resumeId: '019c8bfe-ec25-79e0-97d7-bda6a9c575ff',
      startedAt: '2026-02-23T19:34:25.573Z',
      status: ended,
    },
  ],
};

let tmp: string;
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'asi-real-sessions-'));
});
after(() => rm(tmp, { recursive: true, force: true }));

/** The case laid out in its own folder, and a listing at `now`. */
async function listed(c: RealCase) {
  const root = join(tmp, c.id);
  const latest = await layOut(c, root);
  const none = join(root, 'none');
  const folders =
    c.harness === 'codex'
      ? { claudeConfigDirs: [none], codexHome: root }
      : { claudeConfigDirs: [root], codexHome: none };
  return { root, latest, folders };
}

const statusText = (s: { status: string; outcome?: string; raw: string }) =>
  `${s.status}${s.outcome ? `/${s.outcome}` : ''} (${s.raw})`;

describe('real files: sessions, statuses and token totals', () => {
  test('every case has expectations and every file is laid out', () => {
    assert.deepEqual(Object.keys(ROWS).sort(), CASES.map((c) => c.id).sort());
    assert.deepEqual(Object.keys(CCUSAGE).sort(), CASES.map((c) => c.id).sort());
    for (const c of CASES) {
      assert.deepEqual(
        ROWS[c.id]!.map((r) => r.file).sort(),
        c.files.map((f) => f.layout).sort(),
        c.id,
      );
    }
  });

  for (const c of CASES) {
    test(`${c.id} (${c.harness} ${c.version})`, async () => {
      const { root, latest, folders } = await listed(c);
      const expected = ROWS[c.id]!;
      const seen: string[][] = expected.map(() => []);
      let report: ReturnType<typeof buildUsageReport> | undefined;
      for (const age of AGES) {
        const index = new LocalIndex({ ...folders, now: () => latest + age });
        const snapshot = await index.refresh();
        assert.deepEqual(
          snapshot.problems.filter((p) => p.kind !== 'missing-folder'),
          [],
          'no problem in the files',
        );
        assert.equal(snapshot.sessions.length, expected.length, 'one row per file');
        for (const [i, row] of expected.entries()) {
          const s = snapshot.sessions.find((x) => relative(root, x.path) === row.file);
          assert.ok(s, `a row for ${row.file}`);
          seen[i]!.push(statusText(s.summary.status));
          if (age !== AGES[0]) continue;
          assert.equal(s.role, row.role, `${row.file}: role`);
          assert.equal(
            s.summary.parentId && relative(root, s.summary.parentId),
            row.parent,
            `${row.file}: parent`,
          );
          assert.equal(s.summary.resumeId, row.resumeId, `${row.file}: resume id`);
          assert.equal(s.summary.startedAt, row.startedAt, `${row.file}: started at`);
        }
        if (age === AGES[0]) report = buildUsageReport(snapshot, index.pricing, { dayOf: utcDay });
      }
      for (const [i, row] of expected.entries()) {
        assert.deepEqual(seen[i], row.status, `${row.file}: status at 30 s, 10 min, 2 days`);
      }

      // Token totals per day and model: ours, with every difference explained by a rule.
      const harness = report!.harnesses[c.harness]?.byDayModel ?? {};
      const ours: Record<string, number[]> = {};
      for (const [day, models] of Object.entries(harness)) {
        for (const [model, t] of Object.entries(models)) {
          ours[`${day}|${model}`] = [
            t.inputTokens,
            t.outputTokens,
            t.cacheReadTokens,
            t.cacheWriteTokens,
          ];
        }
      }
      const theirs = CCUSAGE[c.id]!;
      const rules = DIFFERENCES[c.id] ?? {};
      assert.deepEqual(Object.keys(ours).sort(), Object.keys(theirs).sort(), 'day × model cells');
      for (const [cell, t] of Object.entries(theirs)) {
        const why = rules[cell];
        const want = t.slice(0, 4).map((n, i) => n + (why?.delta[i] ?? 0));
        assert.deepEqual(
          ours[cell],
          want,
          `${cell}${why ? ` (${why.rule}: ${REASONS[why.rule]})` : ''}`,
        );
      }
      reports.set(c.id, report!);
    });
  }
});

/** The usage reports of the cases above, by case id (filled as they run). */
const reports = new Map<string, ReturnType<typeof buildUsageReport>>();

describe('real files: cost per day × model', () => {
  for (const c of CASES) {
    // Where the tokens equal ccusage's, the cost is within 0.5% of its offline prices (the
    // price data may differ a little; a wrong tier or model family would not).
    test(c.id, () => {
      const report = reports.get(c.id);
      assert.ok(report, 'the case was listed above');
      assert.deepEqual(report.unpricedModels, [], 'every model has a price');
      const harness = report.harnesses[c.harness]!.byDayModel;
      for (const [cell, t] of Object.entries(CCUSAGE[c.id]!)) {
        if (DIFFERENCES[c.id]?.[cell]) continue;
        const [day, model] = cell.split('|') as [string, string];
        const cost = harness[day]![model]!.knownCost;
        assert.ok(
          Math.abs(cost - t[4]) <= 0.005 * Math.max(cost, t[4]),
          `${cell}: cost ${cost} vs ccusage ${t[4]}`,
        );
      }
    });
  }
});
