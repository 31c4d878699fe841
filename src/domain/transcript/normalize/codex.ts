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
import {
  CODE_ELEM,
  K_OBJECT,
  K_STRING,
  decodeString,
  decodeStringHead,
  type JsonScanner,
} from '../jsonScanner.ts';
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

const KEYS = [
  'type',
  'payload',
  'call_id',
  'role',
  'record_type',
  'id',
  'instructions',
  'cwd',
  'content',
  'text',
  'message',
];
const TYPE = 0;
const PAYLOAD = 1;
const CALL_ID = 2;
const ROLE = 3;
const RECORD_TYPE = 4;
const ID = 5;
const INSTRUCTIONS = 6;
const CWD = 7;
const CONTENT = 8;
const TEXT = 9;
const MESSAGE = 10;

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

class CodexCollector implements RecordCollector {
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
  /** The first text of a message's content, its head only; the type of the part being read. */
  private text: string | null = null;
  private partType: string | null = null;
  private partIndex = -1;
  /** The head of an event's `message` (a user_message's text). */
  private message: string | null = null;

  begin(): void {
    this.type = this.payloadType = this.payloadCallId = this.payloadRole = null;
    this.cwd = this.callId = this.role = null;
    this.text = this.partType = this.message = null;
    this.partIndex = -1;
    this.hasPayload = this.hasRecordType = this.hasId = this.hasInstructions = false;
  }

  /** A value inside a message's content (`base` is the depth of `content`). */
  private contentValue(
    s: JsonScanner,
    depth: number,
    base: number,
    kind: number,
    buf: Buffer,
    start: number,
    end: number,
  ) {
    if (kind !== K_STRING || this.text !== null) return;
    if (depth === base) {
      this.text = decodeStringHead(s, buf, start, end);
    } else if (depth === base + 2 && s.codes[base + 1] === CODE_ELEM) {
      const code = s.codes[depth];
      const index = s.idx[base + 1]!;
      if (code === TYPE) {
        this.partType = decodeString(s, buf, start, end);
        this.partIndex = index;
      } else if (
        code === TEXT &&
        index === this.partIndex &&
        this.partType !== null &&
        TEXT_PARTS.has(this.partType)
      ) {
        this.text = decodeStringHead(s, buf, start, end);
      }
    }
  }

  value(s: JsonScanner, depth: number, kind: number, buf: Buffer, start: number, end: number) {
    const code = s.codes[depth];
    if (depth >= 3 && s.codes[1] === PAYLOAD && s.codes[2] === CONTENT) {
      this.contentValue(s, depth, 2, kind, buf, start, end);
      return;
    }
    if (depth >= 2 && s.codes[1] === CONTENT) {
      this.contentValue(s, depth, 1, kind, buf, start, end);
      return;
    }
    if (depth === 1) {
      if (code === CONTENT) {
        this.contentValue(s, depth, 1, kind, buf, start, end);
        return;
      }
      if (code === PAYLOAD) this.hasPayload = kind === K_OBJECT;
      else if (code === RECORD_TYPE) this.hasRecordType = true;
      else if (code === ID) this.hasId = true;
      else if (code === INSTRUCTIONS) this.hasInstructions = true;
      else if (kind !== K_STRING) return;
      else if (code === TYPE) this.type = decodeString(s, buf, start, end);
      else if (code === CALL_ID) this.callId = decodeString(s, buf, start, end);
      else if (code === ROLE) this.role = decodeString(s, buf, start, end);
    } else if (depth === 2 && s.codes[1] === PAYLOAD && kind === K_STRING) {
      if (code === TYPE) this.payloadType = decodeString(s, buf, start, end);
      else if (code === CALL_ID) this.payloadCallId = decodeString(s, buf, start, end);
      else if (code === ROLE) this.payloadRole = decodeString(s, buf, start, end);
      else if (code === CWD) this.cwd = decodeString(s, buf, start, end);
      else if (code === MESSAGE) this.message = decodeStringHead(s, buf, start, end);
      else if (code === CONTENT) this.contentValue(s, depth, 2, kind, buf, start, end);
    }
  }

  plan(pairing: Pairing, record: number): RecordPlan {
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
  keys: KEYS,
  createCollector: () => new CodexCollector(),
  normalize,
};
