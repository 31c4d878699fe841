import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { ClosedloopSession } from '../data/closedloopSessions.ts';
import { displayName } from '../data/people.ts';
import { applySharedFilters, sharedFilterShape } from './closedloopQuery.ts';
import type { ToolContext } from './context.ts';
import { okResult, READ_ONLY } from './results.ts';

interface Totals {
  sessionCount: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  estimatedCost: number;
}

function emptyTotals(): Totals {
  return {
    sessionCount: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    estimatedCost: 0,
  };
}

function add(t: Totals, s: ClosedloopSession): void {
  t.sessionCount++;
  t.inputTokens += s.inputTokens;
  t.outputTokens += s.outputTokens;
  t.cacheReadTokens += s.cacheReadTokens;
  t.cacheWriteTokens += s.cacheWriteTokens;
  t.estimatedCost += s.estimatedCost;
}

/** Sums of floats drift; money is reported to 4 decimals like the per-row values. */
export function money(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

function breakdown<K extends string>(
  sessions: readonly ClosedloopSession[],
  field: K,
  keyOf: (s: ClosedloopSession) => string,
  extra: (s: ClosedloopSession) => Record<string, unknown> = () => ({}),
): Record<string, unknown>[] {
  const groups = new Map<string, { totals: Totals; extra: Record<string, unknown> }>();
  for (const s of sessions) {
    const key = keyOf(s);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { totals: emptyTotals(), extra: extra(s) }));
    add(group.totals, s);
  }
  return [...groups.entries()]
    .sort(
      (a, b) => b[1].totals.estimatedCost - a[1].totals.estimatedCost || a[0].localeCompare(b[0]),
    )
    .map(([key, { totals, extra: more }]) => ({
      [field]: key,
      ...more,
      ...totals,
      estimatedCost: money(totals.estimatedCost),
    }));
}

export function registerUsage(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'get-agent-session-usage',
    {
      title: 'Get Agent-Session Usage',
      description:
        'Aggregated usage: session count, token totals, estimated cost split into subscription-covered and ' +
        'API-key compute, with breakdowns by user, model, harness and repository. startDate/endDate window on ' +
        'lastActivityAt, the same basis as list-agent-sessions.',
      inputSchema: z.object(sharedFilterShape),
      annotations: READ_ONLY,
    },
    (args) => {
      const filtered = applySharedFilters(ctx, args, 'lastActivityAt');
      if (!filtered.ok) return filtered.error;
      const sessions = filtered.sessions;
      const total = emptyTotals();
      let subscription = 0;
      for (const s of sessions) {
        add(total, s);
        if (s.billing === 'subscription') subscription += s.estimatedCost;
      }
      return okResult({
        viewerScope: filtered.viewerScope,
        totalSessions: total.sessionCount,
        totalInputTokens: total.inputTokens,
        totalOutputTokens: total.outputTokens,
        totalCacheReadTokens: total.cacheReadTokens,
        totalCacheWriteTokens: total.cacheWriteTokens,
        totalEstimatedCost: money(total.estimatedCost),
        subscriptionEstimatedCost: money(subscription),
        apiEstimatedCost: money(total.estimatedCost - subscription),
        byUser: breakdown(
          sessions,
          'userId',
          (s) => s.user.id,
          (s) => ({
            email: s.user.email,
            name: displayName(s.user),
          }),
        ),
        byModel: breakdown(sessions, 'model', (s) => s.model),
        byHarness: breakdown(sessions, 'harness', (s) => s.harness),
        byRepository: breakdown(sessions, 'repositoryFullName', (s) => s.repositoryFullName),
      });
    },
  );
}
