/**
 * The usage dashboard of a Closedloop-style connection: get-agent-session-usage
 * (totals, subscription vs API cost, by user/model/harness/repository),
 * get-agent-session-analytics (by tool, agent type, repository, project) and a
 * cost-over-time series, loaded side by side. Usage is the core: if it fails the
 * dashboard fails; the other parts degrade to a problem line.
 */
import { BackendError, isBackendError } from '../../domain/errors.ts';
import { filterArguments, validateFilters, type SessionFilters } from '../../domain/filters.ts';
import type { JsonToolCaller } from '../mcp/jsonToolCaller.ts';
import { DEFAULT_SERIES_SESSIONS, fillGaps, sessionCostSeries } from './costSeries.ts';
import {
  activityRows,
  agentTypeRows,
  analyticsEnvelope,
  dayRows,
  toolRows,
  usageEnvelope,
  usageRows,
} from './dashboardSchemas.ts';
import type { CostSeries, DashboardAnalytics, DashboardData } from './dashboardTypes.ts';

export type * from './dashboardTypes.ts';

export const USAGE_TOOL = 'get-agent-session-usage';
export const ANALYTICS_TOOL = 'get-agent-session-analytics';
export const LIST_TOOL = 'list-agent-sessions';

export interface DashboardOptions {
  /**
   * Only the shared filters apply (dates, harness, quality, viewer scope, team): the
   * usage tool takes no status or user, and the series must count the same sessions.
   */
  filters?: SessionFilters;
  signal?: AbortSignal;
  /** Session rows read for the cost series at most (default 1000). */
  maxSessions?: number;
}

const some = (v: number | null | undefined) => v ?? undefined;

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Aborts and sign-in problems are the user's to see, not a degraded part. */
function fatal(error: unknown): boolean {
  return isBackendError(error) && (error.kind === 'canceled' || error.kind === 'unauthorized');
}

export async function fetchDashboardData(
  caller: JsonToolCaller,
  options: DashboardOptions = {},
): Promise<DashboardData> {
  const shared: SessionFilters = { ...options.filters };
  delete shared.status;
  delete shared.userId;
  const problem = validateFilters(shared);
  if (problem) throw new BackendError('invalidFilter', problem);
  const args = filterArguments(shared);
  const signal = options.signal;
  const has = async (tool: string) => (caller.hasTool ? caller.hasTool(tool, signal) : true);

  const [usagePayload, analyticsPart, listed] = await Promise.all([
    caller.callJson(USAGE_TOOL, args, signal),
    settle(async () =>
      (await has(ANALYTICS_TOOL)) ? caller.callJson(ANALYTICS_TOOL, args, signal) : undefined,
    ),
    has(LIST_TOOL).catch(() => false),
  ]);
  const usage = usageEnvelope.safeParse(usagePayload);
  if (!usage.success)
    throw new BackendError('invalidResponse', `${USAGE_TOOL} answered in an unexpected shape.`);
  const u = usage.data;
  const problems: string[] = [];
  let invalidRows = 0;
  const count = <T>(read: { rows: T[]; invalid: number }): T[] => {
    invalidRows += read.invalid;
    return read.rows;
  };

  const data: DashboardData = {
    viewerScope: u.viewerScope ?? undefined,
    totals: {
      sessions: some(u.totalSessions),
      inputTokens: some(u.totalInputTokens),
      outputTokens: some(u.totalOutputTokens),
      cacheReadTokens: some(u.totalCacheReadTokens),
      cacheWriteTokens: some(u.totalCacheWriteTokens),
      estimatedCost: some(u.totalEstimatedCost),
      subscriptionCost: some(u.subscriptionEstimatedCost),
      apiCost: some(u.apiEstimatedCost),
    },
    byUser: count(usageRows(u.byUser, 'userId')),
    byModel: count(usageRows(u.byModel, 'model')),
    byHarness: count(usageRows(u.byHarness, 'harness')),
    byRepository: count(usageRows(u.byRepository, 'repositoryFullName')),
    invalidRows: 0,
    problems,
  };

  if (analyticsPart.ok && analyticsPart.value !== undefined) {
    const a = analyticsEnvelope.safeParse(analyticsPart.value);
    if (a.success) {
      const analytics: DashboardAnalytics = {
        totalSessions: some(a.data.totalSessions),
        byTool: count(toolRows(a.data.byTool)),
        byAgentType: count(agentTypeRows(a.data.byAgentType)),
        byRepository: count(activityRows(a.data.byRepository, 'repositoryFullName')),
        byProject: count(activityRows(a.data.byProject, 'project')),
      };
      data.analytics = analytics;
    } else {
      problems.push(
        `${ANALYTICS_TOOL} answered in an unexpected shape; tool and project breakdowns are not shown.`,
      );
    }
  } else if (analyticsPart.ok) {
    problems.push('This server has no analytics tool; tool and project breakdowns are not shown.');
  } else {
    if (fatal(analyticsPart.error)) throw analyticsPart.error;
    problems.push(`Analytics could not be loaded: ${reason(analyticsPart.error)}`);
  }

  const reported = u.byDay ?? u.daily;
  if (reported && reported.length > 0) {
    const points = count(dayRows(reported));
    data.costOverTime = {
      source: 'tool',
      basis: 'reported',
      points: fillGaps(points),
      sessionsRead: 0,
      complete: true,
    };
  } else if (listed) {
    try {
      const built = await sessionCostSeries(caller, args, {
        maxSessions: options.maxSessions ?? DEFAULT_SERIES_SESSIONS,
        signal,
      });
      invalidRows += built.invalidRows;
      data.costOverTime = built.series;
      if (!built.series.complete) problems.push(seriesCapped(built.series));
    } catch (error) {
      if (fatal(error)) throw error;
      problems.push(`Cost over time could not be built: ${reason(error)}`);
    }
  } else {
    problems.push('This server cannot list sessions, so there is no cost-over-time chart.');
  }
  data.invalidRows = invalidRows;
  return data;
}

function seriesCapped(series: CostSeries): string {
  return `Cost over time covers the ${series.sessionsRead} most recently active sessions only.`;
}

async function settle<T>(
  run: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, error };
  }
}
