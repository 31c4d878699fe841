/**
 * Incremental scanner of one Claude Code transcript (`<sessionId>.jsonl` or a subagent's
 * `agent-<agentId>.jsonl`). Usage is kept per (message.id, requestId) with the maximum of
 * each field, because every content block of one response is its own line repeating the
 * usage, and which line holds the final output count depends on the version.
 * agent_progress copies of subagent responses go to a separate map so the aggregation
 * counts each response once (see aggregate.ts). Big tool_result lines are never parsed:
 * their ids and is_error flag are read from the skimmed content blocks (src/domain/json/skim.ts).
 * A read from the start leaves the status work to a second pass over the file's end
 * (statusReplay), as the status depends only on what follows the last prompt.
 */
import { ModelCounts } from './modelCounts.ts';
import {
  Fields,
  NO_BYTES,
  RawMemo,
  StringMemo,
  hasKeyPattern,
  skimObject,
  type KeyCheck,
  type NestedCounts,
} from '../../domain/json/skim.ts';
import {
  CACHE_CREATION_KEY,
  CACHE_WRITE_1H_KEY,
  CLAUDE_KNOWN_TYPES,
  CLOSES_OPEN_CALLS,
  NOT_PROMPT_FLAGS,
  SYNTHETIC_MODEL as SYNTHETIC,
  USAGE_KEYS,
  assistantSignal,
  isSyntheticNoOp,
  responseKey,
  systemSignal,
  usageFields,
  userSignal,
} from '../../domain/formats/claudeCode.ts';
import { LineScanner, type StatusReplay } from './engine/lineScanner.ts';
import { EntryTimes } from './entryTimes.ts';
import { copyFacts, type ClaudeCodeScannerState } from './scannerState.ts';
import { mergeCounts, mergeUsage, usageRecord } from './usageRecord.ts';
import { asksUser, cleanTitle, count, firstText } from './text.ts';
import type {
  FileSummary,
  LastEntryFacts,
  LastEntryKind,
  SubagentLink,
  UsageRecord,
} from './types.ts';

const AGENT_PROGRESS = Buffer.from('"agent_progress"');
const AGENT_ID_KEY = Buffer.from('"agentId"');
const SNAPSHOT_PREFIX = Buffer.from('{"type":"file-history-snapshot"');
const NO_TOOLS: string[] = [];
/** The block types firstText takes text from. */
const TEXT_BLOCKS = new Set(['text', 'input_text', 'output_text']);
export { USAGE_KEYS };

/** What the kernel reads of `message.usage` in the line's walk (see NestedCounts). */
export const USAGE_COUNT_NAMES = [
  'usage',
  ...USAGE_KEYS,
  CACHE_CREATION_KEY,
  CACHE_WRITE_1H_KEY,
  '',
  '',
  '',
] as const;

/** The RawMemo slot of the usage bytes last read without a problem (0, 1: the ids). */
const USAGE_SLOT = 2;

type Json = Record<string, unknown>;

/**
 * Decoded values of fields that repeat a handful of values, shared by the scanners of a
 * thread: each scanner's own memos started empty, and missed (a copy of the bytes and a
 * decode) for every value of every file.
 */
const MEMOS = {
  types: new StringMemo(),
  models: new StringMemo(),
  stops: new StringMemo(),
  blockTypes: new StringMemo(),
  toolNames: new StringMemo(16),
};

export interface ClaudeCodeScannerOptions {
  role: 'session' | 'subagent';
  /** From the file name; lines may override it. */
  sessionId?: string;
  agentId?: string;
}

export class ClaudeCodeScanner extends LineScanner {
  readonly role: 'session' | 'subagent';
  private sessionId: string | undefined;
  private agentId: string | undefined;
  private cwd: string | undefined;
  private gitBranch: string | undefined;
  private version: string | undefined;
  private title: string | undefined;
  private summaryTitle: string | undefined;
  private customTitle: string | undefined;
  private aiTitle: string | undefined;
  private readonly times = new EntryTimes();
  private readonly modelCounts = new ModelCounts();
  private usage = new Map<string, UsageRecord>();
  private copies = new Map<string, UsageRecord>();
  private readonly links = new Map<string, SubagentLink>();
  /** Tool calls without a result: id → tool name. */
  private pendingTools = new Map<string, string>();
  /**
   * Status work (content blocks, pending tools, the deciding entry) on a read from the
   * start is left to a second pass over the file's end (statusReplay): 'defer' skips it
   * except at the entries that reset the status (prompts, interruptions), 'only' does
   * nothing else (that second pass), 'eager' does both (appends).
   */
  private statusMode: 'eager' | 'defer' | 'only' = 'eager';
  /**
   * With 'defer': where the last resetting entry ended (file offset, lines read), and
   * whether status work was skipped since.
   */
  private reset = { end: 0, lines: 0, skipped: false };
  /** False after skipStatus: the deferred status work is never done. */
  private statusWanted = true;
  private last: LastEntryFacts = { kind: 'none', pendingTools: [] };
  private substantive = false;
  private readonly inner = new Fields();
  private readonly msg = new Fields();
  private readonly contentRanges: number[] = [];
  /**
   * The fields of each content block, skimmed with the line (see Nested). A few made up
   * front, so the array holds objects from the start (see RawMemo.SLOTS for why).
   */
  private readonly blockFields: Fields[] = Array.from({ length: 4 }, () => new Fields());
  private readonly usageFields = new Fields();
  private readonly creationFields = new Fields();
  private readonly usageNumbers: (number | undefined)[] = [];
  /** Whether toolUseResult names a subagent, as the kernel saw it with the line. */
  private readonly agentIdCheck: KeyCheck = {
    field: 'toolUseResult',
    key: 'agentId',
    answer: undefined,
  };
  /** message.usage as the kernel read it with the line (when it could). */
  private readonly usageCounts: NestedCounts = {
    names: USAGE_COUNT_NAMES,
    read: false,
    inner: false,
    values: [0, 0, 0, 0, 0, 0, 0, 0],
  };
  /** The tool results of the current line (see toolResultBlocks). */
  private readonly resultIds: string[] = [];
  private resultError = false;
  /** Raw bytes of gitBranch and version last decoded (see Fields.changed). */
  private readonly raw = new RawMemo();
  private buf: Buffer = NO_BYTES;
  /** Raw message id and request id of the last assistant line, and its usage record. */
  private readonly responseIds = new RawMemo();
  private lastResponse: UsageRecord | undefined;
  /** Decoded values of fields that repeat on every line (see MEMOS). */
  private readonly types = MEMOS.types;
  private readonly models = MEMOS.models;
  private readonly stops = MEMOS.stops;
  private readonly blockTypes = MEMOS.blockTypes;
  private readonly toolNames = MEMOS.toolNames;

  constructor(path: string, options: ClaudeCodeScannerOptions) {
    super(path);
    this.role = options.role;
    this.sessionId = options.sessionId;
    this.agentId = options.agentId;
    // message is skimmed with the line, and its content blocks with it: one walk.
    this.nested = {
      key: 'message',
      out: this.msg,
      elementsOf: 'content',
      elements: this.contentRanges,
      elementFields: this.blockFields,
      counts: this.usageCounts,
      keyCheck: this.agentIdCheck,
    };
  }

  /** file-history-snapshot lines are large and carry nothing used here: not even skimmed. */
  protected override skipLine(buf: Buffer, start: number, end: number): boolean {
    const n = SNAPSHOT_PREFIX.length;
    if (end - start <= n || buf[end - 1] !== 0x7d) return false;
    // A byte loop: most lines differ within the first few bytes.
    for (let j = 0; j < n; j++) if (buf[start + j] !== SNAPSHOT_PREFIX[j]) return false;
    return true;
  }

  protected onEntry(f: Fields, line: number): void {
    this.buf = f.buf;
    const type = f.strMemo('type', this.types);
    const ms = this.times.read(f);
    if (this.usageOnly) {
      this.usageEntry(f, type, line, ms);
      return;
    }
    const statusOnly = this.statusMode === 'only';
    if (
      !statusOnly &&
      (type === 'user' || type === 'assistant' || type === 'system' || type === 'progress')
    ) {
      this.context(f);
    }
    // In a main file, 1.0.x inline sidechains are a subagent's conversation: their tokens
    // count, but they neither title the session nor decide its status.
    const forStatus = this.role === 'subagent' || !f.bool('isSidechain');
    switch (type) {
      case 'assistant':
        this.assistant(f, line, ms, forStatus);
        return;
      case 'user':
        this.user(f, line, forStatus);
        return;
      case 'progress':
        if (!statusOnly) this.progress(f, line, ms);
        return;
      case 'system':
        if (forStatus && this.statusNow()) this.system(f, line);
        return;
      case 'summary': {
        const summary = f.str('summary');
        if (summary) this.summaryTitle = cleanTitle(summary) ?? this.summaryTitle;
        return;
      }
      case 'custom-title': {
        // /rename: the user's own name for the session wins over everything (latest one).
        const title = f.str('customTitle');
        if (title) this.customTitle = cleanTitle(title) ?? this.customTitle;
        return;
      }
      case 'ai-title': {
        const title = f.str('aiTitle');
        if (title) this.aiTitle = cleanTitle(title) ?? this.aiTitle;
        return;
      }
      default:
        this.unknownType(type, line);
    }
  }

  /**
   * onEntry for a count of usage only (skipStatus): what the usage report and the
   * aggregation's de-duplication read of a line (its time, the session-wide ids and
   * folder, usage, subagent links), not prompts, titles, branch, version or status.
   */
  private usageEntry(f: Fields, type: string | undefined, line: number, ms: number): void {
    switch (type) {
      case 'assistant':
        this.ids(f);
        this.assistant(f, line, ms, false);
        return;
      case 'user':
        this.ids(f);
        if (f.has('message') && this.toolResultBlocks(false)) this.linkFromToolUseResult(f);
        return;
      case 'progress':
        this.ids(f);
        this.progress(f, line, ms);
        return;
      case 'system':
        this.ids(f);
        return;
      default:
        this.unknownType(type, line);
    }
  }

  private unknownType(type: string | undefined, line: number): void {
    if (type !== undefined && CLAUDE_KNOWN_TYPES.has(type)) return;
    this.unknownTypeProblem(type, line);
  }

  /** The session, its folder and (in a subagent's file) the agent: from the first line with each. */
  private ids(f: Fields): void {
    if (!this.sessionId) this.sessionId = f.str('sessionId') || undefined;
    if (!this.cwd) this.cwd = f.str('cwd') || undefined;
    if (!this.agentId && this.role === 'subagent') this.agentId = f.str('agentId') || undefined;
  }

  /** Session-wide fields, taken from whichever line has them. */
  private context(f: Fields): void {
    this.ids(f);
    // Every line repeats these: decode only when the raw bytes change.
    if (f.changed('gitBranch', this.raw, 0)) {
      const branch = f.str('gitBranch');
      if (branch) this.gitBranch = branch;
    }
    if (f.changed('version', this.raw, 1)) this.version = f.str('version') ?? this.version;
  }

  /** Content blocks of the current line's message (their fields are in blockFields). */
  private blockCount(): number {
    return this.nested?.elementCount ?? 0;
  }

  /** Whether to do an entry's status work now; with 'defer', notes that it was skipped. */
  private statusNow(): boolean {
    if (this.statusMode !== 'defer') return true;
    this.reset.skipped = true;
    return false;
  }

  /** An entry that resets the status (see statusReplay) was just read. */
  private statusReset(): void {
    if (this.statusMode === 'defer') {
      this.reset = { end: this.lineEnd, lines: this.lines, skipped: false };
    }
  }

  /**
   * Before a read from the start of the file: status work is left to a second pass over
   * the file's end. A prompt or an interruption clears the pending tool calls and becomes
   * the deciding entry, so the status at the end depends only on the entries after the
   * last of them: most of a long transcript needs none of that work.
   */
  override deferStatus(): void {
    if (this.bytes === 0) this.statusMode = 'defer';
  }

  /**
   * As deferStatus, without the second pass: a usage count skips the status work, and
   * reads lines for usageEntry only.
   */
  override skipStatus(): void {
    this.deferStatus();
    this.statusWanted = false;
    // Lines are then read for usageEntry only.
    super.skipStatus();
  }

  /**
   * After a read with status work deferred: a scanner for the second pass, to be fed the
   * file from `from` (where the last resetting entry ended) and given to adoptStatus;
   * undefined when no status work was skipped since. This scanner is eager from now on.
   */
  override statusReplay(): StatusReplay | undefined {
    if (this.statusMode !== 'defer') return undefined;
    this.statusMode = 'eager';
    if (!this.reset.skipped || !this.statusWanted) return undefined;
    const replay = new ClaudeCodeScanner(this.path, { role: this.role });
    replay.statusMode = 'only';
    replay.lines = this.reset.lines;
    replay.bytes = this.reset.end;
    // As the status stood after the resetting entry: no pending tool calls.
    replay.last = { ...this.last };
    replay.times.decidingFrom(this.times);
    return { from: this.reset.end, scanner: replay };
  }

  /** The status a second pass (statusReplay) arrived at. */
  override adoptStatus(replay: LineScanner): void {
    if (!(replay instanceof ClaudeCodeScanner)) return;
    this.last = replay.last;
    this.pendingTools = replay.pendingTools;
    this.times.decidingFrom(replay.times);
  }

  /** The entry that decides the status so far (pending tools are filled in by summary). */
  private setLast(kind: LastEntryKind, line: number): LastEntryFacts {
    this.last = { kind, line, pendingTools: NO_TOOLS };
    this.times.decides();
    return this.last;
  }

  /**
   * Assistant lines are skimmed, not parsed: thinking signatures and tool inputs are most
   * of their bytes and only ids, model, stop reason, usage and the block types are used.
   */
  private assistant(f: Fields, line: number, ms: number, forStatus: boolean): void {
    const m = this.msg;
    if (!m.ok) {
      this.problem('invalid-entry', `Line ${line}: an assistant line without a message`, line);
      return;
    }
    const model = m.strMemo('model', this.models);
    const synthetic = model === SYNTHETIC;
    // "No response requested." (written on resume, after /exit): bookkeeping, not a reply.
    if (
      synthetic &&
      isSyntheticNoOp(model, f.bool('isApiErrorMessage'), firstText(m.parse('content')))
    )
      return;
    const apiError = f.bool('isApiErrorMessage') || synthetic;
    // The status pass reads the usage too: where it is malformed, the line throws there as
    // on the first read, so a line that read reports as unreadable decides no status.
    this.response(f, m, model, ms, line);
    if (!apiError) this.substantive = true;
    if (!forStatus || !this.statusNow()) return;
    this.assistantStatus(m, line, apiError);
  }

  /**
   * A response's usage, kept per (message id, request id). The lines of one response
   * follow each other: when message id and request id are the bytes of the previous
   * line's, its record is updated without building a key.
   */
  private response(
    f: Fields,
    m: Fields,
    model: string | undefined,
    ms: number,
    line: number,
  ): void {
    const idChanged = m.changed('id', this.responseIds, 0);
    const requestChanged = f.changed('requestId', this.responseIds, 1);
    const last = this.lastResponse;
    if (!idChanged && !requestChanged && last) {
      if (this.usageCounts.read) {
        // No record for the line: most lines repeat the response they follow.
        const v = this.usageCounts.values;
        mergeCounts(
          last,
          recordModel(model),
          ms,
          count(v[0]),
          count(v[1]),
          count(v[2]),
          count(v[3]),
          count(v[4]),
        );
      } else {
        // Mostly the same usage bytes again (one line per content block): nothing to
        // merge once the record has its model and time.
        const r = m.range('usage');
        const same =
          r !== undefined &&
          this.responseIds.holds(USAGE_SLOT, this.buf, r[0], r[1]) &&
          (last.model !== undefined || model === undefined || model === SYNTHETIC) &&
          (Number.isFinite(last.ms) || !Number.isFinite(ms));
        const usage = same ? undefined : this.skimUsage(m, model, ms);
        if (usage) mergeUsage(last, usage);
      }
    } else {
      this.responseIds.forget(USAGE_SLOT);
      const usage = this.usageCounts.read
        ? this.countedUsage(model, ms)
        : this.skimUsage(m, model, ms);
      // The harness's own messages (API errors) are not billed: no row of their own.
      if (model === SYNTHETIC && (!usage || isEmpty(usage))) {
        this.lastResponse = undefined;
        return;
      }
      const id = m.str('id');
      const requestId = f.str('requestId');
      const rec = this.record(this.usage, id, requestId, usage, line);
      this.lastResponse = id && requestId ? rec : undefined;
    }
  }

  /** The status part of an assistant line (see assistant). */
  private assistantStatus(m: Fields, line: number, apiError: boolean): void {
    const blocks = this.blocks(m);
    const lastBlock = blocks[blocks.length - 1];
    const stop = apiError ? undefined : m.strMemo('stop_reason', this.stops);
    const signal = assistantSignal(apiError, lastBlock?.type, stop);
    if (signal === 'api-error') {
      const facts = this.setLast('api-error', line);
      const text = blocks.find((b) => b.text !== undefined)?.text;
      if (text) facts.detail = cleanTitle(text);
    } else if (signal === 'tool-call') {
      const facts = this.setLast('tool-call', line);
      if (lastBlock?.name) facts.detail = lastBlock.name;
    } else if (signal === 'turn-end' || signal === 'assistant-text') {
      this.setLast(signal, line).asksUser = asksUser(lastBlock?.text);
    } else {
      this.setLast('assistant-progress', line);
    }
  }

  /** Content blocks: type for all, id/name of tool calls (now pending), text of the last. */
  private blocks(m: Fields): { type?: string; name?: string; text?: string }[] {
    const out: { type?: string; name?: string; text?: string }[] = [];
    const r = m.range('content');
    if (!r) return out;
    // Plain string content (older writers): one text block.
    if (this.buf[r[0]] === 0x22) return [{ type: 'text', text: m.str('content') ?? '' }];
    const count = this.blockCount();
    for (let i = 0; i < count; i++) {
      const b = this.blockFields[i]!;
      if (!b.ok) continue;
      const type = b.strMemo('type', this.blockTypes);
      if (type === 'tool_use') {
        const id = b.str('id');
        const name = b.strMemo('name', this.toolNames) ?? 'tool';
        if (id) this.pendingTools.set(id, name);
        out.push({ type, name });
      } else if (type === 'text' && i === count - 1) {
        out.push({ type, text: b.str('text') ?? '' });
      } else out.push(type ? { type } : {});
    }
    return out;
  }

  /** The usage the kernel read with the line, as a record. */
  private countedUsage(model: string | undefined, ms: number): UsageRecord {
    const v = this.usageCounts.values;
    return usageRecordOf(model, ms, v[0], v[1], v[2], v[3], v[4]);
  }

  /**
   * The usage of a skimmed message as a record, its numbers read without JSON.parse; any
   * other shape goes through JSON.parse (which reports bad JSON by throwing).
   */
  private skimUsage(m: Fields, model: string | undefined, ms: number): UsageRecord | undefined {
    const r = m.range('usage');
    const u = this.usageFields;
    const n = this.usageNumbers;
    if (
      !r ||
      this.buf[r[0]] !== 0x7b ||
      !skimObject(this.buf, r[0], r[1], u) ||
      !u.numbers(USAGE_KEYS, n)
    ) {
      return this.usageRecord(model, m.parse('usage'), ms);
    }
    let cacheWrite1h: number | undefined;
    const c = u.range(CACHE_CREATION_KEY);
    const cf = this.creationFields;
    if (c && this.buf[c[0]] === 0x7b && skimObject(this.buf, c[0], c[1], cf)) {
      cacheWrite1h = cf.num(CACHE_WRITE_1H_KEY);
      if (Number.isNaN(cacheWrite1h)) return this.usageRecord(model, m.parse('usage'), ms);
    }
    // Read without a problem: the next line of this response may skip bytes like these.
    this.responseIds.update(USAGE_SLOT, this.buf, r[0], r[1]);
    return usageRecordOf(model, ms, n[0], n[1], n[2], n[3], cacheWrite1h);
  }

  /** One line's usage as a record (undefined when the line has no usage object). */
  private usageRecord(model: unknown, usage: unknown, ms: number): UsageRecord | undefined {
    const u = usageFields(usage);
    if (!u) return undefined;
    return usageRecordOf(model, ms, u.input, u.output, u.cacheRead, u.cacheWrite, u.cacheWrite1h);
  }

  /** Adds one line's usage record to `map` with the per-field maximum per response key. */
  private record(
    map: Map<string, UsageRecord>,
    messageId: unknown,
    requestId: unknown,
    rec: UsageRecord | undefined,
    line: number,
  ): UsageRecord | undefined {
    if (!rec) return undefined;
    const id = typeof messageId === 'string' && messageId ? messageId : undefined;
    let key: string;
    if (id) key = responseKey(id, requestId);
    else {
      if (rec.input + rec.output + rec.cacheRead + rec.cacheWrite === 0) return undefined;
      // No id to de-duplicate by: count the line on its own, and say so.
      key = `${this.path}#${line}`;
      this.problem('missing-id', `Line ${line}: usage without a message id (counted once)`, line);
    }
    const prev = map.get(key);
    if (prev) {
      mergeUsage(prev, rec);
      return prev;
    }
    map.set(key, rec);
    const model = rec.model;
    if (model && map === this.usage) {
      this.modelCounts.count(model);
    }
    return rec;
  }

  private user(f: Fields, line: number, forStatus: boolean): void {
    if (!f.has('message')) return;
    // Tool results are most of the bytes; their content is never decoded. The content
    // blocks were found with the line's skim; each is skimmed for its fields.
    if (this.toolResultBlocks(this.statusMode !== 'defer')) {
      // In the status pass too (see assistant): it throws where the first read threw.
      this.linkFromToolUseResult(f);
      if (forStatus && this.statusNow()) this.toolResults(this.resultIds, this.resultError, line);
      return;
    }
    // Not tool results: a prompt, or harness bookkeeping (meta lines, slash commands).
    if (NOT_PROMPT_FLAGS.some((flag) => f.bool(flag))) return;
    const text = (this.promptText(f) ?? '').trimStart();
    const signal = userSignal(text, false);
    if (signal === 'none' || !forStatus) return;
    // A new prompt or an interruption abandons whatever tool calls were still open.
    if (signal !== 'confirms-turn-end' && CLOSES_OPEN_CALLS.has(signal)) this.pendingTools.clear();
    if (signal === 'interrupted') {
      this.setLast('interrupted', line);
      this.statusReset();
      return;
    }
    this.substantive = true;
    this.setLast('user-prompt', line);
    this.statusReset();
    if (!this.title && text) this.title = cleanTitle(text);
  }

  /**
   * firstText of the message's content, from the skimmed blocks: a pasted image or a long
   * paste is never decoded or parsed (JSON.parse of the message is the fallback).
   */
  private promptText(f: Fields): string | undefined {
    const m = this.msg;
    const r = m.ok ? m.range('content') : undefined;
    if (!r) {
      const msg = f.parse('message') as Json | null | undefined;
      return firstText(msg && typeof msg === 'object' ? msg.content : undefined);
    }
    const first = this.buf[r[0]];
    if (first === 0x22) return m.str('content');
    if (first !== 0x5b) return undefined;
    const count = this.blockCount();
    for (let i = 0; i < count; i++) {
      const b = this.blockFields[i]!;
      if (!b.ok || !TEXT_BLOCKS.has(b.strMemo('type', this.blockTypes) ?? '')) continue;
      const text = b.str('text');
      if (text !== undefined) return text;
    }
    return undefined;
  }

  /**
   * Whether the skimmed message's content has tool_result blocks; with `ids`, their
   * tool_use_ids go to resultIds and any is_error to resultError.
   */
  private toolResultBlocks(ids: boolean): boolean {
    const count = this.blockCount();
    if (!this.msg.ok || count === 0) return false;
    this.resultIds.length = 0;
    let found = false;
    this.resultError = false;
    for (let i = 0; i < count; i++) {
      const b = this.blockFields[i]!;
      if (!b.ok || b.strMemo('type', this.blockTypes) !== 'tool_result') continue;
      found = true;
      if (!ids) break;
      const id = b.str('tool_use_id');
      if (id) this.resultIds.push(id);
      if (b.bool('is_error')) this.resultError = true;
    }
    return found;
  }

  private toolResults(ids: string[], isError: boolean, line: number): void {
    for (const id of ids) this.pendingTools.delete(id);
    const facts = this.setLast('tool-result', line);
    if (isError) facts.isError = true;
  }

  /** A Task result names the subagent it ran (`toolUseResult.agentId`). */
  private linkFromToolUseResult(f: Fields): void {
    // Most results are not a Task's (and are large): the kernel's walk of the line, or
    // else a native search, rules them out.
    const seen = this.agentIdCheck.answer;
    if (seen === false) return;
    const r = f.range('toolUseResult');
    if (!r || this.buf[r[0]] !== 0x7b) return;
    if (seen === undefined && !hasKeyPattern(this.buf, r[0], r[1], AGENT_ID_KEY)) return;
    if (!skimObject(this.buf, r[0], r[1], this.inner)) return;
    const agentId = this.inner.str('agentId');
    // The ids, if this read skipped them (a rare line: a Task's result).
    if (agentId && this.toolResultBlocks(true)) this.link(agentId, this.resultIds[0]);
  }

  private link(agentId: string, toolUseId: string | undefined): void {
    const prev = this.links.get(agentId);
    if (prev) prev.toolUseId ??= toolUseId;
    else this.links.set(agentId, toolUseId ? { agentId, toolUseId } : { agentId });
  }

  private progress(f: Fields, line: number, ms: number): void {
    const r = f.range('data');
    if (!r || !hasKeyPattern(this.buf, r[0], r[1], AGENT_PROGRESS)) return;
    const data = f.parse('data') as Json | null | undefined;
    if (!data || data.type !== 'agent_progress') return;
    const agentId = typeof data.agentId === 'string' && data.agentId ? data.agentId : undefined;
    if (agentId) this.link(agentId, f.str('parentToolUseID'));
    const inner = data.message as Json | null | undefined;
    if (
      !inner ||
      inner.type !== 'assistant' ||
      !inner.message ||
      typeof inner.message !== 'object'
    ) {
      return;
    }
    const innerMs = typeof inner.timestamp === 'string' ? Date.parse(inner.timestamp) : NaN;
    const copy = inner.message as Json;
    const rec = this.record(
      this.copies,
      copy.id,
      inner.requestId,
      this.usageRecord(copy.model, copy.usage, Number.isFinite(innerMs) ? innerMs : ms),
      line,
    );
    if (rec && agentId) rec.agentId ??= agentId;
  }

  private system(f: Fields, line: number): void {
    const subtype = f.str('subtype');
    const signal = systemSignal(subtype, f.str('level'));
    if (signal === 'api-error') {
      const facts = this.setLast('api-error', line);
      facts.detail = subtype ?? 'error';
      if (f.has('retryInMs') || f.has('retryAttempt')) facts.retrying = true;
      return;
    }
    // Written after a turn ends (stop hooks ran, the turn's duration): confirms a text
    // without a stop reason was the last word.
    if (signal === 'confirms-turn-end' && this.last.kind === 'assistant-text') {
      this.last.kind = 'turn-end';
    }
  }

  /**
   * The state at rest (after finish and the status pass), as plain data; usage records
   * are the summary's (see scannerState.ts).
   */
  saveState(): ClaudeCodeScannerState {
    const s: ClaudeCodeScannerState = {
      harness: 'claude-code',
      base: this.saveBase(),
      role: this.role,
      times: this.times.save(),
      models: this.modelCounts.save(),
      links: [...this.links.values()].map((l) => ({ ...l })),
      pendingTools: [...this.pendingTools],
      last: copyFacts(this.last),
      substantive: this.substantive,
    };
    if (this.sessionId !== undefined) s.sessionId = this.sessionId;
    if (this.agentId !== undefined) s.agentId = this.agentId;
    if (this.cwd !== undefined) s.cwd = this.cwd;
    if (this.gitBranch !== undefined) s.gitBranch = this.gitBranch;
    if (this.version !== undefined) s.version = this.version;
    if (this.title !== undefined) s.title = this.title;
    if (this.summaryTitle !== undefined) s.summaryTitle = this.summaryTitle;
    if (this.customTitle !== undefined) s.customTitle = this.customTitle;
    if (this.aiTitle !== undefined) s.aiTitle = this.aiTitle;
    return s;
  }

  /**
   * A scanner that continues where the one that saved `state` stopped, holding `usage` and
   * `copies` (its records; kept, not copied).
   */
  static resume(
    path: string,
    state: ClaudeCodeScannerState,
    usage: Map<string, UsageRecord>,
    copies: Map<string, UsageRecord>,
  ): ClaudeCodeScanner {
    const scanner = new ClaudeCodeScanner(path, { role: state.role });
    scanner.restoreBase(state.base);
    scanner.sessionId = state.sessionId;
    scanner.agentId = state.agentId;
    scanner.cwd = state.cwd;
    scanner.gitBranch = state.gitBranch;
    scanner.version = state.version;
    scanner.title = state.title;
    scanner.summaryTitle = state.summaryTitle;
    scanner.customTitle = state.customTitle;
    scanner.aiTitle = state.aiTitle;
    scanner.times.restore(state.times);
    scanner.modelCounts.restore(state.models);
    scanner.usage = usage;
    scanner.copies = copies;
    for (const l of state.links) scanner.links.set(l.agentId, { ...l });
    scanner.pendingTools = new Map(state.pendingTools);
    scanner.last = copyFacts(state.last);
    scanner.substantive = state.substantive;
    return scanner;
  }

  summary(): FileSummary {
    const mainModel = this.modelCounts.main();
    const s: FileSummary = {
      path: this.path,
      harness: 'claude-code',
      role: this.role,
      models: this.modelCounts.list(),
      firstMs: this.times.firstMs,
      lastMs: this.times.lastMs,
      usage: this.usage,
      copies: this.copies,
      subagents: [...this.links.values()],
      last: { ...this.last, pendingTools: [...this.pendingTools.values()] },
      substantive: this.substantive,
      noTokenInfo: false,
      problems: this.problems(),
      lines: this.lines,
      bytes: this.bytes,
    };
    if (this.sessionId) s.sessionId = this.sessionId;
    if (this.agentId) s.agentId = this.agentId;
    if (this.cwd) s.cwd = this.cwd;
    if (this.gitBranch) s.gitBranch = this.gitBranch;
    if (this.version) s.version = this.version;
    if (mainModel) s.mainModel = mainModel;
    this.times.fill(s);
    // Label order: /rename title, first prompt, then generated titles.
    const title = this.customTitle ?? this.title;
    if (title) s.title = title;
    const fallback = this.aiTitle ?? this.summaryTitle;
    if (fallback) s.summaryTitle = fallback;
    return s;
  }
}

function isEmpty(r: UsageRecord): boolean {
  return r.input + r.output + r.cacheRead + r.cacheWrite === 0;
}

/** The model a usage record keeps: none for the synthetic one (errors) or a missing one. */
function recordModel(model: unknown): string | undefined {
  return typeof model === 'string' && model && model !== SYNTHETIC ? model : undefined;
}

/** A usage record from raw counts (each through count(): null, strings, negatives are 0). */
function usageRecordOf(
  model: unknown,
  ms: number,
  input: unknown,
  output: unknown,
  cacheRead: unknown,
  cacheWrite: unknown,
  cacheWrite1h: unknown,
): UsageRecord {
  return usageRecord(
    recordModel(model),
    ms,
    count(input),
    count(output),
    count(cacheRead),
    count(cacheWrite),
    count(cacheWrite1h),
    0,
  );
}
