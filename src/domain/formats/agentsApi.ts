/**
 * The agents REST API's session events, as one module: the event types, what each says
 * about the session (waiting, interrupted, error) and the system events' levels. The
 * transcript normaliser (src/domain/transcript/normalize/restEvents.ts) reads events
 * through it.
 */
import type { RecordSignal } from './statusSignal.ts';

export const INPUT_MESSAGE = 'input_message';
export const THINKING = 'thinking';
export const AGENT_OUTPUT = 'agent_output';
export const STRUCTURED_OUTPUT = 'structured_output';
export const TOOL_INPUT = 'tool_input';
export const TOOL_OUTPUT = 'tool_output';
/** The service waits for tools the client runs (one pending call per entry of pending_calls). */
export const CLIENT_TOOL_PENDING = 'client_tool_pending';
export const COMPACTION = 'compaction';
export const CONTEXT_LIMIT_EXCEEDED = 'context_limit_exceeded';
export const STEP_TRANSITION = 'step_transition';
/** The last event of an interrupted session (its status then reads idle). */
export const SESSION_INTERRUPTED = 'session_interrupted';
export const IMAGE_READ = 'image_read';
export const ARTIFACT_UPLOAD = 'artifact_upload';
export const SKILL_LOAD = 'skill_load';

/** What each event says about the session. */
const SIGNALS: ReadonlyMap<string, RecordSignal> = new Map<string, RecordSignal>([
  [INPUT_MESSAGE, 'user-prompt'],
  [THINKING, 'assistant-progress'],
  [AGENT_OUTPUT, 'assistant-text'],
  [STRUCTURED_OUTPUT, 'assistant-text'],
  [TOOL_INPUT, 'tool-call'],
  [TOOL_OUTPUT, 'tool-result'],
  [CLIENT_TOOL_PENDING, 'approval'],
  [SESSION_INTERRUPTED, 'interrupted'],
  [CONTEXT_LIMIT_EXCEEDED, 'api-error'],
]);

export function eventSignal(type: string | undefined): RecordSignal {
  return (type === undefined ? undefined : SIGNALS.get(type)) ?? 'none';
}

/** The level a system entry of this event shows with: from its signal. */
export function eventLevel(type: string): 'warning' | 'error' | undefined {
  const signal = eventSignal(type);
  if (signal === 'api-error') return 'error';
  if (signal === 'interrupted' || signal === 'approval') return 'warning';
  return undefined;
}

/** A tool_output's error field counts when it is set (not null, false or empty). */
export function isToolError(error: unknown): boolean {
  return error !== undefined && error !== null && error !== false && error !== '';
}
