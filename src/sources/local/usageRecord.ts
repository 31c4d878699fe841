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
  return { model, ms, input, output, cacheRead, cacheWrite, cacheWrite1h, reasoning, agentId };
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
  into.input = Math.max(into.input, input);
  into.output = Math.max(into.output, output);
  into.cacheRead = Math.max(into.cacheRead, cacheRead);
  into.cacheWrite = Math.max(into.cacheWrite, cacheWrite);
  into.cacheWrite1h = Math.max(into.cacheWrite1h, cacheWrite1h);
  into.model ??= model;
  if (!Number.isFinite(into.ms)) into.ms = ms;
}
