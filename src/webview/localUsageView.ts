/**
 * The usage report of local Claude Code and Codex transcripts (sources/local/usageReport)
 * → the DashboardView the usage dashboard draws. Pure and vscode-free. Days are local
 * calendar days of each response (the report is built with the same day function); a
 * model without a price keeps its tokens and shows "cost unknown", never $0.
 */
import { formatCost } from '../domain/format.ts';
import type {
  BreakdownId,
  BreakdownView,
  DashboardPointView,
  DashboardRange,
  DashboardView,
} from '../shared/dashboardProtocol.ts';
import { rangeText } from '../shared/dashboardProtocol.ts';
import type { UsageReport, UsageTotals } from '../sources/local/usageReport.ts';
import { formatCount } from './dashboardView.ts';

const DAY_MS = 86_400_000;
/** Empty days are filled in up to this span (a longer history is drawn as its days only). */
const MAX_FILLED_DAYS = 400;
/** File problems quoted in the dashboard; the export has all of them. */
const QUOTED_PROBLEMS = 3;

export const LOCAL_PRICES_HINT = 'sessionInspector.local.prices';

export interface LocalViewOptions {
  connectionLabel: string;
  range: DashboardRange;
  /** Today, in local time (the range ends today). */
  now?: Date;
  /** The time zone the days are in ("Europe/Berlin"), for the note. */
  timeZone?: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD` of a date in local time, as the report's days are keyed. */
export function localDayKey(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The first local day of the range: today and the `days - 1` days before it. */
export function localRangeStart(days: Exclude<DashboardRange, null>, now = new Date()): string {
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate() - (days - 1));
  return localDayKey(start);
}

/** "$1.23", "cost unknown", or "$1.23 + unknown" when some of it is of unpriced models. */
export function localCostText(t: Pick<UsageTotals, 'cost' | 'knownCost'>): string {
  if (t.cost !== undefined) return formatCost(t.cost);
  return t.knownCost > 0 ? `${formatCost(t.knownCost)} + unknown` : formatCost(undefined);
}

export function localUsageView(report: UsageReport, options: LocalViewOptions): DashboardView {
  const t = report.totals;
  const view: DashboardView = {
    connectionLabel: options.connectionLabel,
    range: options.range,
    rangeText: rangeText(options.range),
    filtersText: '',
    totals: {
      sessions: report.sessions,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      cacheReadTokens: t.cacheReadTokens,
      cacheWriteTokens: t.cacheWriteTokens,
      reasoningTokens: t.reasoningTokens,
      cost: localCostText(t),
    },
    breakdowns: [],
    problems: localProblems(report),
  };
  const series = dailySeries(report, options);
  if (series) view.series = series;
  const add = (b: BreakdownView) => {
    if (b.rows.length > 0) view.breakdowns.push(b);
  };
  add(
    breakdown('model', 'By model', 'Model', report.byModel, (k) =>
      k === 'unknown' ? '(no model)' : k,
    ),
  );
  add(
    breakdown('project', 'By project', 'Project', report.byProject, (k) =>
      k === 'unknown' ? '(no folder)' : k,
    ),
  );
  add(breakdown('harness', 'By harness', 'Harness', report.byHarness, harnessName));
  return view;
}

function harnessName(key: string): string {
  return key === 'claude-code' ? 'Claude Code' : key === 'codex' ? 'Codex' : key;
}

const plural = (n: number, one: string, many: string) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** What the numbers leave out or cannot price, in words. */
export function localProblems(report: UsageReport): string[] {
  const problems = report.unpricedModels.map(
    (model) =>
      `No price for ${model}: its tokens are counted, its cost is unknown. Add it to ${LOCAL_PRICES_HINT}.`,
  );
  const legacy = report.sessionsWithoutTokenInfo;
  if (legacy > 0) {
    problems.push(
      `${plural(legacy, 'session', 'sessions')} in the older Codex format ${legacy === 1 ? 'records' : 'record'} no token counts: ${legacy === 1 ? 'its' : 'their'} tokens and cost are unknown and not counted.`,
    );
  }
  const files = report.problems;
  if (files.length > 0) {
    const quoted = files
      .slice(0, QUOTED_PROBLEMS)
      .map(
        (p) =>
          `${p.message}${p.path && !p.message.includes(p.path) ? ` (${p.path}${p.line ? `:${p.line}` : ''})` : ''}`,
      );
    problems.push(
      `${plural(files.length, 'problem', 'problems')} in the transcript files (lines or files that could not be read are not counted): ${quoted.join('; ')}${files.length > QUOTED_PROBLEMS ? '; …' : ''}`,
    );
  }
  return problems;
}

const dayMs = (key: string) => Date.parse(`${key}T00:00:00Z`);
const dayOfMs = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function dailySeries(report: UsageReport, options: LocalViewOptions) {
  const days = Object.keys(report.byDay)
    .filter((d) => d !== 'unknown')
    .sort();
  if (days.length === 0) return undefined;
  const now = options.now ?? new Date();
  const today = localDayKey(now);
  const first =
    options.range === null ? days[0]! : minDay(days[0]!, localRangeStart(options.range, now));
  const last = options.range === null ? days.at(-1)! : maxDay(days.at(-1)!, today);
  // Day keys step as UTC dates: the keys are labels here, whatever the time zone.
  const keys =
    (dayMs(last) - dayMs(first)) / DAY_MS <= MAX_FILLED_DAYS
      ? Array.from({ length: (dayMs(last) - dayMs(first)) / DAY_MS + 1 }, (_, i) =>
          dayOfMs(dayMs(first) + i * DAY_MS),
        )
      : days;
  const points: DashboardPointView[] = keys.map((day) => {
    const t = report.byDay[day];
    return {
      day,
      cost: t?.knownCost ?? 0,
      costText: t ? localCostText(t) : formatCost(0),
      sessions: t?.sessions ?? 0,
      inputTokens: t?.inputTokens ?? 0,
      outputTokens: t?.outputTokens ?? 0,
      unknownCostSessions: t?.unpricedSessions ?? 0,
    };
  });
  const zone = options.timeZone ? ` (${options.timeZone})` : '';
  const notes = [`By the local calendar day${zone} of each response.`];
  if (report.unpricedModels.length > 0) {
    notes.push(
      'Responses of models without a price add tokens but no cost: those days show a lower bound.',
    );
  }
  const undated = report.byDay['unknown']?.responses ?? 0;
  if (undated > 0) {
    notes.push(
      `${plural(undated, 'response', 'responses')} without a timestamp ${undated === 1 ? 'counts' : 'count'} in the totals but on no day.`,
    );
  }
  const known = points.reduce((n, p) => n + p.cost, 0);
  return {
    note: notes.join(' '),
    totalCost:
      report.unpricedModels.length > 0 ? `${formatCost(known)} + unknown` : formatCost(known),
    points,
  };
}

const minDay = (a: string, b: string) => (a < b ? a : b);
const maxDay = (a: string, b: string) => (a > b ? a : b);

/** Bars by known cost when any row has one, else by sessions; every token kind as a column. */
function breakdown(
  id: BreakdownId,
  title: string,
  labelColumn: string,
  rows: Record<string, UsageTotals>,
  label: (key: string) => string,
): BreakdownView {
  const entries = Object.entries(rows);
  const byCost = entries.some(([, t]) => t.knownCost > 0);
  return {
    id,
    title,
    labelColumn,
    measure: byCost ? 'Estimated cost' : 'Sessions',
    columns: [
      'Sessions',
      'Input tokens',
      'Output tokens',
      'Cache read tokens',
      'Cache write tokens',
      'Estimated cost',
    ],
    rows: entries
      .map(([key, t]) => ({
        label: label(key),
        value: byCost ? t.knownCost : t.sessions,
        valueText: byCost ? localCostText(t) : plural(t.sessions, 'session', 'sessions'),
        cells: [
          formatCount(t.sessions),
          formatCount(t.inputTokens),
          formatCount(t.outputTokens),
          formatCount(t.cacheReadTokens),
          formatCount(t.cacheWriteTokens),
          localCostText(t),
        ],
      }))
      .sort((a, b) => b.value - a.value || a.label.localeCompare(b.label)),
  };
}
