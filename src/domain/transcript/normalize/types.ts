/**
 * The contract between the file index and a JSONL format (Claude Code, Codex).
 *
 * Indexing never parses: a format's RecordCollector reads a few values from the fields
 * the byte scanner skimmed (src/domain/json) and *plans* each record — how many entries it will produce and what kind of
 * record it is — while pairing tool calls with their results by id. Windows later parse
 * only the records they show, and the format's normalize() turns one record into exactly
 * the planned number of entries (the document checks, and pads or trims if a format and
 * its collector ever disagree).
 */
import { IdSet } from '../idSet.ts';
import type { Fields, Nested } from '../../json/skim.ts';
import type { RecordSignal } from '../../formats/statusSignal.ts';
import type { FileFormat, SourceSpan, SubagentRef, TokenUsage, TranscriptEntry } from '../model.ts';

/** Record kinds, one byte per record, for scans over neighbours (turns, token counts). */
export const RK_HIDDEN = 0;
/** User input that opens a turn. */
export const RK_PROMPT = 1;
/** Model output: text, thinking, tool calls. */
export const RK_MODEL = 2;
/** Tool results only. */
export const RK_RESULT = 3;
export const RK_SYSTEM = 4;
export const RK_UNKNOWN = 5;
export const RK_ERROR = 6;
/** Codex token_count events (hidden, feed per-turn usage). */
export const RK_TOKENS = 7;

export interface RecordPlan {
  kind: number;
  /** Entries this record produces. */
  rows: number;
  /** Model response id (Claude message.id) grouping the records of one turn. */
  group?: string;
  /** For hidden records: the type counted in TranscriptInfo.hidden. */
  hiddenType?: string;
  /** Where the agent ran, when the record says (Codex session_meta). */
  cwd?: string;
}

/** Tool call ↔ result pairing, built while indexing. */
export interface Pairing {
  /** callId → record declaring the call (first declaration wins). */
  readonly calls: Map<string, number>;
  /** callId → record holding the call's result (only when the call came first). */
  readonly results: Map<string, number>;
  /**
   * Calls declared and without a result yet. The index keeps this and `abandoned`; a
   * pairing without them (a collector driven on its own) never abandons a call.
   */
  readonly open?: Set<string>;
  /**
   * callId → record that ended the call's turn while it had no result (a new prompt, an
   * interruption, Codex task_complete / turn_aborted): the call will not get one. A result
   * that still comes later wins.
   */
  readonly abandoned?: Map<string, number>;
  /**
   * Hashes of the record ids seen so far (Claude Code `uuid`, and `m:<message.id>` of each
   * run of a response's lines): a record written again later — a resumed session writing
   * its history again — is hidden, and a response seen before shows no usage again.
   */
  readonly seen?: IdSet;
}

/** A pairing with everything the index keeps. */
export function newPairing(): Required<Pairing> {
  return {
    calls: new Map(),
    results: new Map(),
    open: new Set(),
    abandoned: new Map(),
    seen: new IdSet(),
  };
}

/** The calls still open were left behind by the record `record` (see Pairing.abandoned). */
export function abandonOpenCalls(pairing: Pairing, record: number): void {
  const { open, abandoned } = pairing;
  if (!open || !abandoned || open.size === 0) return;
  for (const id of open) abandoned.set(id, record);
  open.clear();
}

export interface RecordCollector {
  /** What the skim reads along with each record's fields (see Nested): the collector's own. */
  readonly nested: Nested;
  /**
   * A record that is valid JSON: plan it from its skimmed fields (`fields` undefined when
   * it is not an object) and `nested`, and register its calls and results.
   */
  plan(fields: Fields | undefined, pairing: Pairing, record: number): RecordPlan;
}

export interface NormalizeContext {
  record: number;
  source: SourceSpan;
  /** Cap per text field (PREVIEW_CHARS for windows, Infinity for fullText and search). */
  maxChars: number;
  /** True when this record holds the result paired with call `callId`. */
  pairedHere(callId: string): boolean;
  /** Where a subagent's transcript file is, when the parent is a local file. */
  subagentPath(agentId: string): string | undefined;
  /** Where the agent ran, when known from elsewhere in the file. */
  cwd: string | undefined;
}

/** A tool result absorbed into its call's entry. */
export interface ToolResultPart {
  callId: string;
  output: string;
  /** Full length when `output` was capped. */
  outputLength?: number;
  isError: boolean;
  timestamp?: string;
  source: SourceSpan;
  subagent?: SubagentRef;
}

export interface NormalizedRecord {
  /** Entries with index -1 (the document assigns indices). */
  entries: TranscriptEntry[];
  results: ToolResultPart[];
  /** Claude Code: this assistant line's message.usage. */
  usage?: TokenUsage;
  /** Codex token_count: cumulative totals (null when the event has no info). */
  cumulative?: TokenUsage | null;
  /**
   * What the record says about the session's state, read by the format module
   * (src/domain/formats): the same signal the local scanner's status takes from the line.
   */
  signal?: RecordSignal;
  /** Subagent calls (Task/Agent) declared here: callId → what the call asked for. */
  subagentCalls?: Record<string, { agentType?: string; description?: string }>;
}

export interface FormatAdapter {
  readonly format: FileFormat;
  createCollector(): RecordCollector;
  normalize(value: unknown, ctx: NormalizeContext): NormalizedRecord;
}
