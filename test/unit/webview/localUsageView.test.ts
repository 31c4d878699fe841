/**
 * The local usage report → the usage dashboard's view: totals (cache and reasoning tokens
 * included), a cost series by local day over the range, breakdowns by model, project and
 * harness with every token column, and unpriced models and unreadable input as problems.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { formatCost } from '../../../src/domain/format.ts';
import { LocalIndex } from '../../../src/sources/local/localIndex.ts';
import {
  buildUsageReport,
  type UsageReport,
  type UsageTotals,
} from '../../../src/sources/local/usageReport.ts';
import {
  localCostText,
  localDayKey,
  localRangeStart,
  localUsageView,
} from '../../../src/webview/localUsageView.ts';
import { writeLocalCorpus, type LocalCorpus } from '../../support/localCorpus.ts';
import { tempDir } from '../sources/local/fixtures.ts';

function totals(extra: Partial<UsageTotals> = {}): UsageTotals {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    responses: 0,
    sessions: 0,
    unpricedSessions: 0,
    cost: 0,
    knownCost: 0,
    ...extra,
  };
}

function report(extra: Partial<UsageReport> = {}): UsageReport {
  return {
    totals: totals(),
    byDay: {},
    byModel: {},
    byDayModel: {},
    byProject: {},
    byHarness: {},
    harnesses: {},
    unpricedModels: [],
    prices: '@pydantic/genai-prices 0.1.8',
    sessions: 0,
    sessionsWithoutTokenInfo: 0,
    files: 0,
    bytes: 0,
    problems: [],
    ...extra,
  };
}

describe('local usage view from the corpus report', () => {
  let corpus: LocalCorpus;
  let cleanup: () => Promise<void>;
  let built: UsageReport;
  before(async () => {
    const t = await tempDir('asi-local-view-');
    cleanup = t.cleanup;
    corpus = await writeLocalCorpus(t.dir, { claudeSessions: 5, codexSessions: 4 });
    const index = new LocalIndex({
      claudeConfigDirs: [corpus.claudeDir],
      codexHome: corpus.codexDir,
    });
    built = buildUsageReport(await index.refresh(), index.pricing);
  });
  after(() => cleanup());

  test('totals, every breakdown and the series add up to the generator totals', () => {
    const view = localUsageView(built, { connectionLabel: 'This machine', range: null });
    const e = corpus.expected.total;
    assert.equal(view.connectionLabel, 'This machine');
    assert.equal(view.rangeText, 'All time');
    assert.equal(view.totals.inputTokens, e.input);
    assert.equal(view.totals.outputTokens, e.output);
    assert.equal(view.totals.cacheReadTokens, e.cacheRead);
    assert.equal(view.totals.cacheWriteTokens, e.cacheWrite);
    assert.equal(view.totals.reasoningTokens, e.reasoning);
    assert.ok(e.reasoning > 0, 'the Codex sessions report reasoning');
    assert.equal(view.totals.sessions, built.sessions);
    assert.equal(view.totals.cost, formatCost(built.totals.cost));

    assert.deepEqual(
      view.breakdowns.map((b) => b.id),
      ['model', 'project', 'harness'],
    );
    const model = view.breakdowns.find((b) => b.id === 'model')!;
    assert.deepEqual(model.columns, [
      'Sessions',
      'Input tokens',
      'Output tokens',
      'Cache read tokens',
      'Cache write tokens',
      'Estimated cost',
    ]);
    assert.equal(model.measure, 'Estimated cost');
    assert.deepEqual(
      model.rows.map((r) => r.label).sort(),
      Object.keys(corpus.expected.byModel).sort(),
    );
    for (const row of model.rows) {
      const expected = corpus.expected.byModel[row.label]!;
      assert.equal(row.cells[1], expected.input.toLocaleString('en-US'), row.label);
      assert.equal(row.cells[2], expected.output.toLocaleString('en-US'), row.label);
      assert.equal(row.cells[3], expected.cacheRead.toLocaleString('en-US'), row.label);
      assert.equal(row.cells[4], expected.cacheWrite.toLocaleString('en-US'), row.label);
    }
    const values = model.rows.map((r) => r.value);
    assert.deepEqual(
      values,
      [...values].sort((a, b) => b - a),
      'largest cost first',
    );

    const harness = view.breakdowns.find((b) => b.id === 'harness')!;
    assert.deepEqual(harness.rows.map((r) => r.label).sort(), ['Claude Code', 'Codex']);
    const project = view.breakdowns.find((b) => b.id === 'project')!;
    assert.ok(project.rows.every((r) => r.label.startsWith('/home/dev/')));

    const series = view.series!;
    assert.match(series.note, /local calendar day/);
    const days = Object.keys(built.byDay).sort();
    assert.equal(series.points[0]!.day, days[0]);
    assert.equal(series.points.at(-1)!.day, days.at(-1));
    const inSeries = series.points.reduce((n, p) => n + p.inputTokens, 0);
    assert.equal(inSeries, e.input, 'every dated response is on a day');
    const cost = series.points.reduce((n, p) => n + p.cost, 0);
    assert.ok(Math.abs(cost - built.totals.knownCost) < 1e-9);
    // Gaps between days are filled, one point per calendar day.
    for (let i = 1; i < series.points.length; i++) {
      const step = Date.parse(series.points[i]!.day) - Date.parse(series.points[i - 1]!.day);
      assert.equal(step, 86_400_000);
    }
    assert.deepEqual(view.problems, [
      '1 session in the older Codex format records no token counts: its tokens and cost are unknown and not counted.',
      ...(built.problems.length > 0 ? [view.problems.at(-1)!] : []),
    ]);
  });
});

describe('local usage view from a hand-made report', () => {
  test('an unpriced model is a problem line and its cost reads as unknown, never $0', () => {
    const view = localUsageView(
      report({
        totals: totals({ outputTokens: 30, responses: 3, cost: undefined, knownCost: 2 }),
        byModel: {
          'claude-sonnet-4-5': totals({ outputTokens: 10, sessions: 1, knownCost: 2, cost: 2 }),
          'my-model': totals({
            outputTokens: 20,
            sessions: 1,
            unpricedSessions: 1,
            cost: undefined,
          }),
        },
        byHarness: {
          'claude-code': totals({ outputTokens: 30, sessions: 1, cost: undefined, knownCost: 2 }),
        },
        byDay: {
          '2026-07-01': totals({
            outputTokens: 30,
            sessions: 1,
            unpricedSessions: 1,
            cost: undefined,
            knownCost: 2,
          }),
        },
        unpricedModels: ['my-model'],
        sessions: 1,
      }),
      { connectionLabel: 'L', range: null },
    );
    assert.equal(view.totals.cost, '$2.00 + unknown');
    assert.equal(
      view.problems[0],
      'No price for my-model: its tokens are counted, its cost is unknown. Add it to sessionInspector.local.prices.',
    );
    const model = view.breakdowns.find((b) => b.id === 'model')!;
    const mine = model.rows.find((r) => r.label === 'my-model')!;
    assert.equal(mine.valueText, 'cost unknown');
    assert.equal(mine.cells.at(-1), 'cost unknown');
    assert.equal(mine.cells[2], '20');
    const harness = view.breakdowns.find((b) => b.id === 'harness')!;
    assert.equal(harness.rows[0]!.cells.at(-1), '$2.00 + unknown');
    const day = view.series!.points[0]!;
    assert.equal(day.unknownCostSessions, 1);
    assert.equal(day.costText, '$2.00 + unknown');
    assert.equal(view.series!.totalCost, '$2.00 + unknown');
    assert.match(view.series!.note, /lower bound/);
  });

  test('a range fills every day from its start to today; undated responses are a note', () => {
    const now = new Date(2026, 6, 10, 15, 0); // 10 July 2026, local time
    assert.equal(localDayKey(now), '2026-07-10');
    assert.equal(localRangeStart(7, now), '2026-07-04');
    assert.equal(localRangeStart(30, now), '2026-06-11');
    const view = localUsageView(
      report({
        byDay: {
          '2026-07-05': totals({ inputTokens: 5, sessions: 2, knownCost: 1, cost: 1 }),
          unknown: totals({ inputTokens: 1, responses: 4 }),
        },
      }),
      { connectionLabel: 'L', range: 7, now, timeZone: 'Europe/Berlin' },
    );
    assert.equal(view.rangeText, 'Last 7 days');
    const points = view.series!.points;
    assert.deepEqual(
      points.map((p) => p.day),
      [
        '2026-07-04',
        '2026-07-05',
        '2026-07-06',
        '2026-07-07',
        '2026-07-08',
        '2026-07-09',
        '2026-07-10',
      ],
    );
    assert.equal(points[1]!.sessions, 2);
    assert.equal(points[1]!.costText, '$1.00');
    assert.equal(points[0]!.costText, '$0.00');
    assert.match(view.series!.note, /\(Europe\/Berlin\)/);
    assert.match(
      view.series!.note,
      /4 responses without a timestamp count in the totals but on no day/,
    );
  });

  test('file problems and legacy sessions are said; nothing to chart leaves no series', () => {
    const view = localUsageView(
      report({
        sessionsWithoutTokenInfo: 2,
        problems: [
          { kind: 'invalid-json', message: 'Line 3 is not JSON', path: '/t/a.jsonl', line: 3 },
          { kind: 'unreadable', message: '/t/b.jsonl: EACCES', path: '/t/b.jsonl' },
          { kind: 'invalid-json', message: 'x', path: '/t/c.jsonl' },
          { kind: 'invalid-json', message: 'y', path: '/t/d.jsonl' },
        ],
      }),
      { connectionLabel: 'L', range: 30 },
    );
    assert.equal(view.series, undefined);
    assert.deepEqual(view.breakdowns, []);
    assert.equal(
      view.problems[0],
      '2 sessions in the older Codex format record no token counts: their tokens and cost are unknown and not counted.',
    );
    assert.equal(
      view.problems[1],
      '4 problems in the transcript files (lines or files that could not be read are not counted): Line 3 is not JSON (/t/a.jsonl:3); /t/b.jsonl: EACCES; x (/t/c.jsonl); …',
    );
  });

  test('cost text: known, unknown, and known plus unknown', () => {
    assert.equal(localCostText({ cost: 1.5, knownCost: 1.5 }), '$1.50');
    assert.equal(localCostText({ cost: undefined, knownCost: 0 }), 'cost unknown');
    assert.equal(localCostText({ cost: undefined, knownCost: 0.001 }), '<$0.01 + unknown');
  });
});
