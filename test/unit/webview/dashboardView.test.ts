/**
 * DashboardData → DashboardView (what the dashboard webview draws), against the
 * reference backend: totals and costs agree with the tools, every breakdown has a row
 * per backend row, the range becomes a start date, and failures read as what they are.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { BackendError } from '../../../src/domain/errors.ts';
import { formatCost } from '../../../src/domain/format.ts';
import {
  isDashboardMessage,
  isDashboardPanelState,
} from '../../../src/shared/dashboardProtocol.ts';
import type { McpSource } from '../../../src/sources/mcp/mcpSource.ts';
import {
  ANALYTICS_TOOL,
  fetchDashboardData,
  USAGE_TOOL,
} from '../../../src/sources/usage/connectionUsage.ts';
import {
  dashboardFailure,
  dashboardFilters,
  filtersInWords,
  formatCount,
  rangeStartDate,
  toDashboardView,
} from '../../../src/webview/dashboardView.ts';
import { FIXED_NOW, type LooseJson } from '../../support/backend.ts';
import { backendFailure, Rig } from '../../support/mcpRig.ts';

const rig = new Rig();
let source: McpSource;

before(async () => {
  await rig.start();
  source = rig.source();
});
after(async () => {
  await source.dispose();
  await rig.backend.close();
});
beforeEach(() => rig.faults.clear());

const tool = (name: string, args: Record<string, unknown> = {}): Promise<LooseJson> =>
  source.callJson(name, args);

describe('dashboard view from the reference backend', () => {
  it('totals, cost split and the series agree with the tools', async () => {
    const data = await fetchDashboardData(source);
    const usage = await tool(USAGE_TOOL);
    const view = toDashboardView(data, { connectionLabel: 'Demo', range: null, filters: {} });

    assert.equal(view.connectionLabel, 'Demo');
    assert.equal(view.range, null);
    assert.equal(view.rangeText, 'All time');
    assert.equal(view.filtersText, '');
    assert.equal(view.viewerScope, usage.viewerScope);
    assert.deepEqual(view.problems, []);
    assert.equal(view.totals.sessions, usage.totalSessions);
    assert.equal(view.totals.inputTokens, usage.totalInputTokens);
    assert.equal(view.totals.outputTokens, usage.totalOutputTokens);
    assert.equal(view.totals.cacheReadTokens, usage.totalCacheReadTokens);
    assert.equal(view.totals.cacheWriteTokens, usage.totalCacheWriteTokens);
    assert.equal(view.totals.cost, formatCost(usage.totalEstimatedCost));
    assert.equal(view.totals.subscriptionCost, formatCost(usage.subscriptionEstimatedCost));
    assert.equal(view.totals.apiCost, formatCost(usage.apiEstimatedCost));
    const share = view.totals.subscriptionShare!;
    assert.ok(share > 0 && share < 1, `share ${share}`);
    assert.ok(
      Math.abs(
        share -
          usage.subscriptionEstimatedCost /
            (usage.subscriptionEstimatedCost + usage.apiEstimatedCost),
      ) < 1e-9,
    );

    const series = view.series!;
    assert.equal(series.points.length, data.costOverTime!.points.length);
    assert.equal(
      series.points.reduce((n, p) => n + p.sessions, 0),
      usage.totalSessions,
    );
    assert.match(
      series.note,
      new RegExp(`summed from ${formatCount(usage.totalSessions)} sessions`),
    );
    const known = series.points.reduce((n, p) => n + p.cost, 0);
    assert.equal(series.totalCost, formatCost(known));
    for (const [i, p] of series.points.entries()) {
      const raw = data.costOverTime!.points[i]!;
      assert.equal(p.day, raw.day);
      assert.equal(p.costText, formatCost(raw.estimatedCost));
      assert.equal(p.inputTokens, raw.inputTokens);
      assert.equal(p.outputTokens, raw.outputTokens);
    }
    assert.ok(
      JSON.parse(JSON.stringify(view)) !== undefined &&
        JSON.stringify(JSON.parse(JSON.stringify(view))) === JSON.stringify(view),
      'serialisable',
    );
  });

  it('a breakdown per part, a row per backend row, sorted by what the bars draw', async () => {
    const data = await fetchDashboardData(source);
    const usage = await tool(USAGE_TOOL);
    const analytics = await tool(ANALYTICS_TOOL);
    const view = toDashboardView(data, { connectionLabel: 'Demo', range: null, filters: {} });
    const ids = view.breakdowns.map((b) => b.id);
    assert.deepEqual(ids, [
      'model',
      'harness',
      'repository',
      'user',
      'tool',
      'agentType',
      'project',
    ]);
    const byId = Object.fromEntries(view.breakdowns.map((b) => [b.id, b]));

    for (const [id, raw, field] of [
      ['model', usage.byModel, 'model'],
      ['harness', usage.byHarness, 'harness'],
      ['repository', usage.byRepository, 'repositoryFullName'],
    ] as const) {
      const b = byId[id]!;
      assert.equal(b.measure, 'Estimated cost');
      assert.equal(b.rows.length, raw.length, id);
      assert.deepEqual(b.columns, ['Sessions', 'Input tokens', 'Output tokens', 'Estimated cost']);
      const expected = [...raw]
        .sort((a: LooseJson, z: LooseJson) => z.estimatedCost - a.estimatedCost)
        .map((r: LooseJson) => [
          r[field] || '(none)',
          r.estimatedCost,
          formatCost(r.estimatedCost),
          formatCount(r.sessionCount),
        ]);
      assert.deepEqual(
        b.rows.map((r) => [r.label, r.value, r.valueText, r.cells[0]]),
        expected,
        id,
      );
      for (const r of b.rows) assert.equal(r.cells.length, b.columns.length);
    }
    assert.equal(byId.user!.rows.length, usage.byUser.length);
    assert.ok(
      byId.user!.rows.every((r) => !/^[0-9a-f-]{36}$/.test(r.label)),
      'users by name',
    );

    const tools = byId.tool!;
    assert.equal(tools.measure, 'Uses');
    assert.deepEqual(
      tools.rows.map((r) => [r.label, r.value]),
      [...analytics.byTool]
        .sort((a: LooseJson, z: LooseJson) => z.useCount - a.useCount)
        .map((r: LooseJson) => [r.toolName, r.useCount]),
    );
    assert.match(tools.rows[0]!.valueText, /^[\d,]+ uses?$/);
    assert.equal(byId.agentType!.rows.length, analytics.byAgentType.length);
    assert.equal(byId.project!.rows.length, analytics.byProject.length);
    assert.deepEqual(byId.project!.columns, ['Sessions', 'Tool uses', 'Errors', 'Estimated cost']);
  });

  it('the range becomes a start date sent to every tool, and is described', async () => {
    const now = FIXED_NOW;
    assert.equal(rangeStartDate(7, now), '2026-07-26');
    assert.equal(rangeStartDate(30, now), '2026-07-03');
    // Status and user do not apply; an earlier start gives way to the range, a later one stays.
    assert.deepEqual(
      dashboardFilters({ harness: 'codex', status: 'waiting', startDate: '2026-01-01' }, 30, now),
      { harness: 'codex', startDate: '2026-07-03' },
    );
    assert.deepEqual(dashboardFilters({ startDate: '2026-07-30' }, 30, now), {
      startDate: '2026-07-30',
    });
    assert.deepEqual(dashboardFilters({ harness: 'codex' }, null, now), { harness: 'codex' });

    const filters = dashboardFilters({ harness: 'claude-code' }, 7, now);
    const mark = rig.mark;
    const data = await fetchDashboardData(source, { filters });
    const sent = rig.seen.slice(mark).filter((r) => r.tool === USAGE_TOOL);
    assert.equal((sent[0]?.args as Record<string, unknown>).startDate, '2026-07-26');
    const view = toDashboardView(data, { connectionLabel: 'Demo', range: 7, filters });
    assert.equal(view.rangeText, 'Last 7 days');
    assert.equal(view.filtersText, 'harness claude-code; since 2026-07-26');
    const all = await fetchDashboardData(source, { filters: { harness: 'claude-code' } });
    assert.ok(
      (view.totals.sessions ?? 0) <= (all.totals.sessions ?? 0),
      'a window never has more sessions than all time',
    );
    assert.ok(view.breakdowns.find((b) => b.id === 'harness')!.rows.length <= 1);
    assert.equal(
      filtersInWords({
        startDate: '2026-07-01',
        endDate: '2026-07-31',
        quality: 'substantive',
        viewerScope: 'team',
        teamId: '00000000-0000-4000-8000-000000000000',
      }),
      'from 2026-07-01 to 2026-07-31; substantive sessions; team 00000000-0000-4000-8000-000000000000',
    );
  });

  it('monitoring disabled (403) reads as such; other failures keep their message', async () => {
    rig.backend.setMonitoringEnabled(false);
    try {
      const error = await backendFailure(fetchDashboardData(source));
      const message = dashboardFailure(error);
      assert.match(message, /^Monitoring is not enabled for this account \(403\)\./);
      assert.match(message, /monitoring is not enabled/i);
    } finally {
      rig.backend.setMonitoringEnabled(true);
    }
    assert.match(
      dashboardFailure(new BackendError('forbidden', 'Error 403: nope', { status: 403 })),
      /^Monitoring is not enabled for this account, or this token may not read usage \(403\)/,
    );
    assert.match(dashboardFailure(new BackendError('unauthorized', 'bad token')), /^Sign in again/);
    const invalid = await backendFailure(
      fetchDashboardData(source, { filters: { viewerScope: 'team' } }),
    );
    assert.equal(
      dashboardFailure(invalid),
      'The connection\'s filters cannot be sent: Viewer scope "team" needs a team ID.',
    );
    assert.equal(dashboardFailure(new Error('boom')), 'boom');
  });

  it('gaps stay gaps; problems and unreadable rows are listed', () => {
    const view = toDashboardView(
      {
        totals: { sessions: 2 },
        byUser: [],
        byModel: [{ key: 'm', label: 'm', sessionCount: 2 }],
        byHarness: [],
        byRepository: [],
        invalidRows: 3,
        problems: ['This server has no analytics tool; tool and project breakdowns are not shown.'],
      },
      { connectionLabel: 'X', range: 90, filters: {} },
    );
    assert.equal(view.totals.cost, 'cost unknown');
    assert.equal(view.totals.subscriptionCost, undefined);
    assert.equal(view.totals.subscriptionShare, undefined);
    assert.equal(view.series, undefined);
    assert.deepEqual(
      view.breakdowns.map((b) => b.id),
      ['model'],
    );
    const model = view.breakdowns[0]!;
    assert.equal(model.measure, 'Sessions', 'bars by sessions when no row has a cost');
    assert.deepEqual(model.rows[0], {
      label: 'm',
      value: 2,
      valueText: '2 sessions',
      cells: ['2', '—', '—', '—'],
    });
    assert.deepEqual(view.problems, [
      'This server has no analytics tool; tool and project breakdowns are not shown.',
      '3 rows could not be read and are left out.',
    ]);
  });
});

describe('dashboard protocol', () => {
  it('accepts only its messages, with the right fields', () => {
    for (const ok of [
      { type: 'ready' },
      { type: 'refresh' },
      { type: 'setRange', days: 7 },
      { type: 'setRange', days: 30 },
      { type: 'setRange', days: 90 },
      { type: 'setRange', days: null },
    ])
      assert.equal(isDashboardMessage(ok), true, JSON.stringify(ok));
    for (const bad of [
      undefined,
      null,
      'ready',
      {},
      { type: 'setRange' },
      { type: 'setRange', days: 14 },
      { type: 'setRange', days: '7' },
      { type: 'data' },
      { type: 'getEntries', requestId: 1, start: 0, count: 1 },
      { type: '__proto__' },
    ])
      assert.equal(isDashboardMessage(bad), false, JSON.stringify(bad));
  });

  it('a restored tab state names a connection and a range, nothing else passes', () => {
    for (const ok of [
      { connectionId: 'c1', range: 7 },
      { connectionId: 'c1', range: null },
      { connectionId: 'c1', range: 90, extra: true },
    ])
      assert.equal(isDashboardPanelState(ok), true, JSON.stringify(ok));
    for (const bad of [
      undefined,
      null,
      'c1',
      {},
      { connectionId: '', range: 7 },
      { connectionId: 3, range: 7 },
      { connectionId: 'c1' },
      { connectionId: 'c1', range: 14 },
      { connectionId: 'c1', range: '7' },
      { connectionId: 'c1', sessionId: 's1' },
    ])
      assert.equal(isDashboardPanelState(bad), false, JSON.stringify(bad));
  });
});
