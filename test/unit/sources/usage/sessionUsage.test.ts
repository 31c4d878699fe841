/**
 * Session usage (pure) and the connection dashboard against the reference backend:
 * shapes, and numbers that agree with what the tools return.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { BackendError } from '../../../../src/domain/errors.ts';
import type { SessionSummary } from '../../../../src/domain/session.ts';
import type { TranscriptEntry } from '../../../../src/domain/transcript/model.ts';
import { TranscriptDocument } from '../../../../src/domain/transcript/transcriptDocument.ts';
import type { JsonToolCaller } from '../../../../src/sources/mcp/jsonToolCaller.ts';
import type { McpSource } from '../../../../src/sources/mcp/mcpSource.ts';
import { RemoteTranscripts } from '../../../../src/sources/transcripts/remoteTranscripts.ts';
import {
  ANALYTICS_TOOL,
  fetchDashboardData,
  LIST_TOOL,
  USAGE_TOOL,
} from '../../../../src/sources/usage/connectionUsage.ts';
import { buildSessionUsage } from '../../../../src/sources/usage/sessionUsage.ts';
import type { LooseJson } from '../../../support/backend.ts';
import { backendFailure, removeDir, Rig, tempStorage } from '../../../support/mcpRig.ts';

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

const sum = (values: (number | undefined)[]) => values.reduce<number>((n, v) => n + (v ?? 0), 0);
const close = (a: number, b: number, what: string) =>
  assert.ok(Math.abs(a - b) < 0.01, `${what}: ${a} vs ${b}`);

function summary(extra: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id: 's1',
    connectionId: 'c',
    label: 'A run',
    status: { status: 'finished', raw: 'inactive' } as SessionSummary['status'],
    ...extra,
  };
}

function turn(index: number, usage: TranscriptEntry['usage']): TranscriptEntry {
  return {
    index,
    kind: 'assistant',
    text: 'x',
    source: { first: index + 1, last: index + 1 },
    truncated: false,
    usage,
  };
}

describe('session usage', () => {
  it('totals from the session row, turns from the transcript', () => {
    const view = buildSessionUsage(
      summary({
        inputTokens: 1000,
        outputTokens: 200,
        cacheReadTokens: 5000,
        estimatedCost: 1.234,
      }),
      [
        turn(0, { input: 3, cacheRead: 900, cacheWrite: 100, output: 50 }),
        turn(1, undefined),
        turn(2, { input: 10, output: 20, reasoning: 5 }),
      ],
      { firstTurn: 4 },
    );
    assert.deepEqual(view, {
      input: 1000,
      output: 200,
      cacheRead: 5000,
      cacheWrite: 100,
      reasoning: 5,
      cost: '$1.23',
      turns: [
        { label: '4', input: 1003, output: 50 },
        { label: '5', input: 10, output: 20 },
      ],
    });
  });

  it('without backend numbers the transcript sums stand in; cost stays unknown', () => {
    const view = buildSessionUsage(summary(), [turn(0, { input: 5, cacheRead: 7, output: 9 })]);
    assert.equal(view.input, 5);
    assert.equal(view.cacheRead, 7);
    assert.equal(view.output, 9);
    assert.equal(view.cost, 'cost unknown');
    assert.deepEqual(buildSessionUsage(summary(), []), {
      input: undefined,
      output: undefined,
      cacheRead: undefined,
      cacheWrite: undefined,
      reasoning: undefined,
      cost: 'cost unknown',
      turns: [],
    });
  });

  it('reads per-turn usage from a downloaded transcript window', async () => {
    const storage = await tempStorage();
    try {
      const remote = new RemoteTranscripts({ source, storageDir: storage });
      const id = rig.backend.fixtures.closedloop.manyComments;
      const doc = await TranscriptDocument.open(await remote.fetchFile(id, 'main'));
      await doc.whenIndexed();
      const window = await doc.getWindow(0, 1000);
      await doc.close();
      const view = buildSessionUsage(
        summary({ estimatedCost: 0.5, outputTokens: 42 }),
        window.entries,
      );
      const withUsage = window.entries.filter((e) => e.usage);
      assert.ok(withUsage.length > 0);
      assert.equal(view.turns.length, withUsage.length);
      assert.equal(view.output, 42, 'the session row wins');
      assert.ok(view.turns.every((t) => t.input > 0 && t.output >= 0));
      assert.deepEqual(
        view.turns.map((t) => t.label),
        withUsage.map((_, i) => String(i + 1)),
      );
    } finally {
      await removeDir(storage);
    }
  });
});

describe('connection dashboard', () => {
  async function tool(name: string, args: Record<string, unknown> = {}): Promise<LooseJson> {
    return source.callJson(name, args);
  }

  it('totals, breakdowns and analytics are what the tools return', async () => {
    const data = await fetchDashboardData(source);
    const usage = await tool(USAGE_TOOL);
    const analytics = await tool(ANALYTICS_TOOL);
    assert.deepEqual(data.totals, {
      sessions: usage.totalSessions,
      inputTokens: usage.totalInputTokens,
      outputTokens: usage.totalOutputTokens,
      cacheReadTokens: usage.totalCacheReadTokens,
      cacheWriteTokens: usage.totalCacheWriteTokens,
      estimatedCost: usage.totalEstimatedCost,
      subscriptionCost: usage.subscriptionEstimatedCost,
      apiCost: usage.apiEstimatedCost,
    });
    close(
      data.totals.subscriptionCost! + data.totals.apiCost!,
      data.totals.estimatedCost!,
      'split',
    );
    assert.ok(data.totals.subscriptionCost! > 0 && data.totals.apiCost! > 0);
    assert.equal(data.viewerScope, usage.viewerScope);
    assert.equal(data.invalidRows, 0);
    assert.deepEqual(data.problems, []);

    for (const [rows, raw, field] of [
      [data.byModel, usage.byModel, 'model'],
      [data.byHarness, usage.byHarness, 'harness'],
      [data.byRepository, usage.byRepository, 'repositoryFullName'],
      [data.byUser, usage.byUser, 'userId'],
    ] as const) {
      assert.deepEqual(
        rows.map((r) => [r.key, r.sessionCount, r.estimatedCost]),
        raw.map((r: LooseJson) => [r[field], r.sessionCount, r.estimatedCost]),
        field,
      );
      assert.equal(sum(rows.map((r) => r.sessionCount)), data.totals.sessions, field);
      close(sum(rows.map((r) => r.estimatedCost)), data.totals.estimatedCost!, field);
    }
    assert.ok(
      data.byUser.every((r) => r.label && r.label !== r.key),
      'users by name',
    );

    const a = data.analytics!;
    assert.equal(a.totalSessions, analytics.totalSessions);
    assert.deepEqual(
      a.byTool.map((r) => [r.tool, r.useCount, r.sessionCount]),
      analytics.byTool.map((r: LooseJson) => [r.toolName, r.useCount, r.sessionCount]),
    );
    assert.deepEqual(
      a.byAgentType.map((r) => [r.agentType, r.agentCount]),
      analytics.byAgentType.map((r: LooseJson) => [r.agentType, r.agentCount]),
    );
    assert.deepEqual(
      a.byProject.map((r) => [r.key, r.sessionCount, r.toolUseCount, r.errorCount]),
      analytics.byProject.map((r: LooseJson) => [
        r.project,
        r.sessionCount,
        r.toolUseCount,
        r.errorCount,
      ]),
    );
    assert.equal(sum(a.byRepository.map((r) => r.sessionCount)), a.totalSessions);
  });

  it('cost over time, summed by day from the session list, adds up to the totals', async () => {
    const data = await fetchDashboardData(source);
    const series = data.costOverTime!;
    assert.equal(series.source, 'sessions');
    assert.equal(series.basis, 'lastActivityAt');
    assert.equal(series.complete, true);
    assert.equal(series.sessionsRead, data.totals.sessions);
    assert.equal(sum(series.points.map((p) => p.sessionCount)), data.totals.sessions);
    close(sum(series.points.map((p) => p.estimatedCost)), data.totals.estimatedCost!, 'cost');
    assert.equal(sum(series.points.map((p) => p.outputTokens)), data.totals.outputTokens);
    const days = series.points.map((p) => p.day);
    assert.deepEqual([...days].sort(), days, 'sorted');
    for (let i = 1; i < days.length; i++)
      assert.equal(Date.parse(days[i]!) - Date.parse(days[i - 1]!), 86_400_000, 'no gaps');
  });

  it('shared filters go to every tool; status and user are left out', async () => {
    const mark = rig.mark;
    const data = await fetchDashboardData(source, {
      filters: {
        harness: 'codex',
        status: 'waiting',
        userId: '00000000-0000-4000-8000-000000000000',
      },
    });
    const usage = await tool(USAGE_TOOL, { harness: 'codex' });
    assert.equal(data.totals.sessions, usage.totalSessions);
    assert.deepEqual(
      data.byHarness.map((r) => r.key),
      ['codex'],
    );
    assert.equal(sum(data.costOverTime!.points.map((p) => p.sessionCount)), usage.totalSessions);
    const sent = rig.seen.slice(mark).filter((r) => r.tool);
    assert.ok(sent.length >= 3);
    for (const r of sent) {
      const args = r.args as Record<string, unknown>;
      if (r.tool === USAGE_TOOL || r.tool === ANALYTICS_TOOL || r.tool === LIST_TOOL) {
        assert.equal(args.harness, 'codex', r.tool);
        assert.equal(args.status, undefined, r.tool);
        assert.equal(args.userId, undefined, r.tool);
      }
    }
  });

  it('a capped series says so', async () => {
    const data = await fetchDashboardData(source, { maxSessions: 50 });
    assert.equal(data.costOverTime!.complete, false);
    assert.equal(data.costOverTime!.sessionsRead, 50);
    assert.match(data.problems.join('\n'), /covers the 50 most recently active sessions only/);
  });

  it('contradicting filters are refused before any request', async () => {
    const mark = rig.mark;
    const error = await backendFailure(
      fetchDashboardData(source, { filters: { viewerScope: 'team' } }),
    );
    assert.equal(error.kind, 'invalidFilter');
    assert.equal(rig.count(mark), 0);
  });

  it('analytics failing degrades to a problem line; usage failing fails the dashboard', async () => {
    rig.faults.add({ match: { tool: ANALYTICS_TOOL }, fault: { kind: 'status', status: 503 } });
    const data = await fetchDashboardData(source);
    assert.equal(data.analytics, undefined);
    assert.match(data.problems.join('\n'), /^Analytics could not be loaded/);
    assert.ok(data.totals.sessions! > 0);
    rig.faults.clear();

    rig.backend.setMonitoringEnabled(false);
    try {
      const error = await backendFailure(fetchDashboardData(source));
      assert.equal(error.kind, 'forbidden');
    } finally {
      rig.backend.setMonitoringEnabled(true);
    }
  });

  it('numbers sent as strings are still read (tolerant schemas)', async () => {
    rig.faults.add({ match: { tool: USAGE_TOOL }, fault: { kind: 'schemaViolation' } });
    const data = await fetchDashboardData(source);
    const usage = await tool(USAGE_TOOL);
    rig.faults.clear();
    const clean = await tool(USAGE_TOOL);
    assert.equal(typeof usage.totalSessions, 'string', 'the fault did apply');
    assert.equal(data.totals.sessions, clean.totalSessions);
    assert.equal(data.byModel.length, clean.byModel.length);
  });
});

describe('connection dashboard with a stub server', () => {
  function stub(answers: Record<string, unknown>, tools?: string[]): JsonToolCaller {
    return {
      callJson: async (name) => {
        const answer = answers[name];
        if (answer instanceof Error) throw answer;
        if (answer === undefined) throw new BackendError('toolError', `no tool ${name}`);
        return answer;
      },
      hasTool: tools ? async (name) => tools.includes(name) : undefined,
    };
  }

  it('a daily series the usage tool sends is used as is; missing analytics is said', async () => {
    const data = await fetchDashboardData(
      stub(
        {
          [USAGE_TOOL]: {
            totalSessions: 3,
            totalEstimatedCost: 2,
            byModel: [{ model: 'm', sessionCount: 3 }, 'not a row', { model: { bad: 1 } }],
            byDay: [
              { date: '2026-07-01', sessionCount: 2, estimatedCost: 1.5 },
              { date: '2026-07-03', sessionCount: 1 },
              { nodate: true },
            ],
          },
        },
        [USAGE_TOOL],
      ),
    );
    assert.equal(data.costOverTime?.source, 'tool');
    assert.deepEqual(
      data.costOverTime!.points.map((p) => [
        p.day,
        p.sessionCount,
        p.estimatedCost,
        p.unknownCostSessions,
      ]),
      [
        ['2026-07-01', 2, 1.5, 0],
        ['2026-07-02', 0, 0, 0],
        ['2026-07-03', 1, 0, 1],
      ],
    );
    assert.equal(data.invalidRows, 3);
    assert.deepEqual(data.byModel, [
      {
        key: 'm',
        label: 'm',
        sessionCount: 3,
        inputTokens: undefined,
        outputTokens: undefined,
        cacheReadTokens: undefined,
        cacheWriteTokens: undefined,
        estimatedCost: undefined,
      },
    ]);
    assert.equal(data.totals.apiCost, undefined, 'a missing number is a gap, not 0');
    assert.match(data.problems.join('\n'), /no analytics tool/);
    assert.equal(data.analytics, undefined);
  });

  it('a usage answer without its shape is an invalid response', async () => {
    const error = await backendFailure(fetchDashboardData(stub({ [USAGE_TOOL]: 'nope' })));
    assert.equal(error.kind, 'invalidResponse');
  });
});
