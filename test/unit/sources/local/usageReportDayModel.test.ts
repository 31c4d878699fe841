/**
 * The usage report's day × model breakdown: each response lands in the cell of its day
 * and model, and the cells add up to the per-day and per-model totals.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LocalIndex } from '../../../../src/sources/local/localIndex.ts';
import {
  buildUsageReport,
  dayCacheSizes,
  localDay,
  utcDay,
  type UsageTotals,
} from '../../../../src/sources/local/usageReport.ts';
import {
  assistant,
  codex,
  codexMeta,
  jsonl,
  prompt,
  tempDir,
  tokenCount,
  turnContext,
  usage,
  writeAt,
} from './fixtures.ts';

const SONNET = 'claude-sonnet-4-5-20250929';
const HAIKU = 'claude-haiku-4-5-20251001';
/** Seconds after T0 (2026-07-01T10:00:00Z). */
const DAY = 86_400;
const LAST_SECOND_OF_DAY_1 = 14 * 3600 - 1;

const FIELDS = [
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'reasoningTokens',
  'responses',
] as const;
type Sums = Record<(typeof FIELDS)[number], number>;

function sumOf(cells: UsageTotals[]): Sums {
  const out = Object.fromEntries(FIELDS.map((f) => [f, 0])) as Sums;
  for (const c of cells) for (const f of FIELDS) out[f] += c[f];
  return out;
}

async function report() {
  const { dir, cleanup } = await tempDir();
  const claude = join(dir, 'claude', 'projects', '-home-dev-orbit-api', 'S1.jsonl');
  await writeAt(
    claude,
    jsonl(
      prompt('Start', 0),
      assistant({ id: 'msg_a', requestId: 'req_a', usage: usage(3, 40, 1000, 200), seconds: 5 }),
      assistant({
        id: 'msg_b',
        requestId: 'req_b',
        model: HAIKU,
        usage: usage(2, 9, 500),
        seconds: 8,
      }),
      // One response whose lines straddle midnight (UTC): it counts on its first line's day.
      assistant({
        id: 'msg_c',
        requestId: 'req_c',
        usage: usage(1, 3),
        seconds: LAST_SECOND_OF_DAY_1,
      }),
      assistant({
        id: 'msg_c',
        requestId: 'req_c',
        usage: usage(1, 70),
        seconds: LAST_SECOND_OF_DAY_1 + 2,
      }),
      assistant({ id: 'msg_d', requestId: 'req_d', usage: usage(4, 11), seconds: DAY + 60 }),
    ),
  );
  const rollout = join(
    dir,
    'codex',
    'sessions',
    '2026',
    '07',
    '01',
    'rollout-2026-07-01T10-00-00-0199a2b3-1c2d-7e3f-8a9b-0c1d2e3f4a5b.jsonl',
  );
  await writeAt(
    rollout,
    jsonl(
      codexMeta(),
      turnContext('gpt-5-codex', 1),
      codex('event_msg', { type: 'user_message', message: 'Go' }, 2),
      tokenCount({ input: 1000, cached: 600, output: 50, reasoning: 10 }, 20),
      tokenCount({ input: 1800, cached: 1000, output: 90, reasoning: 30 }, DAY + 20),
    ),
  );
  const index = new LocalIndex({
    claudeConfigDirs: [join(dir, 'claude')],
    codexHome: join(dir, 'codex'),
  });
  const snapshot = await index.refresh();
  return {
    report: buildUsageReport(snapshot, index.pricing, { dayOf: utcDay }),
    alone: (harness: string) =>
      buildUsageReport(
        { ...snapshot, sessions: snapshot.sessions.filter((s) => s.harness === harness) },
        index.pricing,
        { dayOf: utcDay },
      ),
    cleanup,
  };
}

describe('usage report: by day and model', () => {
  test('each response is in the cell of its (UTC) day and model', async () => {
    const { report: r, cleanup } = await report();
    try {
      assert.deepEqual(Object.keys(r.byDayModel).sort(), ['2026-07-01', '2026-07-02']);
      const day1 = r.byDayModel['2026-07-01']!;
      const day2 = r.byDayModel['2026-07-02']!;
      assert.deepEqual(Object.keys(day1).sort(), [HAIKU, SONNET, 'gpt-5-codex'].sort());
      assert.deepEqual(Object.keys(day2).sort(), [SONNET, 'gpt-5-codex'].sort());
      // msg_a + msg_c (its maximum, on the day of its first line).
      assert.equal(day1[SONNET]!.outputTokens, 40 + 70);
      assert.equal(day1[SONNET]!.inputTokens, 3 + 1);
      assert.equal(day1[SONNET]!.cacheReadTokens, 1000);
      assert.equal(day1[SONNET]!.cacheWriteTokens, 200);
      assert.equal(day1[SONNET]!.responses, 2);
      assert.equal(day1[HAIKU]!.outputTokens, 9);
      assert.equal(day2[SONNET]!.outputTokens, 11);
      assert.equal(day2[SONNET]!.responses, 1);
      // Codex: deltas of the cumulative totals; input without the cached part.
      assert.equal(day1['gpt-5-codex']!.inputTokens, 1000 - 600);
      assert.equal(day1['gpt-5-codex']!.cacheReadTokens, 600);
      assert.equal(day2['gpt-5-codex']!.inputTokens, 800 - 400);
      assert.equal(day2['gpt-5-codex']!.cacheReadTokens, 400);
      assert.equal(day2['gpt-5-codex']!.outputTokens, 40);
      assert.equal(day2['gpt-5-codex']!.reasoningTokens, 20);
    } finally {
      await cleanup();
    }
  });

  test('the cells add up to the per-day and per-model totals, costs included', async () => {
    const { report: r, cleanup } = await report();
    try {
      for (const [day, models] of Object.entries(r.byDayModel)) {
        assert.deepEqual(sumOf(Object.values(models)), sumOf([r.byDay[day]!]), day);
        const cost = Object.values(models).reduce((n, c) => n + c.knownCost, 0);
        assert.ok(Math.abs(cost - r.byDay[day]!.knownCost) < 1e-12, day);
      }
      for (const [model, totals] of Object.entries(r.byModel)) {
        const cells = Object.values(r.byDayModel).flatMap((m) => (m[model] ? [m[model]] : []));
        assert.deepEqual(sumOf(cells), sumOf([totals]), model);
      }
    } finally {
      await cleanup();
    }
  });

  test("each harness's days and cells are those of a report of its sessions alone", async () => {
    const { report: r, alone, cleanup } = await report();
    try {
      assert.deepEqual(Object.keys(r.harnesses).sort(), ['claude-code', 'codex']);
      for (const harness of ['claude-code', 'codex']) {
        const expected = alone(harness);
        assert.deepEqual(r.harnesses[harness]!.byDay, expected.byDay, harness);
        assert.deepEqual(r.harnesses[harness]!.byDayModel, expected.byDayModel, harness);
        assert.deepEqual(r.byHarness[harness], expected.totals, harness);
      }
      assert.notDeepEqual(r.harnesses['codex']!.byDay, r.byDay, 'not the overall days');
    } finally {
      await cleanup();
    }
  });

  test('the day caches stay bounded over centuries of timestamps, and stay right', () => {
    const DAY = 86_400_000;
    for (let n = 0; n < 400_000; n++) utcDay(n * DAY + 1);
    assert.ok(dayCacheSizes().utc <= 350_000, `utc cache: ${dayCacheSizes().utc} entries`);
    assert.equal(utcDay(Date.parse('2026-07-01T12:00:00Z')), '2026-07-01');
    assert.equal(utcDay(399_999 * DAY), new Date(399_999 * DAY).toISOString().slice(0, 10));
    for (let slot = 0; slot < 400_000; slot++) localDay(slot * 900_000);
    assert.ok(dayCacheSizes().local <= 350_000, `local cache: ${dayCacheSizes().local} entries`);
  });

  test('utcDay: the UTC calendar day, unknown without a timestamp', () => {
    assert.equal(utcDay(Date.parse('2026-07-01T23:59:59.999Z')), '2026-07-01');
    assert.equal(utcDay(Date.parse('2026-07-02T00:00:00.000Z')), '2026-07-02');
    assert.equal(utcDay(Date.parse('1969-12-31T23:59:59.000Z')), '1969-12-31');
    assert.equal(utcDay(Number.NaN), 'unknown');
  });

  test('localDay (computed once per quarter hour) agrees with the Date fields at every minute', () => {
    const before = process.env.TZ;
    // Each zone gets its own dates: the quarter-hour memo is per process, not per zone.
    const cases: [string, string[]][] = [
      // A 30-minute summer-time shift, both ways.
      ['Australia/Lord_Howe', ['2026-04-04T00:00:00Z', '2026-10-03T00:00:00Z']],
      // A +5:45 offset, across a year boundary.
      ['Asia/Kathmandu', ['2026-12-30T12:00:00Z']],
      ['Europe/Berlin', ['2026-03-28T12:00:00Z']],
    ];
    try {
      for (const [zone, starts] of cases) {
        process.env.TZ = zone;
        for (const start of starts) {
          const from = Date.parse(start);
          for (let ms = from; ms < from + 2 * 86_400_000; ms += 60_000) {
            const d = new Date(ms);
            const pad = (n: number) => String(n).padStart(2, '0');
            const expected = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
            assert.equal(localDay(ms), expected, `${zone} ${d.toISOString()}`);
          }
        }
      }
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
    assert.equal(localDay(Number.NaN), 'unknown');
  });
});
