/**
 * Types shared by the local transcript scanners (Claude Code, Codex), the cache, the
 * aggregation and the LocalSource. Pure data: no I/O here.
 */
import type { SourceProblem } from '../sessionSource.ts';
import type { StatusSignal } from '../../domain/formats/statusSignal.ts';

export type Harness = 'claude-code' | 'codex';

/** A problem found in a local file, with its 1-based line number when it has one. */
export type LocalProblem = SourceProblem;

/**
 * Tokens of one model response (Claude Code, already de-duplicated per
 * (message.id, requestId) inside one file) or of one Codex token_count delta.
 * `input` never includes cached tokens; `reasoning` is informational (a part of
 * `output`, which is what is billed).
 */
export interface UsageRecord {
  model: string | undefined;
  /** Epoch ms of the line that first carried this response (NaN: no timestamp). */
  ms: number;
  input: number;
  output: number;
  cacheRead: number;
  /** All cache writes (5 minute and 1 hour). */
  cacheWrite: number;
  /** The part of `cacheWrite` written with the 1 hour TTL (priced higher). */
  cacheWrite1h: number;
  reasoning: number;
  /** An agent_progress copy of a subagent's response: the subagent, when it is named. */
  agentId?: string;
}

/** What the last meaningful entry of a transcript says, for the derived status: the format modules' signal. */
export type LastEntryKind = StatusSignal;

export interface LastEntryFacts {
  kind: LastEntryKind;
  /** ISO timestamp of that entry, when it had one. */
  timestamp?: string;
  /** 1-based line of that entry. */
  line?: number;
  /** The turn-ending text asks the user something (see localStatus.ts). */
  asksUser?: boolean;
  /** A tool result flagged is_error. */
  isError?: boolean;
  /** Claude Code: a system api_error line announced a retry. */
  retrying?: boolean;
  /** Names of the tool calls still without a result. */
  pendingTools: string[];
  /** Codex: a pending call asks to run outside the sandbox (needs approval). */
  escalation?: boolean;
  /** Codex: the turn's approval_policy (`untrusted` asks before every command). */
  approvalPolicy?: string;
  /** Short description for the status tooltip (e.g. the tool name or error text). */
  detail?: string;
}

/** A subagent the parent mentions (Task result toolUseResult.agentId, agent_progress). */
export interface SubagentLink {
  agentId: string;
  toolUseId?: string;
}

/** Everything one scanner knows about one file; rebuilt cheaply after every read. */
export interface FileSummary {
  path: string;
  harness: Harness;
  role: 'session' | 'subagent';
  sessionId?: string;
  agentId?: string;
  cwd?: string;
  gitBranch?: string;
  /** `owner/name` (or the URL) of the git remote when the transcript records one. */
  gitRemote?: string;
  version?: string;
  /** Models in order of first use (synthetic placeholders excluded). */
  models: string[];
  /** The model that produced the most responses. */
  mainModel?: string;
  firstTimestamp?: string;
  lastTimestamp?: string;
  firstMs: number;
  lastMs: number;
  /**
   * Claude Code `/rename` title, else the first real user prompt (whitespace collapsed,
   * at most TITLE_MAX characters).
   */
  title?: string;
  /** Claude Code `ai-title` or `summary` line (a fallback title). */
  summaryTitle?: string;
  /**
   * Claude Code: this file's own responses by `message.id:requestId` (max per field).
   * Codex: one record per token_count delta, keyed by line number.
   */
  usage: ReadonlyMap<string, UsageRecord>;
  /** Claude Code: agent_progress copies of subagent responses, by the same key. */
  copies: ReadonlyMap<string, UsageRecord>;
  subagents: SubagentLink[];
  last: LastEntryFacts;
  /** Has at least one user prompt or model response (the `substantive` filter). */
  substantive: boolean;
  /** The format carries no token accounting at all (Codex legacy): tokens are unknown. */
  noTokenInfo: boolean;
  problems: LocalProblem[];
  lines: number;
  bytes: number;
}

/** Titles and details are cut to this many characters. */
export const TITLE_MAX = 160;

/** A subagent's optional `agent-<agentId>.meta.json`. */
export interface SubagentMeta {
  agentType?: string;
  description?: string;
  toolUseId?: string;
}

/** What reading a subagent's meta file gave. */
export interface MetaRead {
  meta?: SubagentMeta;
  problem?: LocalProblem;
}
