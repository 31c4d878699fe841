import * as z from 'zod';
import type {
  ActivityRow,
  AgentTypeRow,
  CostPoint,
  ToolUseRow,
  UsageBreakdownRow,
} from './dashboardTypes.ts';

/**
 * Tolerant schemas for get-agent-session-usage and get-agent-session-analytics
 * (seed 002): unknown fields pass, a malformed field becomes a gap, numbers sent as
 * numeric strings (seen from drifting servers) are read as numbers. Breakdown rows are
 * read one by one so one bad row costs only itself.
 */
const num = z
  .preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
    z.number().finite(),
  )
  .nullish()
  .catch(null);
const text = z.string().nullish().catch(null);
const rows = z.array(z.unknown()).nullish().catch(null);

export const usageEnvelope = z.looseObject({
  viewerScope: text,
  totalSessions: num,
  totalInputTokens: num,
  totalOutputTokens: num,
  totalCacheReadTokens: num,
  totalCacheWriteTokens: num,
  totalEstimatedCost: num,
  subscriptionEstimatedCost: num,
  apiEstimatedCost: num,
  byUser: rows,
  byModel: rows,
  byHarness: rows,
  byRepository: rows,
  // Not in seed 002; read if a server sends a daily series, else built from session rows.
  byDay: rows,
  daily: rows,
});

export const analyticsEnvelope = z.looseObject({
  totalSessions: num,
  byTool: rows,
  byAgentType: rows,
  byRepository: rows,
  byProject: rows,
});

const usageRow = z.looseObject({
  sessionCount: num,
  inputTokens: num,
  outputTokens: num,
  cacheReadTokens: num,
  cacheWriteTokens: num,
  estimatedCost: num,
  name: text,
  email: text,
});

const toolRow = z.looseObject({ toolName: text, tool: text, useCount: num, sessionCount: num });
const agentTypeRow = z.looseObject({ agentType: text, agentCount: num, sessionCount: num });
const activityRow = z.looseObject({
  sessionCount: num,
  toolUseCount: num,
  errorCount: num,
  estimatedCost: num,
});
const dayRow = z.looseObject({
  date: text,
  day: text,
  sessionCount: num,
  estimatedCost: num,
  inputTokens: num,
  outputTokens: num,
});

const some = (v: number | null | undefined) => v ?? undefined;
const label = (key: string) => key || '(none)';

function keyOf(row: Record<string, unknown>, field: string): string | undefined {
  const v = row[field];
  if (v === null || v === undefined) return '';
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}

export interface RowsRead<T> {
  rows: T[];
  invalid: number;
}

function readRows<T>(
  items: readonly unknown[] | null | undefined,
  read: (item: unknown) => T | undefined,
): RowsRead<T> {
  const out: T[] = [];
  let invalid = 0;
  for (const item of items ?? []) {
    const row = read(item);
    if (row === undefined) invalid++;
    else out.push(row);
  }
  return { rows: out, invalid };
}

/** byModel/byHarness/byRepository/byUser rows, keyed by `field`. */
export function usageRows(
  items: readonly unknown[] | null | undefined,
  field: string,
): RowsRead<UsageBreakdownRow> {
  return readRows(items, (item) => {
    const parsed = usageRow.safeParse(item);
    if (!parsed.success) return undefined;
    const key = keyOf(parsed.data, field);
    if (key === undefined) return undefined;
    const r = parsed.data;
    return {
      key,
      label: field === 'userId' ? r.name || r.email || label(key) : label(key),
      sessionCount: some(r.sessionCount),
      inputTokens: some(r.inputTokens),
      outputTokens: some(r.outputTokens),
      cacheReadTokens: some(r.cacheReadTokens),
      cacheWriteTokens: some(r.cacheWriteTokens),
      estimatedCost: some(r.estimatedCost),
    };
  });
}

export function toolRows(items: readonly unknown[] | null | undefined): RowsRead<ToolUseRow> {
  return readRows(items, (item) => {
    const parsed = toolRow.safeParse(item);
    const tool = parsed.success ? (parsed.data.toolName ?? parsed.data.tool) : undefined;
    if (!parsed.success || !tool) return undefined;
    return {
      tool,
      useCount: some(parsed.data.useCount),
      sessionCount: some(parsed.data.sessionCount),
    };
  });
}

export function agentTypeRows(
  items: readonly unknown[] | null | undefined,
): RowsRead<AgentTypeRow> {
  return readRows(items, (item) => {
    const parsed = agentTypeRow.safeParse(item);
    if (!parsed.success || !parsed.data.agentType) return undefined;
    return {
      agentType: parsed.data.agentType,
      agentCount: some(parsed.data.agentCount),
      sessionCount: some(parsed.data.sessionCount),
    };
  });
}

export function activityRows(
  items: readonly unknown[] | null | undefined,
  field: string,
): RowsRead<ActivityRow> {
  return readRows(items, (item) => {
    const parsed = activityRow.safeParse(item);
    if (!parsed.success) return undefined;
    const key = keyOf(parsed.data, field);
    if (key === undefined) return undefined;
    return {
      key,
      label: label(key),
      sessionCount: some(parsed.data.sessionCount),
      toolUseCount: some(parsed.data.toolUseCount),
      errorCount: some(parsed.data.errorCount),
      estimatedCost: some(parsed.data.estimatedCost),
    };
  });
}

/** A daily series a server sent itself (rows need a parseable day). */
export function dayRows(items: readonly unknown[] | null | undefined): RowsRead<CostPoint> {
  return readRows(items, (item) => {
    const parsed = dayRow.safeParse(item);
    const raw = parsed.success ? (parsed.data.date ?? parsed.data.day) : undefined;
    if (!parsed.success || !raw || Number.isNaN(Date.parse(raw))) return undefined;
    const cost = parsed.data.estimatedCost;
    return {
      day: new Date(raw).toISOString().slice(0, 10),
      sessionCount: parsed.data.sessionCount ?? 0,
      estimatedCost: cost ?? 0,
      inputTokens: parsed.data.inputTokens ?? 0,
      outputTokens: parsed.data.outputTokens ?? 0,
      unknownCostSessions:
        cost === null || cost === undefined ? (parsed.data.sessionCount ?? 0) : 0,
    };
  });
}
