/**
 * A search across sessions: the query as typed, the filters, and what each of them
 * means for the files searched and the matches kept. Plain data, so the last search can
 * be remembered in global state and sent to a helper process.
 */
import type { KindFilter } from './classifyMatch.ts';

export interface SearchQuery {
  text: string;
  regex: boolean;
  caseSensitive: boolean;
}

export interface SearchFilters {
  /** Harness names ('claude-code', 'codex', a remote session's harness); empty: all. */
  harnesses: string[];
  /** Projects (local working directory, or a remote session's repository); empty: all. */
  projects: string[];
  /** Inclusive calendar days (YYYY-MM-DD, local time); absent: open-ended. */
  from?: string;
  to?: string;
  kind: KindFilter;
}

export const NO_FILTERS: SearchFilters = { harnesses: [], projects: [], kind: 'all' };

/** What the filters need to know about a session before its file is searched. */
export interface TargetFacts {
  harness?: string;
  project?: string;
  /** Epoch ms of the first and the last activity, when known. */
  firstMs?: number;
  lastMs?: number;
}

/** The pattern handed to the search engine, which reads raw JSON text. */
export interface EnginePattern {
  pattern: string;
  /** The pattern is a literal (ripgrep --fixed-strings). */
  fixed: boolean;
  caseSensitive: boolean;
}

/**
 * A literal is looked for as it is written inside a JSON string (quotes, backslashes and
 * control characters escaped, other characters as UTF-8, which is how Claude Code and
 * Codex write them), so `say "hi"` finds `say \"hi\"` in the file. A regex runs over the
 * raw JSON text as given.
 */
export function enginePattern(query: SearchQuery): EnginePattern {
  if (query.regex) return { pattern: query.text, fixed: false, caseSensitive: query.caseSensitive };
  return {
    pattern: JSON.stringify(query.text).slice(1, -1),
    fixed: true,
    caseSensitive: query.caseSensitive,
  };
}

/** The query as a JavaScript RegExp over raw JSON text (the fallback scanner); throws on a bad regex. */
export function queryRegExp(query: SearchQuery): RegExp {
  const { pattern, fixed, caseSensitive } = enginePattern(query);
  const source = fixed ? pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : pattern;
  return new RegExp(source, `g${caseSensitive ? '' : 'i'}u`);
}

/** A regex the user typed that JavaScript cannot read, as a message; undefined when fine. */
export function regexProblem(query: SearchQuery): string | undefined {
  if (!query.regex) return undefined;
  try {
    new RegExp(query.text, 'u');
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Start of a local calendar day in epoch ms; undefined when `day` is not YYYY-MM-DD. */
export function dayStartMs(day: string): number | undefined {
  if (!DAY.test(day)) return undefined;
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const date = new Date(y, m - 1, d);
  if (date.getFullYear() !== y || date.getMonth() !== m - 1 || date.getDate() !== d)
    return undefined;
  return date.getTime();
}

/** The filters' time window in epoch ms: [from, to) with `to` the end of its day. */
export function timeWindow(filters: SearchFilters): { from: number; to: number } {
  const from = filters.from ? (dayStartMs(filters.from) ?? -Infinity) : -Infinity;
  const toDay = filters.to ? dayStartMs(filters.to) : undefined;
  if (toDay === undefined) return { from, to: Infinity };
  const next = new Date(toDay);
  next.setDate(next.getDate() + 1); // the next local midnight, whatever the day's length
  return { from, to: next.getTime() };
}

/** Whether a session can hold matches the filters keep (checked before its file is read). */
export function targetPasses(facts: TargetFacts, filters: SearchFilters): boolean {
  if (filters.harnesses.length && !filters.harnesses.includes(facts.harness ?? '')) return false;
  if (filters.projects.length && !filters.projects.includes(facts.project ?? '')) return false;
  const { from, to } = timeWindow(filters);
  if (from === -Infinity && to === Infinity) return true;
  const first = facts.firstMs ?? facts.lastMs;
  const last = facts.lastMs ?? facts.firstMs;
  if (first === undefined || last === undefined) return true; // unknown: let entry times decide
  return last >= from && first < to;
}

/** Whether a match at this time passes the date filter (a match without a time passes). */
export function timePasses(timestamp: string | undefined, filters: SearchFilters): boolean {
  if (!filters.from && !filters.to) return true;
  if (!timestamp) return true;
  const ms = Date.parse(timestamp);
  if (Number.isNaN(ms)) return true;
  const { from, to } = timeWindow(filters);
  return ms >= from && ms < to;
}

/** Filters read back from storage: anything malformed falls back to "no filter". */
export function readFilters(raw: unknown): SearchFilters {
  const value = (raw ?? {}) as Partial<Record<keyof SearchFilters, unknown>>;
  const strings = (v: unknown) =>
    Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
  const day = (v: unknown) =>
    typeof v === 'string' && dayStartMs(v) !== undefined ? v : undefined;
  const kind = ['all', 'user', 'assistant', 'tool'].includes(value.kind as string)
    ? (value.kind as KindFilter)
    : 'all';
  const from = day(value.from);
  const to = day(value.to);
  return {
    harnesses: strings(value.harnesses),
    projects: strings(value.projects),
    ...(from && { from }),
    ...(to && { to }),
    kind,
  };
}

/** True when the filters keep everything. */
export function isUnfiltered(filters: SearchFilters): boolean {
  return (
    !filters.harnesses.length &&
    !filters.projects.length &&
    !filters.from &&
    !filters.to &&
    filters.kind === 'all'
  );
}
