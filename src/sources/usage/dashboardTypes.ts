/**
 * The usage dashboard of one connection as plain data (it crosses to a webview).
 * Every number is optional: a server that leaves one out gets a gap, never a 0.
 */

export interface UsageBreakdownRow {
  /** The grouping value as sent (model id, harness, repository, user id); '' when null. */
  key: string;
  /** What to show: the user's name or email for users, else the key ("(none)" for ''). */
  label: string;
  sessionCount?: number;
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** USD. */
  estimatedCost?: number;
}

export interface ToolUseRow {
  tool: string;
  useCount?: number;
  sessionCount?: number;
}

export interface AgentTypeRow {
  agentType: string;
  agentCount?: number;
  sessionCount?: number;
}

export interface ActivityRow {
  key: string;
  label: string;
  sessionCount?: number;
  toolUseCount?: number;
  errorCount?: number;
  estimatedCost?: number;
}

export interface DashboardTotals {
  sessions?: number;
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  estimatedCost?: number;
  /** Covered by subscriptions. */
  subscriptionCost?: number;
  /** Billed as API-key compute. */
  apiCost?: number;
}

export interface DashboardAnalytics {
  totalSessions?: number;
  byTool: ToolUseRow[];
  byAgentType: AgentTypeRow[];
  byRepository: ActivityRow[];
  byProject: ActivityRow[];
}

export interface CostPoint {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  sessionCount: number;
  /** USD, over the sessions whose cost is known. */
  estimatedCost: number;
  inputTokens: number;
  outputTokens: number;
  /** Sessions that day without a cost (not counted as $0). */
  unknownCostSessions: number;
}

export interface CostSeries {
  /** 'tool': a series the usage tool sent; 'sessions': summed from list-agent-sessions rows. */
  source: 'tool' | 'sessions';
  /** Which timestamp puts a session on a day. */
  basis: 'lastActivityAt' | 'reported';
  points: CostPoint[];
  /** Session rows read to build it (sessions source). */
  sessionsRead: number;
  /** False when the rows were capped: the series covers only the most recent ones. */
  complete: boolean;
}

export interface DashboardData {
  viewerScope?: string;
  totals: DashboardTotals;
  byUser: UsageBreakdownRow[];
  byModel: UsageBreakdownRow[];
  byHarness: UsageBreakdownRow[];
  byRepository: UsageBreakdownRow[];
  /** Undefined when the server has no analytics tool or it failed (see problems). */
  analytics?: DashboardAnalytics;
  /** Undefined when no series could be built (see problems). */
  costOverTime?: CostSeries;
  /** Rows in any part that could not be read. */
  invalidRows: number;
  /** Parts that could not be loaded, in words; the rest is still shown. */
  problems: string[];
}
