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
  const args = sharedArguments(options.filters);
  const signal = options.signal;
  const has = async (tool: string) => (caller.hasTool ? caller.hasTool(tool, signal) : true);

  const [usagePayload, analyticsPart, listed] = await Promise.all([
    caller.callJson(USAGE_TOOL, args, signal),
    settle(async () =>
      (await has(ANALYTICS_TOOL)) ? caller.callJson(ANALYTICS_TOOL, args, signal) : undefined,
    ),
    has(LIST_TOOL).catch(() => false),
  ]);
  const rows = new RowCount();
  const { data, reported } = usageData(usagePayload, rows);
  addAnalytics(data, analyticsPart, rows);
  if (reported && reported.length > 0) {
    data.costOverTime = {
      source: 'tool',
      basis: 'reported',
      points: fillGaps(rows.take(dayRows(reported))),
      sessionsRead: 0,
      complete: true,
    };
  } else if (listed) {
    await addSessionCostSeries(data, caller, args, options, rows);
  } else {
    data.problems.push('This server cannot list sessions, so there is no cost-over-time chart.');
  }
  data.invalidRows = rows.invalid;
  return data;
}

/** The tool arguments of the filters the usage tool and the series share. */
function sharedArguments(filters: SessionFilters | undefined): Record<string, string> {
  const shared: SessionFilters = { ...filters };
  delete shared.status;
  delete shared.userId;
  const problem = validateFilters(shared);
  if (problem) throw new BackendError('invalidFilter', problem);
  return filterArguments(shared);
}

/** Keeps the valid rows of each table and counts the invalid ones. */
class RowCount {
  invalid = 0;
  take<T>(read: { rows: T[]; invalid: number }): T[] {
    this.invalid += read.invalid;
    return read.rows;
  }
}

/** The dashboard from the usage tool's answer (the core: a bad shape fails the dashboard). */
function usageData(
  payload: unknown,
  rows: RowCount,
): { data: DashboardData; reported: Parameters<typeof dayRows>[0] } {
  const usage = usageEnvelope.safeParse(payload);
  if (!usage.success)
    throw new BackendError('invalidResponse', `${USAGE_TOOL} answered in an unexpected shape.`);
  const u = usage.data;
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
    byUser: rows.take(usageRows(u.byUser, 'userId')),
    byModel: rows.take(usageRows(u.byModel, 'model')),
    byHarness: rows.take(usageRows(u.byHarness, 'harness')),
    byRepository: rows.take(usageRows(u.byRepository, 'repositoryFullName')),
    invalidRows: 0,
    problems: [],
  };
  return { data, reported: u.byDay ?? u.daily };
}

function addAnalytics(data: DashboardData, part: Settled<unknown>, rows: RowCount): void {
  if (part.ok && part.value !== undefined) {
    const a = analyticsEnvelope.safeParse(part.value);
    if (a.success) {
      const analytics: DashboardAnalytics = {
        totalSessions: some(a.data.totalSessions),
        byTool: rows.take(toolRows(a.data.byTool)),
        byAgentType: rows.take(agentTypeRows(a.data.byAgentType)),
        byRepository: rows.take(activityRows(a.data.byRepository, 'repositoryFullName')),
        byProject: rows.take(activityRows(a.data.byProject, 'project')),
      };
      data.analytics = analytics;
    } else {
      data.problems.push(
        `${ANALYTICS_TOOL} answered in an unexpected shape; tool and project breakdowns are not shown.`,
      );
    }
  } else if (part.ok) {
    data.problems.push(
      'This server has no analytics tool; tool and project breakdowns are not shown.',
    );
  } else {
    if (fatal(part.error)) throw part.error;
    data.problems.push(`Analytics could not be loaded: ${reason(part.error)}`);
  }
}

/** The cost series built from the session rows, when the tool reports no daily series. */
async function addSessionCostSeries(
  data: DashboardData,
  caller: JsonToolCaller,
  args: Record<string, string>,
  options: DashboardOptions,
  rows: RowCount,
): Promise<void> {
  try {
    const built = await sessionCostSeries(caller, args, {
      maxSessions: options.maxSessions ?? DEFAULT_SERIES_SESSIONS,
      signal: options.signal,
    });
    rows.invalid += built.invalidRows;
    data.costOverTime = built.series;
    if (!built.series.complete) data.problems.push(seriesCapped(built.series));
  } catch (error) {
    if (fatal(error)) throw error;
    data.problems.push(`Cost over time could not be built: ${reason(error)}`);
  }
}
function seriesCapped(series: CostSeries): string {
  return `Cost over time covers the ${series.sessionsRead} most recently active sessions only.`;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

async function settle<T>(run: () => Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, error };
  }
}
