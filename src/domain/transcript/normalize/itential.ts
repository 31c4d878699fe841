/**
 * Itential describe_session → entries. Current servers return `reasoning_events` (the
 * agent's end_turn reasoning, i.e. its outputs) — each an assistant entry. Older servers
 * return `messages[{type, category, text, timestamp}]`:
 *
 *   inference-succeeded → assistant    inference, tool-call → thinking (interim reasoning)
 *   tool-result         → tool-call (text is the tool execution's JSON: tool, status, result)
 *   session-status, inference-pending → system          anything else → unknown
 *
 * A non-empty `pending_manual_tasks` adds one system entry per task at the end (the agent
 * waits on a person). Token usage from describe_session_token_usage can be passed in; its
 * turns attach to the reasoning events with the same sequence_number.
 * Source positions are 1-based positions in the events/messages list.
 */
import type { TokenUsage, TranscriptEntry } from '../model.ts';
import { applyResult, textEntry, toolCallEntry, unknownEntry, type Common } from './entries.ts';
import { isObject, num, obj, pretty, str, type Json } from './text.ts';
import {
  FAILED_STATUSES,
  MANUAL_TASK_SUBTYPE,
  USAGE_FIELDS,
  messageKind,
} from '../../formats/itential.ts';

const FULL = Number.POSITIVE_INFINITY;

export function normalizeItentialSession(
  response: unknown,
  options: { tokenUsage?: unknown } = {},
): TranscriptEntry[] {
  const session = obj(response);
  if (!session) return [];
  const entries: TranscriptEntry[] = [];
  if (Array.isArray(session.reasoning_events)) {
    const usage = usageBySequence(options.tokenUsage);
    session.reasoning_events.forEach((event, i) => {
      const c = common(event, i);
      if (!isObject(event)) {
        entries.push(unknownEntry(c, '', event, FULL));
        return;
      }
      c.id = str(event.event_id);
      const entry = textEntry('assistant', c, str(event.text) ?? '', FULL);
      const turn = usage.get(num(event.sequence_number) ?? Number.NaN);
      if (turn) entry.usage = turn;
      entries.push(entry);
    });
  } else if (Array.isArray(session.messages)) {
    session.messages.forEach((message, i) => entries.push(legacyMessage(message, i)));
  }
  if (Array.isArray(session.pending_manual_tasks)) {
    for (const task of session.pending_manual_tasks) {
      const t = obj(task);
      const title = str(t?.title) ?? str(t?.work_item_id) ?? 'manual task';
      const view = str(t?.view_type);
      const position = entries.length + 1;
      entries.push(
        textEntry(
          'system',
          { source: { first: position, last: position } },
          `Waiting for a person: ${title}${view ? ` (${view})` : ''}`,
          FULL,
          { subtype: MANUAL_TASK_SUBTYPE, level: 'warning' },
        ),
      );
    }
  }
  entries.forEach((entry, index) => (entry.index = index));
  return entries;
}

function common(event: unknown, i: number): Common {
  const c: Common = { source: { first: i + 1, last: i + 1 } };
  if (isObject(event)) c.timestamp = str(event.timestamp);
  return c;
}

function legacyMessage(message: unknown, i: number): TranscriptEntry {
  const c = common(message, i);
  if (!isObject(message)) return unknownEntry(c, '', message, FULL);
  const type = str(message.type) ?? '';
  const text = str(message.text) ?? '';
  switch (messageKind(type)) {
    case 'assistant':
      return textEntry('assistant', c, text, FULL);
    case 'thinking':
      return textEntry('thinking', c, text, FULL);
    case 'tool-result':
      return toolResult(c, text);
    case 'system':
      return textEntry('system', c, text, FULL, { subtype: type });
    default:
      return unknownEntry(c, type, message, FULL);
  }
}

/** A TOOL_EXECUTION event's data (as JSON text) as a completed tool call. */
function toolResult(c: Common, text: string): TranscriptEntry {
  let data: Json | undefined;
  try {
    data = obj(JSON.parse(text));
  } catch {
    data = undefined;
  }
  const name = str(data?.tool) ?? str(data?.tool_name) ?? str(data?.name) ?? 'tool';
  const entry = toolCallEntry(
    c,
    { callId: '', name, input: data?.input ?? data?.arguments ?? '' },
    FULL,
  );
  const status = str(data?.status)?.toLowerCase();
  const output = data ? (data.result ?? data.output ?? data.error ?? data) : text;
  applyResult(
    entry,
    { output: pretty(output), isError: status !== undefined && FAILED_STATUSES.has(status) },
    FULL,
  );
  return entry;
}

function usageBySequence(response: unknown): Map<number, TokenUsage> {
  const map = new Map<number, TokenUsage>();
  const turns = obj(response)?.turns;
  if (!Array.isArray(turns)) return map;
  for (const turn of turns) {
    const t = obj(turn);
    const sequence = num(t?.sequence_number);
    const u = obj(t?.token_usage);
    if (sequence === undefined || !u) continue;
    const usage: TokenUsage = {};
    for (const [key, field] of USAGE_FIELDS) {
      const n = num(u[field]);
      if (n !== undefined) usage[key] = n;
    }
    map.set(sequence, usage);
  }
  return map;
}
