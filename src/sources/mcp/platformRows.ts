import * as z from 'zod';
import { derivePlatformStatus } from '../../domain/derivedStatus.ts';
import type { PendingTask, SessionSummary } from '../../domain/session.ts';
import { fieldOf, rawText, readRow, unreadableDetail } from '../rowFields.ts';

/**
 * Itential `get_sessions` rows and the parts of `describe_session` the tree needs, read
 * with readRow: a wrongly typed field costs the field, never the row.
 */
const platformRow = z.looseObject({
  session_id: z.string().min(1),
  agent_name: z.string().nullish(),
  status: z.string().nullish(),
  started_at: z.string().nullish(),
  end_time: z.string().nullish(),
  duration_ms: z.number().nullish(),
  total_input_tokens: z.number().nullish(),
  total_output_tokens: z.number().nullish(),
});
type PlatformRow = z.infer<typeof platformRow>;

const manualTask = z.looseObject({
  work_item_id: z.string().min(1),
  title: z.string().nullish(),
  view_type: z.string().nullish(),
  waiting_age_seconds: z.number().nullish(),
  completion_supported: z.boolean().nullish(),
});

const describedSession = z.looseObject({
  session_id: z.string().nullish(),
  status: z.string().nullish(),
  // Tri-state: null = the lookup failed, [] = none, else the tasks. Absent on older servers.
  // Anything else (an object, a count) is unreadable, which is "unknown" too.
  pending_manual_tasks: z.array(z.unknown()).nullish(),
});

/** FastMCP wraps a list result as {"result": [...]} in structured output. */
export function unwrapList(payload: unknown): unknown[] | undefined {
  if (Array.isArray(payload)) return payload;
  const result = (payload as { result?: unknown } | undefined)?.result;
  return Array.isArray(result) ? result : undefined;
}

export function parsePlatformRows(
  payload: unknown,
  connectionId: string,
): { sessions: SessionSummary[]; invalidRows: number } | undefined {
  const rows = unwrapList(payload);
  if (!rows) return undefined;
  const sessions: SessionSummary[] = [];
  const ids = new Set<string>();
  let invalidRows = 0;
  for (const item of rows) {
    const row = readRow(platformRow, item);
    if (!row) invalidRows++;
    // The same session twice: the first row stays.
    else if (!ids.has(row.data.session_id)) {
      ids.add(row.data.session_id);
      sessions.push(toSummary(row.data, row.unreadable, item, connectionId));
    }
  }
  return { sessions, invalidRows };
}

function toSummary(
  row: PlatformRow,
  unreadable: string[],
  item: unknown,
  connectionId: string,
): SessionSummary {
  // An unreadable status stays visible as the raw text the server sent ("unknown").
  const status = unreadable.includes('status')
    ? { status: 'unknown' as const, raw: rawText(fieldOf(item, 'status')) }
    : derivePlatformStatus(row.status);
  return {
    id: row.session_id,
    connectionId,
    label: `${row.agent_name ?? 'agent'} · ${row.session_id.slice(0, 8)}`,
    status,
    harness: row.agent_name ?? undefined,
    startedAt: row.started_at ?? undefined,
    lastActivityAt: row.end_time ?? row.started_at ?? undefined,
    endedAt: row.end_time ?? undefined,
    inputTokens: row.total_input_tokens ?? undefined,
    outputTokens: row.total_output_tokens ?? undefined,
    details: [
      ['Agent', row.agent_name ?? undefined],
      [
        'Duration',
        row.duration_ms === null || row.duration_ms === undefined
          ? undefined
          : `${Math.round(row.duration_ms / 1000)} s`,
      ],
    ]
      .filter((r): r is [string, string] => Boolean(r[1]))
      .concat(unreadableDetail(unreadable)),
    ...(unreadable.length ? { unreadableFields: unreadable } : {}),
  };
}

/**
 * Whether describe_session must say if a human is needed: running and paused sessions,
 * and any whose status is not one we know (it may be a running one).
 */
export function needsDescribe(session: SessionSummary): boolean {
  const raw = session.status.raw.toUpperCase();
  return raw === 'RUNNING' || raw === 'PAUSED' || session.status.status === 'unknown';
}

/** Folds describe_session's manual tasks into a summary: waiting, not waiting, or unknown. */
export function withManualTasks(session: SessionSummary, payload: unknown): SessionSummary {
  const parsed = readRow(describedSession, payload);
  if (!parsed || parsed.data.pending_manual_tasks === undefined) {
    return { ...session, waitingUnknown: true };
  }
  const raw = parsed.data.pending_manual_tasks;
  if (raw === null) return { ...session, waitingUnknown: true };
  const tasks: PendingTask[] = raw.flatMap((item) => {
    const task = readRow(manualTask, item);
    if (!task) return [];
    return [
      {
        id: task.data.work_item_id,
        title: task.data.title ?? undefined,
        viewType: task.data.view_type ?? undefined,
        waitingAgeSeconds: task.data.waiting_age_seconds ?? undefined,
        completionSupported: task.data.completion_supported === true,
      },
    ];
  });
  // Tasks were reported but none could be read: a human may be needed, so say "unknown".
  if (raw.length > 0 && tasks.length === 0) return { ...session, waitingUnknown: true };
  const status = derivePlatformStatus(parsed.data.status ?? session.status.raw, tasks.length);
  const oldest = Math.max(0, ...tasks.map((t) => t.waitingAgeSeconds ?? 0));
  // An age beyond what a Date holds (1e308 seconds) leaves the start unknown, not a throw.
  const since = new Date(Date.now() - oldest * 1000);
  return {
    ...session,
    status,
    pendingTasks: tasks,
    waitingSince: tasks.length && !Number.isNaN(since.getTime()) ? since.toISOString() : undefined,
    // Tasks wait on a session whose status we cannot place: a human may be needed.
    ...(tasks.length > 0 && status.status === 'unknown' ? { waitingUnknown: true } : {}),
  };
}
