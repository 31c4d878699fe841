/**
 * What Codex rollout lines say about tool calls and turns, read the same way by the
 * transcript normaliser (codex.ts) and the local scanner (src/sources/local/codexScan.ts).
 * Which versions write each signal: docs/local-status.md.
 */

/** Response items that call a tool (paired with an output by call_id). */
export const CODEX_CALL_TYPES: ReadonlySet<string> = new Set([
  'function_call',
  'custom_tool_call',
  'local_shell_call',
]);

/** Response items that carry a call's output. */
export const CODEX_OUTPUT_TYPES: ReadonlySet<string> = new Set([
  'function_call_output',
  'custom_tool_call_output',
]);

/**
 * event_msg types after which a call still without output will not get one: a new user
 * message, the end of the task (turn), or its abortion. The status stops waiting for such
 * a call; the transcript shows it as abandoned.
 */
export const CODEX_CALL_CLOSING_EVENTS: ReadonlySet<string> = new Set([
  'user_message',
  'task_complete',
  'turn_complete',
  'turn_aborted',
]);
