/**
 * The message protocol between the extension host and the usage dashboard webview
 * (dist/webview/dashboard.js). Separate from the session panel's protocol: the two
 * webviews share no messages. Every text field is untrusted backend text, bound as
 * text on the webview side; numbers are drawn, strings are shown as sent by the host
 * (costs and counts are pre-formatted there so both sides agree on wording).
 */
import type { MessageOf, MessageSchema } from './messageSchema.ts';
import { messageGuard, oneOf } from './messageSchema.ts';
import type { WebviewL10n } from './protocol.ts';

/** The date windows the dashboard asks for: the last 7, 30 or 90 days, or everything. */
export const DASHBOARD_RANGES = [7, 30, 90, null] as const;
export type DashboardRange = (typeof DASHBOARD_RANGES)[number];
const isRange = oneOf(...DASHBOARD_RANGES);

export interface DashboardTotalsView {
  sessions?: number;
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Part of outputTokens (local Codex sessions report it); absent where unknown. */
  reasoningTokens?: number;
  /** Pre-formatted ("$12.34", "cost unknown"). */
  cost: string;
  /** Covered by subscriptions, pre-formatted; absent when the server sent no split. */
  subscriptionCost?: string;
  /** Billed as API-key compute, pre-formatted; absent when the server sent no split. */
  apiCost?: string;
  /** Share of the known split paid by subscriptions, 0..1 (absent without a split). */
  subscriptionShare?: number;
}

/** One day of the cost-over-time series. */
export interface DashboardPointView {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  /** USD over the sessions whose cost is known (drawn). */
  cost: number;
  /** Pre-formatted cost of the day. */
  costText: string;
  sessions: number;
  inputTokens: number;
  outputTokens: number;
  /** Sessions that day without a known cost. */
  unknownCostSessions: number;
}

export interface DashboardSeriesView {
  points: DashboardPointView[];
  /** Where the series came from and what puts a session on a day, in words. */
  note: string;
  /** Totals of the series, pre-formatted. */
  totalCost: string;
}

export type BreakdownId =
  'model' | 'harness' | 'repository' | 'user' | 'tool' | 'agentType' | 'project';

export interface BreakdownRowView {
  /** What to show (model id, harness, repository, user name, tool…); untrusted text. */
  label: string;
  /** What the bar draws (USD, uses, sessions…); never negative. */
  value: number;
  /** The drawn value in words ("$1.23", "1,234 uses"). */
  valueText: string;
  /** One pre-formatted cell per column of the breakdown ('—' for a gap, never 0). */
  cells: string[];
}

/** A horizontal bar chart with its table alternative. */
export interface BreakdownView {
  id: BreakdownId;
  /** "By model". */
  title: string;
  /** What the bars measure: "Estimated cost", "Uses", "Sessions". */
  measure: string;
  /** Column headers of the table alternative (after the label column). */
  columns: string[];
  /** Header of the label column: "Model", "Tool"… */
  labelColumn: string;
  rows: BreakdownRowView[];
}

export interface DashboardView {
  connectionLabel: string;
  range: DashboardRange;
  /** "Last 30 days", "All time". */
  rangeText: string;
  /** The filters the numbers follow, in words ("harness codex; team scope"); '' for none. */
  filtersText: string;
  /** The server's viewer scope, when it said. */
  viewerScope?: string;
  totals: DashboardTotalsView;
  /** Absent when no series could be built (problems say why). */
  series?: DashboardSeriesView;
  /** Only breakdowns with rows. */
  breakdowns: BreakdownView[];
  /** Parts that could not be loaded, in words. */
  problems: string[];
}

/**
 * What the dashboard keeps with `setState` so that VS Code can restore its tab after a
 * reload: the connection it shows and the range it shows it for.
 */
export interface DashboardPanelState {
  connectionId: string;
  range: DashboardRange;
}

/** Host → dashboard. `state` is for the webview to keep (see DashboardPanelState). */
export type HostToDashboard =
  /** The answer to `ready`, before anything else: language and translations. */
  | { type: 'init'; l10n: WebviewL10n }
  | { type: 'data'; view: DashboardView; state: DashboardPanelState }
  | { type: 'loading' }
  | { type: 'failed'; message: string };

/**
 * Dashboard → host, written once (see messageSchema.ts): the type, the host's validator
 * and the dashboard's handler table come from this list. `ready` is the handshake: the
 * host posts nothing before it.
 */
export const DASHBOARD_MESSAGES = {
  ready: {},
  refresh: {},
  setRange: { days: isRange },
} as const satisfies MessageSchema;

export type DashboardToHost = MessageOf<typeof DASHBOARD_MESSAGES>;

/** The host acts only on messages of the protocol, with fields of the right types. */
export const isDashboardMessage = messageGuard(DASHBOARD_MESSAGES);

/** A restored tab's state is the webview's: checked before the host trusts it. */
export function isDashboardPanelState(value: unknown): value is DashboardPanelState {
  if (!value || typeof value !== 'object') return false;
  const state = value as Record<string, unknown>;
  return (
    typeof state.connectionId === 'string' && state.connectionId !== '' && isRange(state.range)
  );
}

/** The range in words, shared by both sides. */
export function rangeText(range: DashboardRange): string {
  return range === null ? 'All time' : `Last ${range} days`;
}
