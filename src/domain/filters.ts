/**
 * Filters a user can set on a connection's session list. They follow the
 * `list-agent-sessions` arguments; validation happens here, before any request,
 * so a scope/team mismatch is explained instead of sent.
 */
export interface SessionFilters {
  harness?: string;
  status?: 'active' | 'waiting' | 'inactive' | 'error' | 'stale' | 'unknown';
  /** ISO date or timestamp; activity window on lastActivityAt. */
  startDate?: string;
  endDate?: string;
  quality?: 'substantive' | 'idle' | 'all';
  viewerScope?: 'self' | 'team' | 'organization';
  teamId?: string;
  userId?: string;
}

export const FILTER_STATUSES = [
  'active',
  'waiting',
  'inactive',
  'error',
  'stale',
  'unknown',
] as const;
export const FILTER_QUALITIES = ['substantive', 'idle', 'all'] as const;
export const FILTER_SCOPES = ['self', 'team', 'organization'] as const;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Returns what is wrong, or undefined when the filters can be sent. */
export function validateFilters(filters: SessionFilters): string | undefined {
  if (filters.viewerScope === 'team' && !filters.teamId) {
    return 'Viewer scope "team" needs a team ID.';
  }
  if (filters.teamId && filters.viewerScope !== 'team') {
    return 'A team ID can only be used with viewer scope "team".';
  }
  if (filters.teamId && !UUID.test(filters.teamId)) return 'The team ID must be a UUID.';
  if (filters.userId && !UUID.test(filters.userId)) return 'The user ID must be a UUID.';
  for (const [name, value] of [
    ['start date', filters.startDate],
    ['end date', filters.endDate],
  ] as const) {
    if (value && Number.isNaN(Date.parse(value))) return `The ${name} must be an ISO 8601 date.`;
  }
  // A bare end date means the whole day ("on or before 2026-07-31"), as the server reads it.
  if (
    filters.startDate &&
    filters.endDate &&
    Date.parse(filters.startDate) >
      Date.parse(filters.endDate) + (DATE_ONLY.test(filters.endDate) ? 86_399_999 : 0)
  ) {
    return 'The start date is after the end date.';
  }
  return undefined;
}

/** The arguments for list-agent-sessions: only the set filters. */
export function filterArguments(filters: SessionFilters): Record<string, string> {
  const args: Record<string, string> = {};
  for (const [key, value] of Object.entries(filters)) {
    if (typeof value === 'string' && value !== '') args[key] = value;
  }
  return args;
}

/** A short summary for the view's description, e.g. "claude-code · waiting · since 2026-07-01". */
export function describeFilters(filters: SessionFilters): string {
  const parts: string[] = [];
  if (filters.harness) parts.push(filters.harness);
  if (filters.status) parts.push(filters.status);
  if (filters.startDate) parts.push(`since ${filters.startDate}`);
  if (filters.endDate) parts.push(`until ${filters.endDate}`);
  if (filters.quality && filters.quality !== 'substantive')
    parts.push(`${filters.quality} sessions`);
  if (filters.viewerScope)
    parts.push(filters.viewerScope === 'team' ? 'team' : filters.viewerScope);
  if (filters.userId) parts.push('one user');
  return parts.join(' · ');
}

/** Case-insensitive text match on what the tree shows of a session. */
export function matchesText(
  session: {
    label: string;
    harness?: string;
    model?: string;
    repository?: string;
    user?: string;
    branch?: string;
  },
  text: string,
): boolean {
  const needle = text.trim().toLowerCase();
  if (!needle) return true;
  return [
    session.label,
    session.harness,
    session.model,
    session.repository,
    session.user,
    session.branch,
  ].some((v) => v?.toLowerCase().includes(needle));
}
