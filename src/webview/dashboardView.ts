/**
 * DashboardData (what the usage and analytics tools returned) → DashboardView (what the
 * dashboard webview draws). Pure and vscode-free so it is tested against the reference
 * backend. Costs and counts are formatted here, once, so the charts' accessible labels
 * and the tables agree; a number the server left out is a gap ('—'), never 0.
 */
import { findBackendError } from '../domain/errors.ts';
import type { SessionFilters } from '../domain/filters.ts';
import { formatCost } from '../domain/format.ts';
import type {
  BreakdownId,
  BreakdownRowView,
  BreakdownView,
  DashboardRange,
  DashboardView,
} from '../shared/dashboardProtocol.ts';
import { rangeText } from '../shared/dashboardProtocol.ts';
import type {
  ActivityRow,
  AgentTypeRow,
  DashboardData,
  ToolUseRow,
  UsageBreakdownRow,
} from '../sources/usage/dashboardTypes.ts';

const GAP = '—';

/** A count for display: '—' when unknown. */
export function formatCount(n: number | undefined): string {
  return n === undefined || !Number.isFinite(n) ? GAP : Math.round(n).toLocaleString('en-US');
}

const drawn = (n: number | undefined) => (n !== undefined && Number.isFinite(n) && n > 0 ? n : 0);
const costCell = (usd: number | undefined) => (usd === undefined ? GAP : formatCost(usd));

/** The first day of the window: `days` UTC days back from `now`, inclusive of today. */
export function rangeStartDate(days: Exclude<DashboardRange, null>, now = new Date()): string {
  const start = new Date(now.getTime() - (days - 1) * 86_400_000);
  return start.toISOString().slice(0, 10);
}

/** The connection's filters with the range's start date applied (the later start wins). */
export function dashboardFilters(
  filters: SessionFilters,
  range: DashboardRange,
  now = new Date(),
): SessionFilters {
  const shared: SessionFilters = { ...filters };
  delete shared.status;
  delete shared.userId;
  if (range === null) return shared;
  const start = rangeStartDate(range, now);
  if (!shared.startDate || Date.parse(shared.startDate) < Date.parse(start))
    shared.startDate = start;
  return shared;
}

/** The filters the dashboard follows, in words ('' when none). */
export function filtersInWords(filters: SessionFilters): string {
  const parts: string[] = [];
  if (filters.harness) parts.push(`harness ${filters.harness}`);
  if (filters.startDate && filters.endDate)
    parts.push(`from ${filters.startDate} to ${filters.endDate}`);
  else if (filters.startDate) parts.push(`since ${filters.startDate}`);
  else if (filters.endDate) parts.push(`until ${filters.endDate}`);
  if (filters.quality) parts.push(`${filters.quality} sessions`);
  if (filters.viewerScope === 'team' && filters.teamId) parts.push(`team ${filters.teamId}`);
  else if (filters.viewerScope) parts.push(`${filters.viewerScope} scope`);
  return parts.join('; ');
}

interface ViewOptions {
  connectionLabel: string;
  range: DashboardRange;
  /** The filters sent (after dashboardFilters). */
  filters: SessionFilters;
}

export function toDashboardView(data: DashboardData, options: ViewOptions): DashboardView {
  const t = data.totals;
  const split =
    t.subscriptionCost !== undefined && t.apiCost !== undefined
      ? drawn(t.subscriptionCost) + drawn(t.apiCost)
      : undefined;
  const view: DashboardView = {
    connectionLabel: options.connectionLabel,
    range: options.range,
    rangeText: rangeText(options.range),
    filtersText: filtersInWords(options.filters),
    totals: {
      sessions: t.sessions,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      cacheReadTokens: t.cacheReadTokens,
      cacheWriteTokens: t.cacheWriteTokens,
      cost: formatCost(t.estimatedCost),
      subscriptionCost:
        t.subscriptionCost === undefined ? undefined : formatCost(t.subscriptionCost),
      apiCost: t.apiCost === undefined ? undefined : formatCost(t.apiCost),
      subscriptionShare:
        split === undefined || split === 0 ? undefined : drawn(t.subscriptionCost) / split,
    },
    breakdowns: [],
    problems: [...data.problems],
  };
  if (data.viewerScope) view.viewerScope = data.viewerScope;
  if (data.invalidRows > 0)
    view.problems.push(
      `${data.invalidRows} row${data.invalidRows === 1 ? '' : 's'} could not be read and ${data.invalidRows === 1 ? 'is' : 'are'} left out.`,
    );

  const series = data.costOverTime;
  if (series && series.points.length > 0) {
    const known = series.points.reduce((sum, p) => sum + drawn(p.estimatedCost), 0);
    const unknown = series.points.reduce((sum, p) => sum + p.unknownCostSessions, 0);
    const basis =
      series.source === 'tool'
        ? 'By day, as the usage tool reports it.'
        : `By day of last activity, summed from ${series.sessionsRead.toLocaleString('en-US')} session${series.sessionsRead === 1 ? '' : 's'}${series.complete ? '' : ' (the most recent only)'}.`;
    view.series = {
      note:
        unknown > 0
          ? `${basis} ${unknown.toLocaleString('en-US')} session${unknown === 1 ? '' : 's'} without a cost ${unknown === 1 ? 'is' : 'are'} not counted as $0.`
          : basis,
      totalCost: formatCost(known),
      points: series.points.map((p) => ({
        day: p.day,
        cost: drawn(p.estimatedCost),
        costText: formatCost(p.estimatedCost),
        sessions: drawn(p.sessionCount),
        inputTokens: drawn(p.inputTokens),
        outputTokens: drawn(p.outputTokens),
        unknownCostSessions: drawn(p.unknownCostSessions),
      })),
    };
  }

  const add = (breakdown: BreakdownView) => {
    if (breakdown.rows.length > 0) view.breakdowns.push(breakdown);
  };
  add(usageBreakdown('model', 'By model', 'Model', data.byModel));
  add(usageBreakdown('harness', 'By harness', 'Harness', data.byHarness));
  add(usageBreakdown('repository', 'By repository', 'Repository', data.byRepository));
  add(usageBreakdown('user', 'By user', 'User', data.byUser));
  if (data.analytics) {
    add(toolBreakdown(data.analytics.byTool));
    add(agentTypeBreakdown(data.analytics.byAgentType));
    add(projectBreakdown(data.analytics.byProject));
  }
  return view;
}

const byValue = (a: BreakdownRowView, b: BreakdownRowView) => b.value - a.value;

/** Usage rows: bars by cost when any row has one, else by sessions. */
function usageBreakdown(
  id: BreakdownId,
  title: string,
  labelColumn: string,
  rows: UsageBreakdownRow[],
): BreakdownView {
  const byCost = rows.some((r) => r.estimatedCost !== undefined);
  return {
    id,
    title,
    labelColumn,
    measure: byCost ? 'Estimated cost' : 'Sessions',
    columns: ['Sessions', 'Input tokens', 'Output tokens', 'Estimated cost'],
    rows: rows
      .map((r) => ({
        label: r.label || '(none)',
        value: drawn(byCost ? r.estimatedCost : r.sessionCount),
        valueText: byCost ? costCell(r.estimatedCost) : sessions(r.sessionCount),
        cells: [
          formatCount(r.sessionCount),
          formatCount(r.inputTokens),
          formatCount(r.outputTokens),
          costCell(r.estimatedCost),
        ],
      }))
      .sort(byValue),
  };
}

function sessions(n: number | undefined): string {
  return counted(n, 'session');
}

/** "3 uses", "1 use", "uses unknown": a count and its noun, for a bar's text. */
function counted(n: number | undefined, noun: string): string {
  return n === undefined ? `${noun}s unknown` : `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`;
}

function toolBreakdown(rows: ToolUseRow[]): BreakdownView {
  return {
    id: 'tool',
    title: 'By tool',
    labelColumn: 'Tool',
    measure: 'Uses',
    columns: ['Uses', 'Sessions'],
    rows: rows
      .map((r) => ({
        label: r.tool || '(none)',
        value: drawn(r.useCount),
        valueText: counted(r.useCount, 'use'),
        cells: [formatCount(r.useCount), formatCount(r.sessionCount)],
      }))
      .sort(byValue),
  };
}

function agentTypeBreakdown(rows: AgentTypeRow[]): BreakdownView {
  return {
    id: 'agentType',
    title: 'By agent type',
    labelColumn: 'Agent type',
    measure: 'Agents',
    columns: ['Agents', 'Sessions'],
    rows: rows
      .map((r) => ({
        label: r.agentType || '(none)',
        value: drawn(r.agentCount),
        valueText: counted(r.agentCount, 'agent'),
        cells: [formatCount(r.agentCount), formatCount(r.sessionCount)],
      }))
      .sort(byValue),
  };
}

function projectBreakdown(rows: ActivityRow[]): BreakdownView {
  return {
    id: 'project',
    title: 'By project',
    labelColumn: 'Project',
    measure: 'Sessions',
    columns: ['Sessions', 'Tool uses', 'Errors', 'Estimated cost'],
    rows: rows
      .map((r) => ({
        label: r.label || '(none)',
        value: drawn(r.sessionCount),
        valueText: sessions(r.sessionCount),
        cells: [
          formatCount(r.sessionCount),
          formatCount(r.toolUseCount),
          formatCount(r.errorCount),
          costCell(r.estimatedCost),
        ],
      }))
      .sort(byValue),
  };
}

/** What the dashboard says when it could not load; a 403 reads as "monitoring not enabled". */
export function dashboardFailure(error: unknown): string {
  const backend = findBackendError(error);
  const message = (error instanceof Error ? error.message : String(error)).trim();
  switch (backend?.kind) {
    case 'forbidden':
      return /monitoring/i.test(message)
        ? `Monitoring is not enabled for this account (403). ${message}`
        : `Monitoring is not enabled for this account, or this token may not read usage (403). ${message}`;
    case 'unauthorized':
      return `Sign in again: the server refused the token (401). ${message}`;
    case 'notFound':
      return `Not found on the server (404). ${message}`;
    case 'rateLimited':
      return `The server is rate limiting requests; try again later. ${message}`;
    case 'invalidFilter':
      return `The connection's filters cannot be sent: ${message}`;
    default:
      return message || 'The usage dashboard could not be loaded.';
  }
}
