/**
 * Codex CLI's rollout format (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`), as one
 * module: its envelopes and response items, what each says about the turn (end-of-turn,
 * waiting, error signals), its cumulative token totals. The transcript normaliser
 * (src/domain/transcript/normalize/codex.ts) and the local scanner
 * (src/sources/local/codexScan.ts) both read lines through it, so a new signal is taught
 * here once. Which versions write each signal: docs/local-status.md.
 */
import type { RecordSignal, StatusSignal } from './statusSignal.ts';

/** `type` of the current `{timestamp, type, payload}` envelopes. */
export const CODEX_ENVELOPES: ReadonlySet<string> = new Set([
  'session_meta',
  'response_item',
  'event_msg',
  'turn_context',
  'compacted',
]);

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

/** Response item types (legacy files write them bare, without the envelope). */
export const CODEX_ITEM_TYPES: ReadonlySet<string> = new Set([
  'message',
  'reasoning',
  ...CODEX_CALL_TYPES,
  ...CODEX_OUTPUT_TYPES,
  'web_search_call',
]);

/** event_msg types that repeat a response item (or feed usage): counted, not shown. */
export const CODEX_HIDDEN_EVENTS: readonly string[] = [
  'token_count',
  'user_message',
  'agent_message',
  'agent_reasoning',
  'agent_reasoning_raw_content',
];

/** The event that carries the cumulative token totals. */
export const TOKEN_COUNT_EVENT = 'token_count';

/** Approval and input requests: not persisted by the CLIs seen so far, honoured if they are. */
export const APPROVAL_EVENTS: readonly string[] = [
  'exec_approval_request',
  'apply_patch_approval_request',
  'request_user_input',
  'request_permissions',
  'elicitation_request',
];

/**
 * What each event_msg says about the turn. token_count follows every model request: after
 * a final message it confirms the turn's end.
 */
const EVENT_SIGNALS: ReadonlyMap<string, RecordSignal> = new Map<string, RecordSignal>([
  ['user_message', 'user-prompt'],
  ['agent_message', 'assistant-text'],
  ['agent_reasoning', 'assistant-progress'],
  ['agent_reasoning_raw_content', 'assistant-progress'],
  ['task_started', 'assistant-progress'],
  ['turn_started', 'assistant-progress'],
  ['task_complete', 'turn-end'],
  ['turn_complete', 'turn-end'],
  ['turn_aborted', 'interrupted'],
  ['error', 'api-error'],
  ['stream_error', 'api-error'],
  [TOKEN_COUNT_EVENT, 'confirms-turn-end'],
  ...APPROVAL_EVENTS.map((e): [string, RecordSignal] => [e, 'approval']),
]);

/** An error event that announces a retry (the stream is retried, the turn goes on). */
export const RETRYING_ERROR_EVENT = 'stream_error';

/** User-role texts the CLI injects (instructions, environment context), not prompts. */
export const INJECTED_PREFIXES: readonly string[] = ['<', '# AGENTS.md'];

/** A user-role text the CLI wrote itself (leading whitespace ignored). */
export function isInjectedText(text: string): boolean {
  const t = text.trimStart();
  return INJECTED_PREFIXES.some((p) => t.startsWith(p));
}

/** What an event_msg says; a user_message's text decides whether it is a prompt. */
export function eventSignal(type: string | undefined, message?: string): RecordSignal {
  const signal = type === undefined ? undefined : EVENT_SIGNALS.get(type);
  if (signal === 'user-prompt' && message !== undefined && isInjectedText(message)) return 'none';
  return signal ?? 'none';
}

/** What a response item says; a user message's first text decides whether it is a prompt. */
export function itemSignal(
  type: string | undefined,
  role: string | undefined,
  text: string | undefined,
): RecordSignal {
  if (type === undefined) return 'none';
  if (type === 'message') {
    if (role === 'assistant') return 'assistant-text';
    if (role !== 'user') return 'none';
    return isInjectedText(text ?? '') ? 'none' : 'user-prompt';
  }
  if (CODEX_CALL_TYPES.has(type)) return 'tool-call';
  if (CODEX_OUTPUT_TYPES.has(type)) return 'tool-result';
  if (type === 'reasoning' || type === 'web_search_call') return 'assistant-progress';
  return 'none';
}

/**
 * Signals after which a call still without output will not get one: a new prompt, the
 * end of the turn, or its abortion. The status stops waiting for such a call; the
 * transcript shows it as abandoned.
 */
export const CLOSES_OPEN_CALLS: ReadonlySet<StatusSignal> = new Set([
  'user-prompt',
  'turn-end',
  'interrupted',
]);

/** The counts read from `info.total_token_usage`, in the order the scanner reads them. */
export const TOTAL_KEYS = [
  'input_tokens',
  'cached_input_tokens',
  'output_tokens',
  'reasoning_output_tokens',
] as const;

/** A token_count's cumulative totals, as written (unknown values, see count()). */
export interface CodexTotalFields {
  input: unknown;
  cached: unknown;
  output: unknown;
  reasoning: unknown;
  total: unknown;
}

/** `info.total_token_usage` of a parsed token_count payload; undefined when there is none. */
export function totalFields(payload: unknown): CodexTotalFields | undefined {
  if (!payload || typeof payload !== 'object') return undefined;
  const info = (payload as Record<string, unknown>).info;
  if (!info || typeof info !== 'object') return undefined;
  const t = (info as Record<string, unknown>).total_token_usage;
  if (!t || typeof t !== 'object') return undefined;
  const u = t as Record<string, unknown>;
  return {
    input: u.input_tokens,
    cached: u.cached_input_tokens,
    output: u.output_tokens,
    reasoning: u.reasoning_output_tokens,
    total: u.total_tokens,
  };
}

/** What a call's arguments hold when it asks to leave the sandbox (escaped inside a string). */
export const ESCALATION_MARKERS: readonly string[] = [
  'with_escalated_permissions',
  'require_escalated',
];

/** A shell call that asks to leave the sandbox: Codex prompts for approval before it runs. */
export function asksEscalation(item: Record<string, unknown>): boolean {
  let args: unknown = item.arguments ?? item.input ?? item.action;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return false;
    }
  }
  if (!args || typeof args !== 'object') return false;
  const a = args as Record<string, unknown>;
  return a.with_escalated_permissions === true || a.sandbox_permissions === 'require_escalated';
}
