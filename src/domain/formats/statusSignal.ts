/**
 * The vocabulary every format module speaks: what one record says about the session's
 * state. The local scanner keeps the last such signal as the session's status
 * (src/sources/local/types.ts LastEntryKind is an alias of it); the transcript normaliser
 * reports it per record (NormalizedRecord.signal) and closes open tool calls with it.
 */
export type StatusSignal =
  /** No meaningful entry yet (or the record says nothing about the state). */
  | 'none'
  /** A real user prompt the agent has not answered yet. */
  | 'user-prompt'
  /** "[Request interrupted by user]" (Claude Code) or turn_aborted (Codex). */
  | 'interrupted'
  /** A tool result went back to the model; the agent continues. */
  | 'tool-result'
  /** The agent called a tool and no result came back yet. */
  | 'tool-call'
  /** Mid-turn model output (thinking, reasoning, task_started). */
  | 'assistant-progress'
  /** Assistant text whose turn end is not (yet) confirmed by a stop reason. */
  | 'assistant-text'
  /** The assistant ended its turn (end_turn, turn_duration, task_complete, final message). */
  | 'turn-end'
  /** An explicit request for the user's approval or input (persisted approval events). */
  | 'approval'
  /** An API error line, an error event. */
  | 'api-error';

/**
 * A record's signal: a status, or `confirms-turn-end` for a record that ends the turn
 * only when an assistant text was the last word (Claude Code's stop-hook / turn-duration
 * lines, Codex's token_count after a final message).
 */
export type RecordSignal = StatusSignal | 'confirms-turn-end';

/** The status after a record with `signal`, given the status before it. */
export function nextStatus(before: StatusSignal, signal: RecordSignal): StatusSignal {
  if (signal === 'confirms-turn-end') return before === 'assistant-text' ? 'turn-end' : before;
  return signal === 'none' ? before : signal;
}
