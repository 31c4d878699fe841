/**
 * Itential's describe_session answers, as one module: the message types of older servers
 * and what each becomes, the tool statuses that mean failure, and the token-usage fields
 * of describe_session_token_usage. The transcript normaliser
 * (src/domain/transcript/normalize/itential.ts) reads sessions through it.
 */

/** What a legacy `messages[].type` is: the agent's output, interim reasoning, a tool's run. */
export type ItentialMessageKind = 'assistant' | 'thinking' | 'tool-result' | 'system' | 'unknown';

const MESSAGE_KINDS: ReadonlyMap<string, ItentialMessageKind> = new Map([
  ['inference-succeeded', 'assistant'],
  ['inference', 'thinking'],
  ['tool-call', 'thinking'],
  ['tool-result', 'tool-result'],
  ['session-status', 'system'],
  ['inference-pending', 'system'],
]);

export function messageKind(type: string): ItentialMessageKind {
  return MESSAGE_KINDS.get(type) ?? 'unknown';
}

/** A tool execution's `status` (lower-cased) that marks it failed. */
export const FAILED_STATUSES: ReadonlySet<string> = new Set(['error', 'failed', 'failure']);

/** The system entry subtype of a manual task the agent waits on (a person must act). */
export const MANUAL_TASK_SUBTYPE = 'manual-task';

/** describe_session_token_usage turn fields → transcript usage fields. */
export const USAGE_FIELDS: readonly (readonly [
  'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'total',
  string,
])[] = [
  ['input', 'input_tokens'],
  ['output', 'output_tokens'],
  ['cacheRead', 'cache_read_tokens'],
  ['cacheWrite', 'cache_creation_tokens'],
  ['total', 'total_tokens'],
];
