/**
 * A transcript scanner's state at rest (after a read reached the file's end), as plain
 * data: what a scan helper sends back with a file's summary, and what the persisted index
 * keeps, so that a later read continues from the file's end in another thread, process or
 * window. Usage records travel beside it (packed, see packedUsage.ts), not in it.
 * Memos of the last bytes seen (ids, repeated fields) are not kept: a resumed scanner
 * decodes its first line in full, with the same result.
 */
import type { LastEntryFacts, LocalProblem, SubagentLink } from './types.ts';

/**
 * Bump when a scanner reads the same bytes into different state or summaries (a new
 * signal, a fixed count): a persisted index written by another scanner version is rebuilt.
 */
export const SCANNER_STATE_VERSION = 1;

/** What LineScanner keeps between reads. */
export interface BaseScannerState {
  lines: number;
  bytes: number;
  lineEnd: number;
  /** The last line, not finished yet. */
  pending?: Uint8Array;
  /** A pretty-printed entry not closed yet. */
  pretty?: {
    startLine: number;
    parts: Uint8Array[];
    bytes: number;
    depth: number;
    inString: boolean;
  };
  problems: LocalProblem[];
  droppedProblems: number;
  counted: [string, { kind: string; first: number; count: number; message: string }][];
}

/** EntryTimes; null for NaN (JSON has no NaN). */
export interface EntryTimesState {
  firstMs: number | null;
  lastMs: number | null;
  firstText?: string;
  lastText?: string;
  entryMs: number | null;
  entryText?: string;
  decidingMs: number | null;
  decidingText?: string;
}

export interface ClaudeCodeScannerState {
  harness: 'claude-code';
  base: BaseScannerState;
  role: 'session' | 'subagent';
  sessionId?: string;
  agentId?: string;
  cwd?: string;
  gitBranch?: string;
  version?: string;
  title?: string;
  summaryTitle?: string;
  customTitle?: string;
  aiTitle?: string;
  times: EntryTimesState;
  /** Models in order of first use, with their response counts. */
  models: [string, number][];
  links: SubagentLink[];
  /** Tool calls without a result: id, tool name. */
  pendingTools: [string, string][];
  last: LastEntryFacts;
  substantive: boolean;
}

export interface CodexScannerState {
  harness: 'codex';
  base: BaseScannerState;
  sessionId?: string;
  cwd?: string;
  gitBranch?: string;
  gitRemote?: string;
  version?: string;
  model?: string;
  approvalPolicy?: string;
  title?: string;
  times: EntryTimesState;
  models: [string, number][];
  prevTotal?: { input: number; cached: number; output: number; reasoning: number };
  sawTokenCount: boolean;
  legacy: boolean;
  pendingCalls: [string, { name: string; escalation: boolean }][];
  last: LastEntryFacts;
  substantive: boolean;
}

export type ScannerState = ClaudeCodeScannerState | CodexScannerState;

/** NaN as null, for JSON. */
export function nullable(ms: number): number | null {
  return Number.isNaN(ms) ? null : ms;
}

/** null (or anything not a number) as NaN. */
export function orNaN(ms: number | null | undefined): number {
  return typeof ms === 'number' ? ms : NaN;
}

/** A copy of the facts (the scanner keeps changing its own object). */
export function copyFacts(last: LastEntryFacts): LastEntryFacts {
  return { ...last, pendingTools: [...last.pendingTools] };
}
