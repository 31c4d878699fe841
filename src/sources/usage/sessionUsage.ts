/**
 * The Usage tab of one session: totals from the backend's session row, per-turn tokens
 * from the transcript entries the host has read (the engine puts a turn's usage on its
 * last entry, once per model response).
 */
import { formatCost } from '../../domain/format.ts';
import type { SessionSummary } from '../../domain/session.ts';
import type { TranscriptEntry } from '../../domain/transcript/model.ts';
import type { UsageView } from '../../shared/protocol.ts';

export interface SessionUsageOptions {
  /** Number of the first turn in `entries` when they are a window further into the file (default 1). */
  firstTurn?: number;
}

export function buildSessionUsage(
  session: SessionSummary,
  entries: readonly TranscriptEntry[] = [],
  options: SessionUsageOptions = {},
): UsageView {
  const turns: UsageView['turns'] = [];
  const sum = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  let number = options.firstTurn ?? 1;
  for (const entry of entries) {
    const u = entry.usage;
    if (!u) continue;
    sum.input += u.input ?? 0;
    sum.output += u.output ?? 0;
    sum.cacheRead += u.cacheRead ?? 0;
    sum.cacheWrite += u.cacheWrite ?? 0;
    sum.reasoning += u.reasoning ?? 0;
    // A turn's prompt is mostly cache reads with Claude (uncached input is often a handful
    // of tokens), so the chart shows everything the model read as input.
    turns.push({
      label: String(number++),
      input: (u.input ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0),
      output: u.output ?? 0,
    });
  }
  const fromTranscript = turns.length > 0;
  // The backend's totals cover the whole run; the transcript sums only what was read, so
  // they stand in only where the backend has no number.
  const pick = (server: number | undefined, local: number) =>
    server ?? (fromTranscript ? local : undefined);
  return {
    input: pick(session.inputTokens, sum.input),
    output: pick(session.outputTokens, sum.output),
    cacheRead: pick(session.cacheReadTokens, sum.cacheRead),
    cacheWrite: pick(session.cacheWriteTokens, sum.cacheWrite),
    reasoning: sum.reasoning > 0 ? sum.reasoning : undefined,
    cost: formatCost(session.estimatedCost),
    turns,
    ...(session.context ? { context: session.context } : {}),
  };
}
