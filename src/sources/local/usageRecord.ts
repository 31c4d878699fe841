/**
 * Every usage record is made here, whatever made it (a scanner's line, a worker's packed
 * results, a merged copy), so all have one object shape: V8 then reads their fields with
 * one map check; records of several shapes make the loops that total them polymorphic.
 */
import type { UsageRecord } from './types.ts';

export function usageRecord(
  model: string | undefined,
  ms: number,
  input: number,
  output: number,
  cacheRead: number,
  cacheWrite: number,
  cacheWrite1h: number,
  reasoning: number,
  agentId?: string,
): UsageRecord {
  return {
    model,
    ms,
    input: small(input),
    output: small(output),
    cacheRead: small(cacheRead),
    cacheWrite: small(cacheWrite),
    cacheWrite1h: small(cacheWrite1h),
    reasoning: small(reasoning),
    agentId,
  };
}

/**
 * The same count as a small integer when it is one. Counts read as doubles (the skim
 * kernel's Float64Array) would otherwise be stored boxed: one such field makes V8 box that
 * field in every record, and every merge of a line then allocates a box per count.
 */
function small(n: number): number {
  return (n | 0) === n ? n | 0 : n;
}

export function copyUsage(r: UsageRecord): UsageRecord {
  return usageRecord(
    r.model,
    r.ms,
    r.input,
    r.output,
    r.cacheRead,
    r.cacheWrite,
    r.cacheWrite1h,
    r.reasoning,
    r.agentId,
  );
}

/**
 * Lines (and agent_progress copies) of one response repeat its usage with counts that
 * grow while it streams: a response counts each field's maximum over them, and the first
 * model and time any of them names.
 */
export function mergeUsage(into: UsageRecord, r: UsageRecord): void {
  mergeCounts(into, r.model, r.ms, r.input, r.output, r.cacheRead, r.cacheWrite, r.cacheWrite1h);
}

/** mergeUsage of a line's numbers, with no record made for them. */
export function mergeCounts(
  into: UsageRecord,
  model: string | undefined,
  ms: number,
  input: number,
  output: number,
  cacheRead: number,
  cacheWrite: number,
  cacheWrite1h: number,
): void {
  into.input = Math.max(into.input, small(input));
  into.output = Math.max(into.output, small(output));
  into.cacheRead = Math.max(into.cacheRead, small(cacheRead));
  into.cacheWrite = Math.max(into.cacheWrite, small(cacheWrite));
  into.cacheWrite1h = Math.max(into.cacheWrite1h, small(cacheWrite1h));
  into.model ??= model;
  if (!Number.isFinite(into.ms)) into.ms = ms;
}
