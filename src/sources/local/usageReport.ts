/**
 * Token and cost totals of every local session per day, model, project and harness (for a
 * usage report). Built from the same de-duplicated records as the session rows, so the
 * rows add up to the totals.
 */
import type { LocalSession } from './aggregate.ts';
import { LocalIndex, type LocalIndexOptions, type LocalSnapshot } from './localIndex.ts';
import type { Pricing } from './pricing.ts';
import type { LocalProblem } from './types.ts';

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Part of outputTokens (Codex reports it; Claude Code does not). */
  reasoningTokens: number;
  /** Responses (Claude Code) and token_count deltas (Codex). */
  responses: number;
  /** USD; undefined when some tokens are of a model without a price. */
  cost: number | undefined;
  /** USD of the priced part only. */
  knownCost: number;
}

export interface UsageReport {
  totals: UsageTotals;
  /** By local calendar day (`YYYY-MM-DD`; `unknown` without a timestamp). */
  byDay: Record<string, UsageTotals>;
  /** By model id as written in the transcripts (`unknown` when none). */
  byModel: Record<string, UsageTotals>;
  /** By working directory. */
  byProject: Record<string, UsageTotals>;
  byHarness: Record<string, UsageTotals>;
  /** Models with tokens but no price. */
  unpricedModels: string[];
  /** Sessions with tokens of their own (subagents count on their own). */
  sessions: number;
  /** Sessions whose files carry no token information (Codex legacy). */
  sessionsWithoutTokenInfo: number;
  files: number;
  bytes: number;
  problems: LocalProblem[];
}

export interface UsageReportOptions {
  /** Day key of an epoch ms (default: the local calendar day). */
  dayOf?: (ms: number) => string;
}

function emptyTotals(): UsageTotals {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    responses: 0,
    cost: 0,
    knownCost: 0,
  };
}

export function localDay(ms: number): string {
  if (!Number.isFinite(ms)) return 'unknown';
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Totals of a snapshot's sessions. */
export function buildUsageReport(
  snapshot: LocalSnapshot,
  pricing: Pricing,
  options: UsageReportOptions = {},
): UsageReport {
  const dayOf = options.dayOf ?? localDay;
  const report: UsageReport = {
    totals: emptyTotals(),
    byDay: {},
    byModel: {},
    byProject: {},
    byHarness: {},
    unpricedModels: [],
    sessions: 0,
    sessionsWithoutTokenInfo: 0,
    files: snapshot.files.length,
    bytes: snapshot.bytes,
    problems: snapshot.problems,
  };
  const unpriced = new Set<string>();
  const bucket = (map: Record<string, UsageTotals>, key: string) => (map[key] ??= emptyTotals());
  for (const s of snapshot.sessions) {
    if (s.noTokenInfo && s.records.length === 0) report.sessionsWithoutTokenInfo++;
    if (s.records.length > 0) report.sessions++;
    addSession(s);
  }
  function addSession(s: LocalSession): void {
    const project = s.project ?? 'unknown';
    for (const r of s.records) {
      const cost = pricing.costOf(r);
      const model = r.model ?? 'unknown';
      if (cost === undefined) unpriced.add(model);
      for (const t of [
        report.totals,
        bucket(report.byDay, dayOf(r.ms)),
        bucket(report.byModel, model),
        bucket(report.byProject, project),
        bucket(report.byHarness, s.harness),
      ]) {
        t.inputTokens += r.input;
        t.outputTokens += r.output;
        t.cacheReadTokens += r.cacheRead;
        t.cacheWriteTokens += r.cacheWrite;
        t.reasoningTokens += r.reasoning;
        t.responses++;
        if (cost === undefined) t.cost = undefined;
        else {
          t.knownCost += cost;
          if (t.cost !== undefined) t.cost += cost;
        }
      }
    }
  }
  report.unpricedModels = [...unpriced].sort();
  return report;
}

/**
 * Scans the local transcripts (or refreshes `index`) and totals them. With an index,
 * the scan reads only what changed since its last refresh.
 */
export async function scanUsage(
  options: LocalIndexOptions &
    UsageReportOptions & { index?: LocalIndex; signal?: AbortSignal } = {},
): Promise<UsageReport> {
  const index = options.index ?? new LocalIndex(options);
  const snapshot = await index.refresh(options.signal ? { signal: options.signal } : {});
  return buildUsageReport(snapshot, index.pricing, options);
}
