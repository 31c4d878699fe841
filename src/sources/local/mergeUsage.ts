/**
 * Lines (and agent_progress copies) of one response repeat its usage with counts that
 * grow while it streams: a response counts each field's maximum over them, and the first
 * model and time any of them names.
 */
import type { UsageRecord } from './types.ts';

export function mergeUsage(into: UsageRecord, r: UsageRecord): void {
  into.input = Math.max(into.input, r.input);
  into.output = Math.max(into.output, r.output);
  into.cacheRead = Math.max(into.cacheRead, r.cacheRead);
  into.cacheWrite = Math.max(into.cacheWrite, r.cacheWrite);
  into.cacheWrite1h = Math.max(into.cacheWrite1h, r.cacheWrite1h);
  into.model ??= r.model;
  if (!Number.isFinite(into.ms)) into.ms = r.ms;
}
