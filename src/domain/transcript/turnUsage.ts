/**
 * Per-turn token usage for entries in a window, from the records around them (kinds and
 * turn groups are in memory; only the few records of one turn are read).
 *
 * Claude Code writes usage on every line of a response (same message.id); which line
 * holds the final output count varies by version, so a turn's output is the maximum over
 * its lines, shown on the turn's last entry. A response whose lines come again later in
 * the file (a resumed session) has no group there (see the collector): shown once.
 *
 * Codex writes cumulative token_count events after each model request (0.9x writes each
 * twice): a turn's usage is the difference to the previous *different* total, shown on
 * the last model entry before the event. Summing last_token_usage would double count.
 */
import type { TokenUsage } from './model.ts';
import { RK_MODEL, RK_PROMPT, RK_TOKENS, type NormalizedRecord } from './normalize/types.ts';

/** How far to look for a turn's other lines or its token event (records). */
const NEAR = 2_000;
/** How far back to look for the previous token total (records). */
const FAR = 50_000;

export interface RecordAccess {
  readonly recordCount: number;
  kind(r: number): number;
  group(r: number): number;
  normalized(r: number): Promise<NormalizedRecord>;
}

/** Usage of the turn whose last line is record r, or undefined when r is not last. */
export async function claudeTurnUsage(r: number, a: RecordAccess): Promise<TokenUsage | undefined> {
  const group = a.group(r);
  if (group === 0) return undefined;
  for (let k = r + 1; k < a.recordCount && k <= r + NEAR; k++) {
    const kind = a.kind(k);
    if (kind === RK_MODEL) {
      if (a.group(k) === group) return undefined;
      break;
    }
    if (kind === RK_PROMPT) break;
  }
  let latest: TokenUsage | undefined;
  let output = 0;
  for (let k = r; k >= 0 && k >= r - NEAR; k--) {
    const kind = a.kind(k);
    if (kind === RK_PROMPT) break;
    if (kind !== RK_MODEL) continue;
    if (a.group(k) !== group) break;
    const usage = (await a.normalized(k)).usage;
    if (!usage) continue;
    latest ??= usage;
    output = Math.max(output, usage.output ?? 0);
  }
  if (!latest) return undefined;
  const total = (latest.input ?? 0) + (latest.cacheRead ?? 0) + (latest.cacheWrite ?? 0) + output;
  // The harness's own messages (<synthetic>) carry zeros: no usage to show.
  return total > 0 ? { ...latest, output, total } : undefined;
}

const FIELDS = ['input', 'cacheRead', 'cacheWrite', 'output', 'reasoning', 'total'] as const;

/** Usage of the model request whose last output record is r, or undefined. */
export async function codexTurnUsage(r: number, a: RecordAccess): Promise<TokenUsage | undefined> {
  let event = -1;
  for (let k = r + 1; k < a.recordCount && k <= r + NEAR; k++) {
    const kind = a.kind(k);
    if (kind === RK_TOKENS) {
      event = k;
      break;
    }
    if (kind === RK_MODEL || kind === RK_PROMPT) return undefined;
  }
  if (event < 0) return undefined;
  const now = (await a.normalized(event)).cumulative;
  if (!now) return undefined;
  let previous: TokenUsage | undefined;
  let k = event - 1;
  for (; k >= 0 && k >= event - FAR; k--) {
    if (a.kind(k) !== RK_TOKENS) continue;
    const total = (await a.normalized(k)).cumulative;
    if (total && total.total !== now.total) {
      previous = total;
      break;
    }
  }
  if (!previous && k >= 0) return undefined; // gave up looking: better no figure than a wrong one
  const usage: TokenUsage = {};
  for (const field of FIELDS) {
    const value = (now[field] ?? 0) - (previous?.[field] ?? 0);
    if (now[field] !== undefined) usage[field] = Math.max(0, value);
  }
  return (usage.total ?? 0) > 0 ? usage : undefined;
}
