/**
 * The transcript entries as both sides of postMessage see them: the host builds them
 * (src/domain/transcript/normalize/*), the webview app renders them. Plain data only — no
 * classes, no functions, no Maps. The host-side model (windows, sources, PREVIEW_CHARS) is in
 * src/domain/transcript/model.ts, which re-exports these.
 */

export type EntryKind =
  | 'user'
  | 'assistant'
  | 'thinking'
  | 'tool-call'
  | 'compaction'
  | 'system'
  | 'subagent'
  | 'error'
  | 'unknown';

/** Text fields that can be truncated and fetched in full. */
export type TextPart = 'text' | 'input' | 'output';

/**
 * Where an entry came from, 1-based and inclusive: JSONL line numbers for files (a
 * pretty-printed record spans several lines), positions in the event or message list for
 * API responses.
 */
export interface SourceSpan {
  first: number;
  last: number;
}

/** Tokens of one model turn (one API response), where the source records them. */
export interface TokenUsage {
  /** Uncached input tokens (Claude: input_tokens; Codex: input minus cached). */
  input?: number;
  cacheRead?: number;
  cacheWrite?: number;
  output?: number;
  /** Part of `output` spent on reasoning (Codex). */
  reasoning?: number;
  total?: number;
}

/** A file named in a tool call's input, for "open in editor". */
export interface FileRef {
  /** Absolute when the transcript says where the agent ran (cwd/workdir), else as written. */
  path: string;
  /** 1-based first line, when the input names one (Read offset, sed -n ranges). */
  line?: number;
  endLine?: number;
}

export interface Attachment {
  /** 'image', 'document', … (the block type as written). */
  type: string;
  mediaType?: string;
  /** Decoded size when known (base64 length × 3/4). The data itself is never sent. */
  bytes?: number;
  name?: string;
}

/** Where a subagent's own transcript lives. */
export interface SubagentRef {
  agentId: string;
  /** Closedloop transcript file key: `subagent:<agentId>`. */
  fileKey: string;
  /** Local file (`<dir>/<sessionId>/subagents/agent-<agentId>.jsonl`) when the parent is a local file. */
  path?: string;
}

interface EntryBase {
  /** Position in the transcript, 0-based. Stable while the file only grows. */
  index: number;
  kind: EntryKind;
  source: SourceSpan;
  /** ISO 8601 as written by the source. */
  timestamp?: string;
  /** The record's own id (Claude uuid, event id), when it has one. */
  id?: string;
  /**
   * Groups entries of one model response (Claude Code writes each content block of a
   * response as its own line with the same message.id).
   */
  turnId?: string;
  /** Inline subagent (Claude Code 1.0.x `isSidechain`), or a line of a subagent file. */
  sidechain?: boolean;
  /** Set on the last entry of a model turn, where the source records usage. */
  usage?: TokenUsage;
  /** True when any text part was cut to PREVIEW_CHARS. */
  truncated: boolean;
  truncatedParts?: TextPart[];
  /** Full length in characters of each truncated part. */
  fullLength?: Partial<Record<TextPart, number>>;
}

export interface UserEntry extends EntryBase {
  kind: 'user';
  text: string;
  /**
   * prompt: typed by a person; meta: harness-injected context (caveats, environment,
   * AGENTS.md); command: a slash command and its output; compact-summary: the summary a
   * compaction put in place of the history; interrupt: "[Request interrupted by user]".
   */
  variant: 'prompt' | 'meta' | 'command' | 'compact-summary' | 'interrupt';
  attachments?: Attachment[];
}

export interface AssistantEntry extends EntryBase {
  kind: 'assistant';
  text: string;
  model?: string;
  /** A synthetic message the harness wrote for a failed API call. */
  apiError?: boolean;
  /** The text is JSON (REST structured_output). */
  json?: boolean;
}

export interface ThinkingEntry extends EntryBase {
  kind: 'thinking';
  text: string;
  /** Always true: thinking renders collapsed until expanded. */
  collapsed: true;
  /** The model returned encrypted or redacted reasoning only. */
  redacted?: boolean;
}

export interface ToolCallEntry extends EntryBase {
  kind: 'tool-call';
  /** tool_use id / call_id / tool_call_id ('' when the source has none). */
  callId: string;
  name: string;
  /** Input as pretty JSON (or the raw string when the input is not JSON). */
  input: string;
  /** One line for the collapsed row: the command, path or pattern. */
  summary: string;
  files: FileRef[];
  /**
   * pending: no result in the transcript (yet). abandoned: no result, and the turn it
   * belonged to ended (a new prompt, an interruption, Codex task_complete / turn_aborted),
   * so none will come — as the session's status reads it.
   */
  status: 'ok' | 'error' | 'pending' | 'abandoned';
  output?: string;
  isError?: boolean;
  resultSource?: SourceSpan;
  resultTimestamp?: string;
  /** A result whose call is missing from the transcript (or a duplicate result). */
  orphanResult?: boolean;
  /** A client-side tool the service waits for (REST client_tool_pending). */
  client?: boolean;
  /** Set when the call spawned a subagent (Claude Code Task/Agent). */
  subagent?: SubagentRef;
}

export interface CompactionEntry extends EntryBase {
  kind: 'compaction';
  /** Summary text when the source carries it (Codex, REST); '' for a bare marker. */
  text: string;
  trigger?: string;
  preTokens?: number;
  turnsCompacted?: number;
  eventsCompacted?: number;
}

export interface SystemEntry extends EntryBase {
  kind: 'system';
  /** The source's own subtype ('turn_duration', 'session_meta', 'step_transition', …). */
  subtype: string;
  text: string;
  level?: 'info' | 'warning' | 'error';
  attachments?: Attachment[];
}

/** A subagent spawned by a tool call; appears where the subagent's result arrived. */
export interface SubagentEntry extends EntryBase, SubagentRef {
  kind: 'subagent';
  /** The task prompt given to the subagent. */
  text: string;
  callId?: string;
  agentType?: string;
  description?: string;
  status?: string;
  totalTokens?: number;
  durationMs?: number;
  toolUseCount?: number;
}

/** A line (or pretty-printed group of lines) that is not valid JSON. */
export interface ErrorEntry extends EntryBase {
  kind: 'error';
  message: string;
  /** The first EXCERPT_CHARS characters of the line; fullText(i) returns all of it. */
  excerpt: string;
}

/** A record of a type this version does not know: kept and shown, never dropped. */
export interface UnknownEntry extends EntryBase {
  kind: 'unknown';
  /** The record's type as written ('' when it has none). */
  type: string;
  /** The record as pretty JSON (capped like any text part; part 'text'). */
  raw: string;
}

export type TranscriptEntry =
  | UserEntry
  | AssistantEntry
  | ThinkingEntry
  | ToolCallEntry
  | CompactionEntry
  | SystemEntry
  | SubagentEntry
  | ErrorEntry
  | UnknownEntry;

export interface SearchResult {
  /** The match's entry index, or null when nothing matches. */
  index: number | null;
  /** 1-based position of `index` among all matches (0 when none). */
  ordinal: number;
  /** Entries that match (in the indexed part while indexing). */
  total: number;
  /** False while indexing: more matches may appear. */
  complete: boolean;
}
