/**
 * Cost over time. Seed 002's usage and analytics tools return no time series, so the
 * series is summed from list-agent-sessions rows, by the UTC day of lastActivityAt —
 * the same basis get-agent-session-usage windows on, so with the same shared filters
 * the days add up to the usage totals. Reading every row of a large organization would
 * be slow, so at most `maxSessions` rows (newest first, as the server lists them) are
 * read and the series says when it is incomplete.
 */
import type { SessionSummary } from '../../domain/session.ts';
import type { JsonToolCaller } from '../mcp/jsonToolCaller.ts';
import { parseListAgentSessions } from '../mcp/reportingRows.ts';
import type { CostPoint, CostSeries } from './dashboardTypes.ts';

export const DEFAULT_SERIES_SESSIONS = 1_000;
const PAGE = 100;
const DAY_MS = 86_400_000;
/** Gaps between days are filled with zero days, up to this span (a chart needs them). */
const MAX_FILLED_DAYS = 400;

export function money(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

export async function sessionCostSeries(
  caller: JsonToolCaller,
  args: Record<string, string>,
  options: { maxSessions?: number; signal?: AbortSignal } = {},
): Promise<{ series: CostSeries; invalidRows: number }> {
  const max = options.maxSessions ?? DEFAULT_SERIES_SESSIONS;
  const sessions: SessionSummary[] = [];
  const ids = new Set<string>();
  let invalidRows = 0;
  let offset = 0;
  let complete = false;
  while (sessions.length + invalidRows < max) {
    const limit = Math.min(PAGE, max - sessions.length - invalidRows);
    const page = parseListAgentSessions(
      await caller.callJson('list-agent-sessions', { ...args, limit, offset }, options.signal),
      '',
      offset,
    );
    // Each session is summed once. A page of sessions already read means the server
    // ignores the offset: the series stops there, incomplete, instead of counting them again.
    const fresh = page.sessions.filter((s) => !ids.has(s.id) && ids.add(s.id));
    sessions.push(...fresh);
    invalidRows += page.invalidRows;
    if (page.sessions.length > 0 && fresh.length === 0) break;
    if (page.next === undefined) {
      complete = true;
      break;
    }
    offset = Number(page.next);
  }
  return {
    series: {
      source: 'sessions',
      basis: 'lastActivityAt',
      points: costByDay(sessions),
      sessionsRead: sessions.length,
      complete,
    },
    invalidRows,
  };
}

/** Sessions summed per UTC day of lastActivityAt (startedAt when that is missing). */
export function costByDay(sessions: readonly SessionSummary[]): CostPoint[] {
  const days = new Map<string, CostPoint>();
  for (const s of sessions) {
    const at = Date.parse(s.lastActivityAt ?? s.startedAt ?? '');
    if (Number.isNaN(at)) continue;
    const day = new Date(at).toISOString().slice(0, 10);
    const p = days.get(day) ?? emptyPoint(day);
    p.sessionCount++;
    p.inputTokens += s.inputTokens ?? 0;
    p.outputTokens += s.outputTokens ?? 0;
    // A negative cost is the server's error: counted as unknown, never subtracted.
    if (s.estimatedCost === undefined || s.estimatedCost < 0) p.unknownCostSessions++;
    else p.estimatedCost += s.estimatedCost;
    days.set(day, p);
  }
  return fillGaps([...days.values()].map((p) => ({ ...p, estimatedCost: money(p.estimatedCost) })));
}

function emptyPoint(day: string): CostPoint {
  return {
    day,
    sessionCount: 0,
    estimatedCost: 0,
    inputTokens: 0,
    outputTokens: 0,
    unknownCostSessions: 0,
  };
}

/** Sorted by day, with empty days between the first and last one (bounded). */
export function fillGaps(points: CostPoint[]): CostPoint[] {
  const sorted = [...points].sort((a, b) => a.day.localeCompare(b.day));
  if (sorted.length < 2) return sorted;
  const first = Date.parse(sorted[0]!.day);
  const last = Date.parse(sorted.at(-1)!.day);
  if ((last - first) / DAY_MS > MAX_FILLED_DAYS) return sorted;
  const byDay = new Map(sorted.map((p) => [p.day, p]));
  const out: CostPoint[] = [];
  for (let t = first; t <= last; t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    out.push(byDay.get(day) ?? emptyPoint(day));
  }
  return out;
}
