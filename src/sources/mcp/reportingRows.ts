import { deriveReportingStatus } from '../../domain/derivedStatus.ts';
import type { SessionPage, SessionSummary } from '../../domain/session.ts';
import { listAgentSessionsResult, reportingSessionRow } from './reportingSchemas.ts';
import type { ReportingSessionRow } from './reportingSchemas.ts';
import { BackendError } from '../../domain/errors.ts';
import { fieldOf, rawText, readRow, unreadableDetail } from '../rowFields.ts';

/**
 * Turns one `list-agent-sessions` answer into a page. A row with a wrongly typed field is
 * kept without it (named in `unreadableFields`); only a row without a readable id is
 * counted as invalid. A second row with the same id is dropped (the first one stays).
 */
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
  const ids = new Set<string>();
  let invalidRows = 0;
  for (const item of envelope.data.items) {
    const row = readRow(reportingSessionRow, item);
    if (!row) invalidRows++;
    else if (!ids.has(row.data.id)) {
      ids.add(row.data.id);
      sessions.push(toSummary(row.data, row.unreadable, item, connectionId));
    }
  }
  const total = envelope.data.total ?? undefined;
  const consumed = offset + envelope.data.items.length;
  const next =
    envelope.data.items.length > 0 && (total === undefined || consumed < total)
      ? String(consumed)
      : undefined;
  return { sessions, total, next, invalidRows };
}

function toSummary(
  row: ReportingSessionRow,
  unreadable: string[],
  item: unknown,
  connectionId: string,
): SessionSummary {
  const user = row.user
    ? [row.user.firstName, row.user.lastName].filter(Boolean).join(' ') || row.user.email
    : undefined;
  // A status we cannot read is "unknown" with what the server sent kept as its raw value;
  // it may have said "waiting", so whether a human is needed is unknown too.
  const statusUnreadable = unreadable.includes('status');
  const status = deriveReportingStatus(
    statusUnreadable ? rawText(fieldOf(item, 'status')) : row.status,
  );
  if (statusUnreadable) status.status = 'unknown';
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
    ...(statusUnreadable ? { waitingUnknown: true } : {}),
    ...(unreadable.length ? { unreadableFields: unreadable } : {}),
    details: [
      ['Slug', row.slug],
      ['External session ID', row.externalSessionId],
      ['Agents', row.agentCount],
      ['Tool uses', row.toolUseCount],
      ['Errors', row.errorCount],
    ]
      .flatMap(([name, value]) =>
        value === null || value === undefined
          ? []
          : [[String(name), String(value)] as [string, string]],
      )
      .concat(unreadableDetail(unreadable)),
  };
}
