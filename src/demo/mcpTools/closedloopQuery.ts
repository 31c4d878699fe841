import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { STALE_AFTER_MS, type ClosedloopSession } from '../data/closedloopSessions.ts';
import type { ToolContext } from './context.ts';
import { errorResult, isUuid } from './results.ts';

/** Values a client may send as a status filter (seed 002). */
export const STATUS_FILTERS = [
  'active',
  'waiting',
  'inactive',
  'error',
  'stale',
  'unknown',
] as const;
const RECOGNISED = new Set<string>(STATUS_FILTERS);

/**
 * Read-time status derivation, in the order seed 002 describes: awaiting input on a
 * run that has not ended wins (even over an unrecognised stored value), then an
 * unrecognised stored value becomes 'unknown' (the retired completed/abandoned
 * included), then an active run silent past the cutoff becomes 'stale'; otherwise
 * the stored value passes through.
 */
export function deriveStatus(session: ClosedloopSession, nowMs: number): string {
  if (session.awaitingInput && session.endedAtMs === null) return 'waiting';
  if (!RECOGNISED.has(session.storedStatus)) return 'unknown';
  if (session.storedStatus === 'active' && nowMs - session.lastActivityAtMs > STALE_AFTER_MS)
    return 'stale';
  return session.storedStatus;
}

export function isIdle(session: ClosedloopSession): boolean {
  return (
    session.turnCount === 0 &&
    session.inputTokens + session.outputTokens === 0 &&
    session.toolUseCount === 0
  );
}

/** Offset paging of a list tool: `limit` (1 up to `max`) and `offset`. */
export function pagingShape(noun: string, max: number) {
  return {
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`Maximum ${noun} to return (at most ${max})`),
    offset: z.number().int().min(0).optional(),
  };
}

export const sharedFilterShape = {
  startDate: z.string().optional().describe('ISO 8601 date or timestamp (on or after)'),
  endDate: z.string().optional().describe('ISO 8601 date or timestamp (on or before)'),
  harness: z.string().optional().describe('Single agent harness, e.g. "claude-code", "codex"'),
  quality: z
    .enum(['substantive', 'idle', 'all'])
    .optional()
    .describe('Defaults to "substantive" (excludes idle 0-turn/0-token/0-tool sessions)'),
  viewerScope: z.enum(['self', 'organization', 'team']).optional(),
  teamId: z
    .string()
    .optional()
    .describe('UUID; required when viewerScope is "team", omit otherwise'),
};

export interface SharedFilters {
  startDate?: string | undefined;
  endDate?: string | undefined;
  harness?: string | undefined;
  quality?: 'substantive' | 'idle' | 'all' | undefined;
  viewerScope?: 'self' | 'organization' | 'team' | undefined;
  teamId?: string | undefined;
}

export type Filtered =
  | { readonly ok: true; readonly sessions: ClosedloopSession[]; readonly viewerScope: string }
  | { readonly ok: false; readonly error: CallToolResult };

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

function parseBound(
  value: string | undefined,
  name: string,
  endOfDay: boolean,
): number | CallToolResult | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(DATE_ONLY.test(value) ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(ms))
    return errorResult(400, 'validation_error', `${name} must be an ISO 8601 date or timestamp`);
  // A bare end date means the whole day ("on or before 2026-07-31").
  return endOfDay && DATE_ONLY.test(value) ? ms + 86_399_999 : ms;
}

/**
 * Monitoring access gate of the agent-session API (seed 002: "returns 403 even when the
 * MCP token has read scope"). On the wire this is a successful MCP exchange whose tool
 * result has isError: true, text "Error 403 (monitoring_disabled): …" and
 * structuredContent.error.status 403 — not an HTTP 403 on /mcp. The token is valid and
 * the same endpoint serves tools that do not need monitoring; an HTTP 403 would take
 * those down too, and the SDK client reads HTTP 403 as an OAuth scope step-up. A bad
 * or missing token stays an HTTP 401, so a client can tell the two apart.
 */
export function monitoringError(ctx: ToolContext): CallToolResult | undefined {
  if (ctx.state.monitoringEnabled) return undefined;
  return errorResult(
    403,
    'monitoring_disabled',
    'Agent-session monitoring is not enabled for this account or organization. ' +
      'The token is valid; an administrator must enable monitoring.',
  );
}

/**
 * Applies the filters shared by list, usage and analytics. `windowOn` picks the
 * timestamp the date window tests: lastActivityAt for list/usage, startedAt for
 * analytics.
 */
export function applySharedFilters(
  ctx: ToolContext,
  filters: SharedFilters,
  windowOn: 'lastActivityAt' | 'startedAt',
): Filtered {
  const denied = monitoringError(ctx);
  if (denied) return { ok: false, error: denied };
  const scope = filters.viewerScope ?? 'organization';
  if (scope === 'team' && filters.teamId === undefined) {
    return {
      ok: false,
      error: errorResult(400, 'validation_error', 'teamId is required when viewerScope is "team"'),
    };
  }
  if (scope !== 'team' && filters.teamId !== undefined) {
    return {
      ok: false,
      error: errorResult(
        400,
        'validation_error',
        'teamId must be omitted unless viewerScope is "team"',
      ),
    };
  }
  if (filters.teamId !== undefined) {
    if (!isUuid(filters.teamId)) {
      return { ok: false, error: errorResult(400, 'validation_error', 'teamId must be a UUID') };
    }
    if (!ctx.dataset.people.teams.some((t) => t.id === filters.teamId)) {
      return {
        ok: false,
        error: errorResult(404, 'not_found', `Team ${filters.teamId} was not found`),
      };
    }
  }
  const from = parseBound(filters.startDate, 'startDate', false);
  const to = parseBound(filters.endDate, 'endDate', true);
  if (typeof from === 'object') return { ok: false, error: from };
  if (typeof to === 'object') return { ok: false, error: to };
  const quality = filters.quality ?? 'substantive';
  const viewer = ctx.dataset.people.viewer;
  const sessions = ctx.dataset.closedloop.sessions.filter((s) => {
    if (scope === 'self' && s.user.id !== viewer.id) return false;
    if (scope === 'team' && !s.user.teamIds.includes(filters.teamId!)) return false;
    if (filters.harness !== undefined && s.harness !== filters.harness) return false;
    if (quality !== 'all' && isIdle(s) !== (quality === 'idle')) return false;
    const at = windowOn === 'startedAt' ? s.startedAtMs : s.lastActivityAtMs;
    if (from !== undefined && at < from) return false;
    if (to !== undefined && at > to) return false;
    return true;
  });
  return { ok: true, sessions, viewerScope: scope };
}

export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** A list-agent-sessions row with exactly the wire fields. */
export function sessionRow(session: ClosedloopSession, nowMs: number): Record<string, unknown> {
  return {
    id: session.id,
    slug: session.slug,
    externalSessionId: session.externalSessionId,
    name: session.name,
    status: deriveStatus(session, nowMs),
    harness: session.harness,
    model: session.model,
    repositoryFullName: session.repositoryFullName,
    baseBranch: session.baseBranch,
    startedAt: iso(session.startedAtMs),
    lastActivityAt: iso(session.lastActivityAtMs),
    endedAt: iso(session.endedAtMs),
    estimatedCost: session.estimatedCost,
    inputTokens: session.inputTokens,
    outputTokens: session.outputTokens,
    cacheReadTokens: session.cacheReadTokens,
    cacheWriteTokens: session.cacheWriteTokens,
    agentCount: session.agentCount,
    toolUseCount: session.toolUseCount,
    errorCount: session.errorCount,
    user: {
      id: session.user.id,
      email: session.user.email,
      firstName: session.user.firstName,
      lastName: session.user.lastName,
    },
  };
}

/**
 * Resolves a sessionId argument that must be the artifact UUID. The SES-* slug is
 * refused with a message that says what to pass instead.
 */
export function findSessionById(
  ctx: ToolContext,
  sessionId: string,
): { ok: true; session: ClosedloopSession } | { ok: false; error: CallToolResult } {
  if (/^SES-/i.test(sessionId)) {
    return {
      ok: false,
      error: errorResult(
        400,
        'validation_error',
        `sessionId must be the session UUID (the "id" field from list-agent-sessions), not the slug ${sessionId}`,
      ),
    };
  }
  if (!isUuid(sessionId)) {
    return { ok: false, error: errorResult(400, 'validation_error', 'sessionId must be a UUID') };
  }
  const session = ctx.dataset.closedloop.byId.get(sessionId.toLowerCase());
  if (!session)
    return {
      ok: false,
      error: errorResult(404, 'not_found', `Agent session ${sessionId} was not found`),
    };
  return { ok: true, session };
}
