/**
 * Claude Code transcripts (`~/.claude/projects/<cwd>/<sessionId>.jsonl` and subagent files).
 *
 * One line per content block: every block of an assistant response is its own line with
 * the same message.id, so each block is one entry and entries share `turnId`. Tool
 * results (user lines of tool_result blocks) are absorbed into their call's entry, paired
 * by tool_use_id however far apart. A Task/Agent result with `toolUseResult.agentId` also
 * produces a subagent entry linking to `<sessionId>/subagents/agent-<agentId>.jsonl` (2.1.x)
 * or `agent-<agentId>.jsonl` beside the session file (2.0.x). 1.0.x inline subagents
 * (`isSidechain: true`) stay in place, flagged `sidechain`. A call still without a result
 * when a prompt or an interruption ends its turn is `abandoned`.
 *
 * A line whose `uuid` was seen before in the file (a resumed session that writes its
 * history again) is hidden, and a response whose lines come again after others shows its
 * usage once: the transcript and its per-turn usage show each line once.
 *
 * Record types and what they become:
 *   user            → user entry (+ orphan results, + subagent link); pure tool results → none
 *   assistant       → one entry per content block (text, thinking, tool-call, unknown)
 *   system          → system entry; subtype compact_boundary → compaction entry
 *   summary         → system entry (subtype 'summary': the session title)
 *   file-history-snapshot, queue-operation, progress
 *                   → hidden: bookkeeping (snapshots of edited files, queued prompts,
 *                     agent_progress copies of subagent lines that the subagent link
 *                     already covers); counted by type in TranscriptInfo.hidden
 *   any line again  → hidden, counted as 'repeated'
 *   anything else   → unknown entry with the raw JSON
 */
import { idHash, idHashOfBytes } from '../idSet.ts';
import type { SubagentRef, TokenUsage, TranscriptEntry } from '../model.ts';
import {
  Fields,
  decodeStringHead,
  skimObject,
  type KeyCheck,
  type Nested,
} from '../../json/skim.ts';
import {
  CLAUDE_HIDDEN_TYPES,
  CLOSES_OPEN_CALLS,
  NOT_PROMPT_FLAGS,
  SUBAGENT_TOOLS,
  SYNTHETIC_MODEL,
  assistantSignal,
  isCommandText,
  isInterruptText,
  isSyntheticNoOp,
  systemSignal,
  usageFields,
  userSignal,
} from '../../formats/claudeCode.ts';
import { firstText } from '../../formats/messageText.ts';
import type { RecordSignal } from '../../formats/statusSignal.ts';
import {
  base,
  orphanResultEntry,
  textEntry,
  toolCallEntry,
  unknownEntry,
  userEntry,
  type Common,
} from './entries.ts';
import {
  attachmentOf,
  clip,
  flattenContent,
  formatDuration,
  isObject,
  num,
  obj,
  str,
  type Json,
} from './text.ts';
import {
  RK_HIDDEN,
  RK_MODEL,
  RK_PROMPT,
  RK_RESULT,
  RK_SYSTEM,
  RK_UNKNOWN,
  abandonOpenCalls,
  type FormatAdapter,
  type NormalizeContext,
  type NormalizedRecord,
  type Pairing,
  type RecordCollector,
  type RecordPlan,
  type ToolResultPart,
} from './types.ts';

export { CLAUDE_HIDDEN_TYPES };
const HIDDEN = new Set(CLAUDE_HIDDEN_TYPES);
/** TranscriptInfo.hidden key of lines written again with a uuid already seen. */
export const REPEATED = 'repeated';

interface Block {
  type: string | null;
  id: string | null;
  toolUseId: string | null;
  /** The start of a text block's text (enough to tell a prompt from a slash command). */
  text: string | null;
}

/** message.content: absent, a string, an array, or anything else. */
const C_NONE = 0;
const C_STRING = 1;
const C_ARRAY = 2;
const C_OTHER = 3;

/**
 * Reads type, content shape, block types/ids, a Task result's agentId, the line's uuid
 * and whether a user line can be a prompt from the skimmed fields of a line (the skim
 * reads `message` and its content blocks in the same walk).
 */
class ClaudeCollector implements RecordCollector {
  private readonly message = new Fields();
  private readonly keyCheck: KeyCheck = {
    field: 'toolUseResult',
    key: 'agentId',
    answer: undefined,
  };
  readonly nested: Nested = {
    key: 'message',
    out: this.message,
    elementsOf: 'content',
    elements: [],
    elementCount: 0,
    elementFields: [],
    keyCheck: this.keyCheck,
  };
  private readonly toolUseResult = new Fields();
  private type: string | null = null;
  private content = C_NONE;
  private messageId: string | null = null;
  private agentId: string | null = null;
  /** idHash of the line's uuid (its raw bytes, read without decoding), or -1. */
  private uuid = -1;
  /** A sidechain line, or a user line flagged as not a prompt (meta, compact summary…). */
  private aside = false;
  private blocks: Block[] = [];
  /** The start of a string content's text. */
  private text: string | null = null;
  /** The message id of the response whose lines were planned last (see plan). */
  private run: string | null = null;

  private read(f: Fields | undefined): void {
    this.type = this.messageId = this.agentId = this.text = null;
    this.content = C_NONE;
    this.uuid = -1;
    this.aside = false;
    this.blocks = [];
    if (!f) return;
    const buf = f.buf;
    this.type = f.str('type') ?? null;
    const uuid = f.valueStart('uuid');
    if (uuid >= 0 && buf[uuid] === 0x22)
      this.uuid = idHashOfBytes(buf, uuid + 1, f.valueEndAt(uuid) - 1);
    this.aside = f.bool('isSidechain');
    for (let i = 0; i < NOT_PROMPT_FLAGS.length && !this.aside; i++)
      this.aside = f.bool(NOT_PROMPT_FLAGS[i]!);
    const message = this.message;
    if (message.ok) {
      const content = message.valueStart('content');
      if (content >= 0) {
        const first = buf[content];
        this.content = first === 0x22 ? C_STRING : first === 0x5b ? C_ARRAY : C_OTHER;
        if (first === 0x22)
          this.text = decodeStringHead(buf, content, message.valueEndAt(content)) ?? null;
      }
      this.messageId = message.str('id') ?? null;
      if (this.content === C_ARRAY) this.readBlocks(buf);
    }
    // The kernel saw the line's toolUseResult and no agentId in it: nothing to read.
    if (this.keyCheck.answer === false) return;
    const result = f.valueStart('toolUseResult');
    if (result >= 0 && buf[result] === 0x7b) {
      const r = this.toolUseResult;
      if (skimObject(buf, result, f.valueEndAt(result), r)) this.agentId = r.str('agentId') ?? null;
    }
  }

  private readBlocks(buf: Buffer): void {
    const nested = this.nested;
    const count = nested.elementCount ?? 0;
    for (let i = 0; i < count; i++) {
      const block: Block = { type: null, id: null, toolUseId: null, text: null };
      this.blocks.push(block);
      const b = nested.elementFields![i]!;
      if (!b.ok) continue;
      block.type = b.str('type') ?? null;
      block.id = b.str('id') ?? null;
      block.toolUseId = b.str('tool_use_id') ?? null;
      if (this.type === 'user' && block.type === 'text') {
        const text = b.valueStart('text');
        if (text >= 0) block.text = decodeStringHead(buf, text, b.valueEndAt(text)) ?? null;
      }
    }
  }

  plan(f: Fields | undefined, pairing: Pairing, record: number): RecordPlan {
    this.read(f);
    const type = this.type;
    // A line written again (a resumed session writing its history again): shown once.
    const seen = pairing.seen;
    if (this.uuid >= 0 && seen) {
      if (seen.has(this.uuid)) return { kind: RK_HIDDEN, rows: 0, hiddenType: REPEATED };
      seen.add(this.uuid);
    }
    if (type === 'user') {
      if (this.content !== C_ARRAY || this.blocks.length === 0) return this.prompt(pairing, record);
      let other = 0;
      let results = 0;
      let standalone = 0;
      for (const block of this.blocks) {
        if (block.type !== 'tool_result') {
          other++;
          continue;
        }
        results++;
        const id = block.toolUseId;
        if (id && pairing.calls.has(id) && !pairing.results.has(id)) {
          pairing.results.set(id, record);
          pairing.open?.delete(id);
        } else {
          standalone++;
        }
      }
      const rows = (other > 0 ? 1 : 0) + standalone + (this.agentId !== null ? 1 : 0);
      if (other > 0 && results === 0) return { ...this.prompt(pairing, record), rows };
      return { kind: other > 0 ? RK_PROMPT : RK_RESULT, rows };
    }
    if (type === 'assistant') {
      const plan: RecordPlan = { kind: RK_MODEL, rows: 1 };
      const id = this.messageId;
      if (id !== null) {
        // A response's lines follow each other; the same response again after others is
        // a copy (its lines with new uuids): its usage was shown with the first.
        let repeated = false;
        if (id !== this.run && seen) {
          const h = idHash(`m:${id}`);
          repeated = seen.has(h);
          seen.add(h);
        }
        this.run = id;
        if (!repeated) plan.group = id;
      }
      if (this.content === C_ARRAY && this.blocks.length > 0) {
        plan.rows = this.blocks.length;
        for (const block of this.blocks) {
          if (block.type === 'tool_use' && block.id && !pairing.calls.has(block.id)) {
            pairing.calls.set(block.id, record);
            pairing.open?.add(block.id);
          }
        }
      }
      return plan;
    }
    if (type === 'system' || type === 'summary') return { kind: RK_SYSTEM, rows: 1 };
    if (type !== null && HIDDEN.has(type)) return { kind: RK_HIDDEN, rows: 0, hiddenType: type };
    return { kind: RK_UNKNOWN, rows: 1 };
  }

  /**
   * A user line without tool results. What it says is the format module's reading, as
   * the status reads it: a prompt or an interruption in the main conversation ends the
   * turn, and its calls still without a result are abandoned (sidechain, meta,
   * compact-summary and slash-command lines do not).
   */
  private prompt(pairing: Pairing, record: number): RecordPlan {
    this.run = null;
    const text = this.content === C_STRING ? this.text : this.firstBlockText();
    const signal = userSignal(text ?? undefined, this.aside);
    if (signal !== 'confirms-turn-end' && CLOSES_OPEN_CALLS.has(signal))
      abandonOpenCalls(pairing, record);
    return { kind: RK_PROMPT, rows: 1 };
  }

  private firstBlockText(): string | null {
    for (const block of this.blocks) if (block.type === 'text') return block.text;
    return null;
  }
}

function usageOf(message: Json | undefined): TokenUsage | undefined {
  const u = usageFields(message?.usage);
  if (!u) return undefined;
  const usage: TokenUsage = {};
  const input = num(u.input);
  const cacheRead = num(u.cacheRead);
  const cacheWrite = num(u.cacheWrite);
  const output = num(u.output);
  if (input !== undefined) usage.input = input;
  if (cacheRead !== undefined) usage.cacheRead = cacheRead;
  if (cacheWrite !== undefined) usage.cacheWrite = cacheWrite;
  if (output !== undefined) usage.output = output;
  usage.total = (input ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0) + (output ?? 0);
  return usage;
}

const COMMAND_TAGS =
  /<\/?(?:command-name|command-message|command-args|local-command-stdout|local-command-stderr)>/g;

function userVariant(line: Json, text: string) {
  if (line.isCompactSummary === true) return 'compact-summary' as const;
  if (isCommandText(text)) return 'command' as const;
  if (line.isMeta === true) return 'meta' as const;
  if (isInterruptText(text)) return 'interrupt' as const;
  return 'prompt' as const;
}

function normalizeUser(line: Json, message: Json | undefined, c: Common, ctx: NormalizeContext) {
  const out: NormalizedRecord = { entries: [], results: [] };
  const max = ctx.maxChars;
  const content = message?.content;
  if (!Array.isArray(content) || content.length === 0) {
    const text = typeof content === 'string' ? content : flattenContent(content);
    const variant = userVariant(line, text);
    out.entries.push(
      userEntry(c, variant === 'command' ? text.replace(COMMAND_TAGS, '') : text, variant, max),
    );
    return out;
  }
  const texts: string[] = [];
  const attachments = [];
  let other = 0;
  const toolUseResult = obj(line.toolUseResult);
  const agentId = str(toolUseResult?.agentId);
  const subagent: SubagentRef | undefined = agentId
    ? { agentId, fileKey: `subagent:${agentId}`, ...pathOf(ctx, agentId) }
    : undefined;
  const orphans: TranscriptEntry[] = [];
  let firstCallId: string | undefined;
  for (const block of content) {
    const type = isObject(block) ? block.type : undefined;
    if (type !== 'tool_result' || !isObject(block)) {
      other++;
      if (typeof block === 'string') texts.push(block);
      else if (isObject(block) && typeof block.text === 'string') texts.push(block.text);
      else if (isObject(block)) attachments.push(attachmentOf(block));
      continue;
    }
    const callId = str(block.tool_use_id) ?? '';
    firstCallId ??= callId;
    const full = flattenContent(block.content);
    const output = full.length > max ? full.slice(0, max) : full;
    const result: ToolResultPart = {
      callId,
      output,
      isError: block.is_error === true,
      source: c.source,
    };
    if (full.length > output.length) result.outputLength = full.length;
    if (c.timestamp) result.timestamp = c.timestamp;
    if (subagent) result.subagent = subagent;
    if (callId && ctx.pairedHere(callId)) out.results.push(result);
    else orphans.push(orphanResultEntry(c, callId, result, max));
  }
  if (other > 0) {
    const text = texts.join('\n\n');
    const variant = userVariant(line, text);
    out.entries.push(
      userEntry(
        c,
        variant === 'command' ? text.replace(COMMAND_TAGS, '') : text,
        variant,
        max,
        attachments,
      ),
    );
  }
  out.entries.push(...orphans);
  if (subagent && toolUseResult) {
    out.entries.push(subagentEntry(c, subagent, toolUseResult, firstCallId, max));
  }
  return out;
}

/** The entry for a Task call's result that names the subagent it ran (`toolUseResult`). */
function subagentEntry(
  c: Common,
  subagent: SubagentRef,
  toolUseResult: Json,
  firstCallId: string | undefined,
  max: number,
): TranscriptEntry {
  const entry = {
    ...base(c),
    kind: 'subagent' as const,
    ...subagent,
    text: '',
  } as TranscriptEntry & { kind: 'subagent' };
  entry.text = clip(entry, 'text', str(toolUseResult.prompt) ?? '', max);
  if (firstCallId) entry.callId = firstCallId;
  const status = str(toolUseResult.status);
  if (status) entry.status = status;
  const tokens = num(toolUseResult.totalTokens);
  if (tokens !== undefined) entry.totalTokens = tokens;
  const duration = num(toolUseResult.totalDurationMs);
  if (duration !== undefined) entry.durationMs = duration;
  const tools = num(toolUseResult.totalToolUseCount);
  if (tools !== undefined) entry.toolUseCount = tools;
  return entry;
}

function pathOf(ctx: NormalizeContext, agentId: string): { path?: string } {
  const path = ctx.subagentPath(agentId);
  return path ? { path } : {};
}

function normalizeAssistant(
  line: Json,
  message: Json | undefined,
  c: Common,
  ctx: NormalizeContext,
) {
  const out: NormalizedRecord = { entries: [], results: [] };
  const max = ctx.maxChars;
  const usage = usageOf(message);
  if (usage) out.usage = usage;
  const model = str(message?.model);
  const apiError = line.isApiErrorMessage === true;
  const extra: Record<string, unknown> = {};
  if (model && model !== SYNTHETIC_MODEL) extra.model = model;
  if (apiError) extra.apiError = true;
  const content = message?.content;
  if (!Array.isArray(content) || content.length === 0) {
    out.entries.push(textEntry('assistant', c, flattenContent(content), max, extra));
    return out;
  }
  const cwd = str(line.cwd) ?? ctx.cwd;
  for (const block of content) {
    const b = isObject(block) ? block : undefined;
    const type = str(b?.type);
    if (b && type === 'text') {
      out.entries.push(textEntry('assistant', c, str(b.text) ?? '', max, extra));
    } else if (b && type === 'thinking') {
      out.entries.push(textEntry('thinking', c, str(b.thinking) ?? '', max));
    } else if (b && type === 'redacted_thinking') {
      out.entries.push(textEntry('thinking', c, '', max, { redacted: true }));
    } else if (b && type === 'tool_use') {
      const callId = str(b.id) ?? '';
      const name = str(b.name) ?? '';
      out.entries.push(toolCallEntry(c, { callId, name, input: b.input, cwd }, max));
      if (SUBAGENT_TOOLS.has(name) && callId) {
        const input = obj(b.input);
        const info: { agentType?: string; description?: string } = {};
        const agentType = str(input?.subagent_type);
        const description = str(input?.description);
        if (agentType) info.agentType = agentType;
        if (description) info.description = description;
        (out.subagentCalls ??= {})[callId] = info;
      }
    } else {
      out.entries.push(unknownEntry(c, type ?? '', block, max));
    }
  }
  return out;
}

function normalizeSystem(line: Json, c: Common, ctx: NormalizeContext): NormalizedRecord {
  const subtype = str(line.subtype) ?? '';
  const content = str(line.content) ?? '';
  const max = ctx.maxChars;
  if (subtype === 'compact_boundary') {
    const meta = obj(line.compactMetadata);
    const extra: Record<string, unknown> = {};
    const trigger = str(meta?.trigger);
    const preTokens = num(meta?.preTokens);
    if (trigger) extra.trigger = trigger;
    if (preTokens !== undefined) extra.preTokens = preTokens;
    return { entries: [textEntry('compaction', c, content, max, extra)], results: [] };
  }
  let text = content.replace(COMMAND_TAGS, '');
  const duration = num(line.durationMs);
  if (subtype === 'turn_duration' && duration !== undefined)
    text = `Turn took ${formatDuration(duration)}`;
  const hooks = num(line.hookCount);
  if (subtype === 'stop_hook_summary' && !text && hooks !== undefined) {
    text = `${hooks} stop hook${hooks === 1 ? '' : 's'} ran`;
    if (line.preventedContinuation === true) text += ' and stopped the agent';
  }
  const level = str(line.level);
  const extra: Record<string, unknown> = { subtype };
  if (level === 'warning' || level === 'error' || level === 'info') extra.level = level;
  return { entries: [textEntry('system', c, text, max, extra)], results: [] };
}

function normalize(value: unknown, ctx: NormalizeContext): NormalizedRecord {
  const out = normalizeLine(value, ctx);
  out.signal = signalOf(value);
  return out;
}

/** What the line says about the turn, read by the format module as the scanner reads it. */
function signalOf(value: unknown): RecordSignal {
  if (!isObject(value)) return 'none';
  const message = obj(value.message);
  const content = message?.content;
  switch (value.type) {
    case 'user': {
      if (!message) return 'none';
      const blocks = Array.isArray(content) ? content : [];
      if (blocks.some((b) => isObject(b) && b.type === 'tool_result')) return 'tool-result';
      const notPrompt = NOT_PROMPT_FLAGS.some((flag) => value[flag] === true);
      return userSignal(firstText(content)?.trimStart(), notPrompt);
    }
    case 'assistant': {
      if (!message) return 'none';
      const model = message.model;
      if (isSyntheticNoOp(model, value.isApiErrorMessage, firstText(content))) return 'none';
      const apiError = value.isApiErrorMessage === true || model === SYNTHETIC_MODEL;
      const last = Array.isArray(content) ? content[content.length - 1] : content;
      const lastType =
        typeof last === 'string' ? 'text' : isObject(last) ? str(last.type) : undefined;
      return assistantSignal(apiError, lastType, str(message.stop_reason));
    }
    case 'system':
      return systemSignal(str(value.subtype), str(value.level));
    default:
      return 'none';
  }
}

function normalizeLine(value: unknown, ctx: NormalizeContext): NormalizedRecord {
  const line = isObject(value) ? value : undefined;
  const c: Common = { source: ctx.source };
  if (!line) return { entries: [unknownEntry(c, '', value, ctx.maxChars)], results: [] };
  c.timestamp = str(line.timestamp);
  c.id = str(line.uuid);
  c.sidechain = line.isSidechain === true;
  const type = str(line.type) ?? '';
  const message = obj(line.message);
  switch (type) {
    case 'user':
      return normalizeUser(line, message, c, ctx);
    case 'assistant':
      c.turnId = str(message?.id);
      return normalizeAssistant(line, message, c, ctx);
    case 'system':
      return normalizeSystem(line, c, ctx);
    case 'summary':
      return {
        entries: [
          textEntry('system', c, str(line.summary) ?? '', ctx.maxChars, { subtype: 'summary' }),
        ],
        results: [],
      };
    default:
      if (HIDDEN.has(type)) return { entries: [], results: [] };
      return { entries: [unknownEntry(c, type, value, ctx.maxChars)], results: [] };
  }
}

export const claudeCodeFormat: FormatAdapter = {
  format: 'claude-code',
  createCollector: () => new ClaudeCollector(),
  normalize,
};
