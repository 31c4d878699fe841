import { deriveReportingStatus } from '../../domain/derivedStatus.ts';
import type { SessionPage, SessionSummary } from '../../domain/session.ts';
import { listAgentSessionsResult, reportingSessionRow } from './reportingSchemas.ts';
import type { ReportingSessionRow } from './reportingSchemas.ts';
import { BackendError } from '../../domain/errors.ts';

/** Turns one `list-agent-sessions` answer into a page; bad rows are counted, not fatal. */
export function parseListAgentSessions(
  payload: unknown,
  connectionId: string,
  offset: number,
): SessionPage {
  const envelope = listAgentSessionsResult.safeParse(payload);
  if (!envelope.success) {
    throw new BackendError(
      'invalidResponse',
      `list-agent-sessions answered in an unexpected shape: ${envelope.error.issues[0]?.message ?? 'invalid'}`,
    );
  }
  const sessions: SessionSummary[] = [];
  let invalidRows = 0;
  for (const item of envelope.data.items) {
    const row = reportingSessionRow.safeParse(item);
    if (row.success) sessions.push(toSummary(row.data, connectionId));
    else invalidRows++;
  }
  const total = envelope.data.total ?? undefined;
  const consumed = offset + envelope.data.items.length;
  const next =
    envelope.data.items.length > 0 && (total === undefined || consumed < total)
      ? String(consumed)
      : undefined;
  return { sessions, total, next, invalidRows };
}

function toSummary(row: ReportingSessionRow, connectionId: string): SessionSummary {
  const user = row.user
    ? [row.user.firstName, row.user.lastName].filter(Boolean).join(' ') || row.user.email
    : undefined;
  const status = deriveReportingStatus(row.status);
  return {
    id: row.id,
    connectionId,
    label: row.name || row.slug || row.id,
    status,
    harness: row.harness ?? undefined,
    model: row.model ?? undefined,
    repository: row.repositoryFullName ?? undefined,
    branch: row.baseBranch ?? undefined,
    user: user ?? undefined,
    startedAt: row.startedAt ?? undefined,
    lastActivityAt: row.lastActivityAt ?? undefined,
    endedAt: row.endedAt ?? undefined,
    inputTokens: row.inputTokens ?? undefined,
    outputTokens: row.outputTokens ?? undefined,
    cacheReadTokens: row.cacheReadTokens ?? undefined,
    cacheWriteTokens: row.cacheWriteTokens ?? undefined,
    estimatedCost: row.estimatedCost ?? undefined,
    waitingSince: status.status === 'waiting' ? (row.lastActivityAt ?? undefined) : undefined,
    details: [
      ['Slug', row.slug],
      ['External session ID', row.externalSessionId],
      ['Agents', row.agentCount],
      ['Tool uses', row.toolUseCount],
      ['Errors', row.errorCount],
    ].flatMap(([name, value]) =>
      value === null || value === undefined
        ? []
        : [[String(name), String(value)] as [string, string]],
    ),
  };
}
