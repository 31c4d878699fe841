/**
 * Codex CLI rollout files (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`).
 *
 * Current files wrap every line as `{timestamp, type, payload}`; legacy files (before
 * ~Sept 2025) write bare response items after a `{id, timestamp, instructions}` header,
 * with `{"record_type": "state"}` markers. Both are read per record, so a file mixing them
 * still works.
 *
 *   session_meta                      → system entry (subtype 'session_meta')
 *   response_item message             → user entry (developer/harness context: variant
 *                                        'meta') or assistant entry
 *   response_item reasoning           → thinking entry (summary text; encrypted-only →
 *                                        redacted)
 *   function_call / custom_tool_call / local_shell_call
 *                                     → tool-call entry, paired with its
 *                                        *_output by call_id however far apart;
 *                                        without one when a new prompt or the end
 *                                        of the turn comes: abandoned
 *   web_search_call                   → tool-call entry (no separate output)
 *   compacted                         → compaction entry with the summary message
 *   event_msg token_count             → hidden; its cumulative totals become per-turn
 *                                        usage (deltas) on the last model entry before it
 *   event_msg user_message / agent_message / agent_reasoning
 *                                     → hidden: copies of response items
 *   other event_msg                   → system entry (subtype = payload.type)
 *   turn_context, record_type:state   → hidden bookkeeping
 *   anything else                     → unknown entry with the raw JSON
 */
import type { TokenUsage, TranscriptEntry } from '../model.ts';
import { Fields, decodeStringHead, type Nested } from '../../json/skim.ts';
import {
  orphanResultEntry,
  textEntry,
  toolCallEntry,
  unknownEntry,
  userEntry,
  type Common,
} from './entries.ts';
import {
  CLOSES_OPEN_CALLS,
  CODEX_CALL_TYPES,
  CODEX_HIDDEN_EVENTS,
  CODEX_ITEM_TYPES,
  CODEX_OUTPUT_TYPES,
  TOKEN_COUNT_EVENT,
  eventSignal,
  isInjectedText,
  itemSignal,
  totalFields,
} from '../../formats/codex.ts';
import type { RecordSignal } from '../../formats/statusSignal.ts';
import { firstText } from '../../formats/messageText.ts';
import { attachmentOf, isObject, num, obj, pretty, str, type Json } from './text.ts';
import {
  RK_HIDDEN,
  RK_MODEL,
  RK_PROMPT,
  RK_RESULT,
  RK_SYSTEM,
  RK_TOKENS,
  RK_UNKNOWN,
  abandonOpenCalls,
  type FormatAdapter,
  type NormalizeContext,
  type NormalizedRecord,
  type Pairing,
  type RecordCollector,
  type RecordPlan,
} from './types.ts';

export { CODEX_HIDDEN_EVENTS };
const HIDDEN_EVENTS = new Set(CODEX_HIDDEN_EVENTS);
/** Content part types whose text is a message's text (see firstText in the scanner). */
const TEXT_PARTS = new Set(['text', 'input_text', 'output_text']);

interface Item {
  type: string | null;
  callId: string | null;
  role: string | null;
  /** The start of a message's first text (enough to tell a prompt from injected text). */
  text: string | null;
}

/** A record's signal, as the format module reads it: open calls end with some of them. */
function closeCalls(signal: RecordSignal, pairing: Pairing, record: number): void {
  if (signal !== 'confirms-turn-end' && CLOSES_OPEN_CALLS.has(signal))
    abandonOpenCalls(pairing, record);
}

function planItem(item: Item, pairing: Pairing, record: number): RecordPlan {
  const { type, callId } = item;
  closeCalls(
    itemSignal(type ?? undefined, item.role ?? undefined, item.text ?? undefined),
    pairing,
    record,
  );
  if (type === 'message') {
    const kind =
      item.role === 'assistant' ? RK_MODEL : item.role === 'user' ? RK_PROMPT : RK_SYSTEM;
    return { kind, rows: 1 };
  }
  if (type !== null && CODEX_CALL_TYPES.has(type)) {
    if (callId && !pairing.calls.has(callId)) {
      pairing.calls.set(callId, record);
      pairing.open?.add(callId);
    }
    return { kind: RK_MODEL, rows: 1 };
  }
  if (type !== null && CODEX_OUTPUT_TYPES.has(type)) {
    if (callId && pairing.calls.has(callId) && !pairing.results.has(callId)) {
      pairing.results.set(callId, record);
      pairing.open?.delete(callId);
      return { kind: RK_RESULT, rows: 0 };
    }
    return { kind: RK_RESULT, rows: 1 };
  }
  if (type === 'reasoning' || type === 'web_search_call') return { kind: RK_MODEL, rows: 1 };
  return { kind: RK_UNKNOWN, rows: 1 };
}

/**
 * Reads the type, the payload's type, call id, role and cwd, and the head of a message's
 * first text from the skimmed fields of a line (the skim reads `payload` and its content
 * parts in the same walk).
 */
class CodexCollector implements RecordCollector {
  private readonly payload = new Fields();
  readonly nested: Nested = {
    key: 'payload',
    out: this.payload,
    elementsOf: 'content',
    elements: [],
    elementCount: 0,
    elementFields: [],
  };
  private type: string | null = null;
  private hasPayload = false;
  private payloadType: string | null = null;
  private payloadCallId: string | null = null;
  private payloadRole: string | null = null;
  private cwd: string | null = null;
  private callId: string | null = null;
  private role: string | null = null;
  private hasRecordType = false;
  private hasId = false;
  private hasInstructions = false;
  /** The first text of a message's content, its head only. */
  private text: string | null = null;
  /** The head of an event's `message` (a user_message's text). */
  private message: string | null = null;

  private read(f: Fields | undefined): void {
    this.type = this.payloadType = this.payloadCallId = this.payloadRole = null;
    this.cwd = this.callId = this.role = this.text = this.message = null;
    this.hasPayload = this.hasRecordType = this.hasId = this.hasInstructions = false;
    if (!f) return;
    const buf = f.buf;
    this.type = f.str('type') ?? null;
    this.callId = f.str('call_id') ?? null;
    this.role = f.str('role') ?? null;
    this.hasRecordType = f.has('record_type');
    this.hasId = f.has('id');
    this.hasInstructions = f.has('instructions');
    const p = this.payload;
    this.hasPayload = p.ok;
    if (p.ok) {
      this.payloadType = p.str('type') ?? null;
      this.payloadCallId = p.str('call_id') ?? null;
      this.payloadRole = p.str('role') ?? null;
      this.cwd = p.str('cwd') ?? null;
      const message = p.valueStart('message');
      if (message >= 0)
        this.message = decodeStringHead(buf, message, p.valueEndAt(message)) ?? null;
      const content = p.valueStart('content');
      if (content >= 0) this.text = this.payloadText(buf, content, p.valueEndAt(content));
    } else {
      // A legacy line: the item itself, its content at the top level.
      const content = f.range('content');
      if (content) this.text = legacyText(buf, content);
    }
  }

  /** The head of payload.content: a string, or the first text part's text. */
  private payloadText(buf: Buffer, start: number, end: number): string | null {
    if (buf[start] === 0x22) return decodeStringHead(buf, start, end) ?? null;
    const nested = this.nested;
    for (let i = 0; i < (nested.elementCount ?? 0); i++) {
      const part = nested.elementFields![i]!;
      if (!part.ok || !TEXT_PARTS.has(part.str('type') ?? '')) continue;
      const text = part.valueStart('text');
      if (text >= 0 && buf[text] === 0x22)
        return decodeStringHead(buf, text, part.valueEndAt(text)) ?? null;
    }
    return null;
  }

  plan(f: Fields | undefined, pairing: Pairing, record: number): RecordPlan {
    this.read(f);
    const type = this.type;
    if (type === 'response_item') {
      const item = {
        type: this.payloadType,
        callId: this.payloadCallId,
        role: this.payloadRole,
        text: this.text,
      };
      return planItem(
        this.hasPayload ? item : { type: null, callId: null, role: null, text: null },
        pairing,
        record,
      );
    }
    if (type !== null && CODEX_ITEM_TYPES.has(type) && !this.hasPayload)
      return planItem(
        { type, callId: this.callId, role: this.role, text: this.text },
        pairing,
        record,
      );
    switch (type) {
      case 'session_meta': {
        const plan: RecordPlan = { kind: RK_SYSTEM, rows: 1 };
        if (this.cwd !== null && this.hasPayload) plan.cwd = this.cwd;
        return plan;
      }
      case 'turn_context':
        return { kind: RK_HIDDEN, rows: 0, hiddenType: 'turn_context' };
      case 'event_msg': {
        const event = this.hasPayload ? this.payloadType : null;
        // A new prompt or the end of the turn: calls without output will get none.
        closeCalls(eventSignal(event ?? undefined, this.message ?? undefined), pairing, record);
        if (event !== null && HIDDEN_EVENTS.has(event)) {
          const kind = event === TOKEN_COUNT_EVENT ? RK_TOKENS : RK_HIDDEN;
          return { kind, rows: 0, hiddenType: `event_msg:${event}` };
        }
        return { kind: RK_SYSTEM, rows: 1 };
      }
      case 'compacted':
        return { kind: RK_SYSTEM, rows: 1 };
      case null:
        if (this.hasRecordType) return { kind: RK_HIDDEN, rows: 0, hiddenType: 'record_type' };
        if (this.hasId && this.hasInstructions) return { kind: RK_SYSTEM, rows: 1 };
        return { kind: RK_UNKNOWN, rows: 1 };
      default:
        return { kind: RK_UNKNOWN, rows: 1 };
    }
  }
}

/** The head of a legacy line's content: a string, or the first text part's text. */
function legacyText(buf: Buffer, [start, end]: [number, number]): string | null {
  if (buf[start] === 0x22) return decodeStringHead(buf, start, end) ?? null;
  if (buf[start] !== 0x5b) return null;
  const parts = JSON.parse(buf.toString('utf8', start, end)) as unknown[];
  for (const part of parts) {
    if (isObject(part) && TEXT_PARTS.has(str(part.type) ?? '') && typeof part.text === 'string')
      return part.text.slice(0, 256);
  }
  return null;
}

function messageText(content: unknown): {
  text: string;
  attachments: ReturnType<typeof attachmentOf>[];
} {
  if (typeof content === 'string') return { text: content, attachments: [] };
  const texts: string[] = [];
  const attachments = [];
  if (Array.isArray(content)) {
    for (const part of content) {
      if (isObject(part) && typeof part.text === 'string') texts.push(part.text);
      else if (isObject(part)) attachments.push(attachmentOf(part));
    }
  }
  return { text: texts.join('\n\n'), attachments };
}

/** Tool output: `{output, metadata: {exit_code}}` JSON, "Exit code: N" text, or plain text. */
function outputOf(value: unknown): { text: string; isError: boolean } {
  if (isObject(value)) {
    return { text: str(value.content) ?? pretty(value), isError: value.success === false };
  }
  const text = typeof value === 'string' ? value : pretty(value);
  if (text.startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as unknown;
      const output = isObject(parsed) ? str(parsed.output) : undefined;
      if (isObject(parsed) && output !== undefined) {
        const exit = num(obj(parsed.metadata)?.exit_code);
        return { text: output, isError: exit !== undefined && exit !== 0 };
      }
    } catch {
      // not JSON after all: plain text
    }
  }
  const exit = /^Exit code: (\d+)/.exec(text);
  return { text, isError: exit !== null && exit[1] !== '0' };
}

function normalizeItem(item: Json, c: Common, ctx: NormalizeContext): NormalizedRecord {
  const out: NormalizedRecord = { entries: [], results: [] };
  const max = ctx.maxChars;
  const type = str(item.type) ?? '';
  const callId = str(item.call_id);
  switch (type) {
    case 'message': {
      const role = str(item.role) ?? '';
      const { text, attachments } = messageText(item.content);
      if (role === 'assistant') {
        out.entries.push(textEntry('assistant', c, text, max));
      } else {
        const meta = role !== 'user' || isInjectedText(text);
        out.entries.push(userEntry(c, text, meta ? 'meta' : 'prompt', max, attachments));
      }
      return out;
    }
    case 'reasoning': {
      const parts: string[] = [];
      for (const list of [item.summary, item.content]) {
        if (Array.isArray(list))
          for (const p of list) if (isObject(p) && typeof p.text === 'string') parts.push(p.text);
      }
      const redacted = parts.length === 0 && typeof item.encrypted_content === 'string';
      out.entries.push(
        textEntry('thinking', c, parts.join('\n\n'), max, redacted ? { redacted } : {}),
      );
      return out;
    }
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call': {
      let input: unknown = type === 'local_shell_call' ? item.action : item.input;
      if (type === 'function_call') {
        const args = item.arguments;
        input = args;
        if (typeof args === 'string') {
          try {
            input = JSON.parse(args) as unknown;
          } catch {
            input = args;
          }
        }
      }
      const name = str(item.name) ?? (type === 'local_shell_call' ? 'local_shell' : '');
      const id = callId ?? (type === 'local_shell_call' ? str(item.id) : undefined) ?? '';
      out.entries.push(toolCallEntry(c, { callId: id, name, input, cwd: ctx.cwd }, max));
      return out;
    }
    case 'web_search_call': {
      const entry = toolCallEntry(
        c,
        { callId: str(item.id) ?? '', name: 'web_search', input: item.action },
        max,
      );
      const status = str(item.status);
      if (status === 'completed') entry.status = 'ok';
      else if (status === 'failed') entry.status = 'error';
      out.entries.push(entry);
      return out;
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const { text, isError } = outputOf(item.output);
      const output = text.length > max ? text.slice(0, max) : text;
      const result = { callId: callId ?? '', output, isError, source: c.source } as const;
      const part = {
        ...result,
        ...(text.length > output.length ? { outputLength: text.length } : {}),
        ...(c.timestamp ? { timestamp: c.timestamp } : {}),
      };
      if (callId && ctx.pairedHere(callId)) out.results.push(part);
      else out.entries.push(orphanResultEntry(c, callId ?? '', part, max));
      return out;
    }
    default:
      out.entries.push(unknownEntry(c, type, item, max));
      return out;
  }
}

function cumulativeOf(payload: Json): TokenUsage | null {
  const total = totalFields(payload);
  if (!total) return null;
  const input = num(total.input) ?? 0;
  const cached = num(total.cached) ?? 0;
  const usage: TokenUsage = {
    input: Math.max(0, input - cached),
    cacheRead: cached,
    output: num(total.output) ?? 0,
    reasoning: num(total.reasoning) ?? 0,
    total: num(total.total) ?? input + (num(total.output) ?? 0),
  };
  return usage;
}

function sessionMetaText(payload: Json): string {
  const git = obj(payload.git);
  const parts = [
    str(payload.originator) ?? 'codex',
    str(payload.cli_version),
    str(payload.cwd),
    str(payload.model_provider),
    str(git?.branch) ? `branch ${str(git?.branch)}` : undefined,
  ];
  return parts.filter(Boolean).join(' · ');
}

function normalize(value: unknown, ctx: NormalizeContext): NormalizedRecord {
  const out = normalizeLine(value, ctx);
  out.signal = signalOf(value);
  return out;
}

/** What the line says about the turn, read by the format module as the scanner reads it. */
function signalOf(value: unknown): RecordSignal {
  if (!isObject(value)) return 'none';
  const type = str(value.type);
  const payload = obj(value.payload);
  const item =
    type === 'response_item'
      ? payload
      : !payload && type && CODEX_ITEM_TYPES.has(type)
        ? value
        : undefined;
  if (item) return itemSignal(str(item.type), str(item.role), firstText(item.content));
  if (type === 'event_msg' && payload) return eventSignal(str(payload.type), str(payload.message));
  return 'none';
}

function normalizeLine(value: unknown, ctx: NormalizeContext): NormalizedRecord {
  const c: Common = { source: ctx.source };
  const max = ctx.maxChars;
  if (!isObject(value)) return { entries: [unknownEntry(c, '', value, max)], results: [] };
  const line = value;
  c.timestamp = str(line.timestamp);
  const type = typeof line.type === 'string' ? line.type : null;
  const payload = obj(line.payload);
  if (type === 'response_item') return normalizeItem(payload ?? {}, c, ctx);
  if (type !== null && CODEX_ITEM_TYPES.has(type) && !payload) return normalizeItem(line, c, ctx);
  const entries: TranscriptEntry[] = [];
  switch (type) {
    case 'session_meta':
      c.id = str(payload?.id);
      entries.push(
        textEntry('system', c, payload ? sessionMetaText(payload) : '', max, {
          subtype: 'session_meta',
        }),
      );
      break;
    case 'turn_context':
      break;
    case 'event_msg': {
      const event = payload ? (str(payload.type) ?? null) : null;
      if (event !== null && HIDDEN_EVENTS.has(event)) {
        if (event === TOKEN_COUNT_EVENT && payload)
          return { entries, results: [], cumulative: cumulativeOf(payload) };
        break;
      }
      const text =
        str(payload?.message) ?? str(payload?.reason) ?? (payload ? pretty(payload) : '');
      // Errors and interruptions stand out (the same signals the status reads).
      const signal = eventSignal(event ?? undefined);
      const level =
        event?.includes('error') || signal === 'api-error'
          ? 'error'
          : signal === 'interrupted'
            ? 'warning'
            : undefined;
      entries.push(
        textEntry('system', c, text, max, { subtype: event ?? '', ...(level ? { level } : {}) }),
      );
      break;
    }
    case 'compacted':
      entries.push(textEntry('compaction', c, str(payload?.message) ?? '', max));
      break;
    case null:
      if ('record_type' in line) break;
      if ('id' in line && 'instructions' in line) {
        c.id = str(line.id);
        const text = [`Session ${str(line.id) ?? ''}`.trim(), str(line.instructions)].filter(
          Boolean,
        );
        entries.push(textEntry('system', c, text.join('\n\n'), max, { subtype: 'session_meta' }));
        break;
      }
      entries.push(unknownEntry(c, '', value, max));
      break;
    default:
      entries.push(unknownEntry(c, type, value, max));
  }
  return { entries, results: [] };
}

export const codexFormat: FormatAdapter = {
  format: 'codex',
  createCollector: () => new CodexCollector(),
  normalize,
};
