/**
 * Incremental scanner of one Codex rollout file. Current files are `{timestamp, type,
 * payload}` lines; legacy files (before ~Sept 2025) are bare response items after an
 * `{id, timestamp, instructions}` header and carry no token counts. token_count totals
 * are cumulative and written twice: usage is the delta of `total_token_usage` between
 * consecutive distinct totals (a repeated total adds nothing; a total that goes down
 * starts a new series), never a sum of `last_token_usage`. Reasoning items and tool
 * output are never parsed: only their type and call id are read from the raw bytes.
 */
import { ModelCounts } from './modelCounts.ts';
import {
  Fields,
  RawMemo,
  StringMemo,
  hasKeyPattern,
  skimObject,
  type NestedCounts,
} from '../../domain/json/skim.ts';
import {
  CLOSES_OPEN_CALLS,
  CODEX_ENVELOPES,
  ESCALATION_MARKERS,
  RETRYING_ERROR_EVENT,
  TOKEN_COUNT_EVENT,
  TOTAL_KEYS,
  asksEscalation,
  eventSignal,
  itemSignal,
} from '../../domain/formats/codex.ts';
import { JSON_DONE, JsonValidator } from '../../domain/json/validate.ts';
import type { RecordSignal } from '../../domain/formats/statusSignal.ts';
import { LineScanner } from './engine/lineScanner.ts';
import { EntryTimes } from './entryTimes.ts';
import { copyFacts, type CodexScannerState } from './scannerState.ts';
import { asksUser, cleanTitle, count, firstText, repositoryFromRemote } from './text.ts';
import type { FileSummary, LastEntryFacts, LastEntryKind, UsageRecord } from './types.ts';
import { usageRecord } from './usageRecord.ts';

/** What a call's arguments hold when it asks to leave the sandbox, as bytes. */
const ESCALATION_PATTERNS = ESCALATION_MARKERS.map((m) => Buffer.from(m));
export { TOTAL_KEYS };
/** What the kernel reads of a payload's `info.total_token_usage` (see NestedCounts). */
export const TOTAL_COUNT_NAMES = [
  'info',
  '',
  '',
  '',
  '',
  'total_token_usage',
  ...TOTAL_KEYS,
] as const;

type Json = Record<string, unknown>;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const isWs = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Whether no top-level key of `p`, an object checked to be JSON, holds an escape: the
 * skim finds keys by their raw bytes, JSON.parse by their decoded text.
 */
function plainKeys(p: Fields): boolean {
  const b = p.buf;
  let i = p.start + 1;
  for (;;) {
    while (isWs(b[i])) i++;
    if (b[i] !== QUOTE) return true; // the closing brace
    let j = i + 1;
    for (; b[j] !== QUOTE; j++) if (b[j] === BACKSLASH) return false;
    for (j++; isWs(b[j]) || b[j] === COLON; j++);
    i = p.valueEndAt(j);
    if (i < 0) return false;
    while (isWs(b[i])) i++;
    if (b[i] === COMMA) i++;
  }
}

/**
 * Decoded values of fields that repeat a handful of values, shared by the scanners of a
 * thread: each scanner's own memos started empty, and missed for every value of every file.
 */
const MEMOS = { types: new StringMemo(), itemTypes: new StringMemo() };
/** Checks a payload read from its skimmed fields, shared by the scanners of a thread. */
const payloadCheck = new JsonValidator();

interface Totals {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

export class CodexScanner extends LineScanner {
  private sessionId: string | undefined;
  private cwd: string | undefined;
  private gitBranch: string | undefined;
  private gitRemote: string | undefined;
  private version: string | undefined;
  private model: string | undefined;
  private approvalPolicy: string | undefined;
  private title: string | undefined;
  private readonly times = new EntryTimes();
  private readonly modelCounts = new ModelCounts();
  private usage = new Map<string, UsageRecord>();
  private prevTotal: Totals | undefined;
  private sawTokenCount = false;
  /** Pre-Sept-2025 format (no envelope): no token counts to expect. */
  private legacy = false;
  /** Calls without output: call_id → name and whether it asks for escalation. */
  private readonly pendingCalls = new Map<string, { name: string; escalation: boolean }>();
  private last: LastEntryFacts = { kind: 'none', pendingTools: [] };
  private substantive = false;
  private readonly inner = new Fields();
  private readonly info = new Fields();
  private readonly total = new Fields();
  /** The last token_count payload's bytes. */
  private readonly tokenPayload = new RawMemo();
  private readonly totalNumbers: (number | undefined)[] = [];
  /** info.total_token_usage as the kernel read it with the line (when it could). */
  private readonly totalCounts: NestedCounts = {
    names: TOTAL_COUNT_NAMES,
    read: false,
    inner: false,
    values: [0, 0, 0, 0, 0, 0, 0, 0],
  };
  /** Decoded envelope and item types, shared by the scanners of a thread (see MEMOS). */
  private readonly types = MEMOS.types;
  private readonly itemTypes = MEMOS.itemTypes;

  constructor(path: string, sessionId?: string) {
    super(path);
    this.sessionId = sessionId;
    this.nested = { key: 'payload', out: this.inner, counts: this.totalCounts };
  }

  /**
   * With a count of usage only, whether items and events other than token counts can
   * change nothing but status facts any more: the title (set with the session's substance)
   * and the working directory are known, and each is taken once.
   */
  private onlyStatusLeft(): boolean {
    return this.usageOnly && !!this.title && this.cwd !== undefined;
  }

  protected onEntry(f: Fields, line: number): void {
    if (!f.has('payload')) {
      this.legacyEntry(f, line);
      return;
    }
    const ms = this.times.read(f);
    const type = f.strMemo('type', this.types);
    switch (type) {
      case 'session_meta':
        if (this.skimmedPayload(f)) this.sessionMetaFields(this.inner);
        else this.sessionMeta(f.parse('payload') as Json | null);
        return;
      case 'turn_context':
        if (this.skimmedPayload(f)) this.turnContextFields(this.inner);
        else this.turnContext(f.parse('payload') as Json | null);
        return;
      case 'response_item':
      case 'event_msg': {
        if (!this.inner.ok) {
          this.problem('invalid-entry', `Line ${line}: the payload is not an object`, line);
          return;
        }
        if (type === 'response_item') this.responseItem(this.inner, line);
        else this.event(this.inner, line, ms);
        return;
      }
      case 'compacted':
        return;
      default:
        if (type === undefined || !CODEX_ENVELOPES.has(type)) {
          this.unknownTypeProblem(type, line);
        }
    }
  }

  /** Legacy lines: the header, `record_type` markers, and bare response items. */
  private legacyEntry(f: Fields, line: number): void {
    this.legacy = true;
    this.times.entry(NaN, undefined); // legacy items carry no timestamp
    if (f.has('record_type')) return;
    if (!f.has('type') && f.has('id')) {
      this.sessionId ??= f.str('id');
      const timestamp = f.str('timestamp');
      this.times.entry(timestamp ? Date.parse(timestamp) : NaN, timestamp);
      return;
    }
    if (f.has('type')) {
      this.responseItem(f, line);
      return;
    }
    this.countedProblem('unknown-type', `Line ${line} is not a Codex entry (skipped)`, line);
  }

  /**
   * For a count of usage only, whether the payload's skimmed fields give what its parse
   * would: it is the line's (last) payload, an object, and JSON as JSON.parse decides (a
   * parse that throws reports the line, so any other payload takes the parse).
   */
  private skimmedPayload(f: Fields): boolean {
    const p = this.inner;
    if (!this.usageOnly || !p.ok || f.valueStart('payload') !== p.start) return false;
    payloadCheck.reset();
    return payloadCheck.feed(p.buf, p.start, p.end) === JSON_DONE && plainKeys(p);
  }

  /** sessionMeta from the payload's skimmed fields (see skimmedPayload). */
  private sessionMetaFields(p: Fields): void {
    const id = p.str('id');
    if (id) this.sessionId = id;
    const timestamp = p.str('timestamp');
    if (timestamp !== undefined) this.times.earlier(Date.parse(timestamp), timestamp);
    const cwd = p.str('cwd');
    if (cwd) this.cwd ??= cwd;
    const version = p.str('cli_version');
    if (version !== undefined) this.version = version;
    this.gitFacts(p.parse('git') as Json | null | undefined);
  }

  /** turnContext from the payload's skimmed fields (see skimmedPayload). */
  private turnContextFields(p: Fields): void {
    const model = p.str('model');
    if (model) {
      this.model = model;
      this.modelCounts.see(model);
    }
    const cwd = p.str('cwd');
    if (cwd) this.cwd ??= cwd;
    const policy = p.str('approval_policy');
    if (policy !== undefined) this.approvalPolicy = policy;
  }

  private sessionMeta(p: Json | null): void {
    if (!p || typeof p !== 'object') return;
    if (typeof p.id === 'string' && p.id) this.sessionId = p.id;
    // When the session started: the line itself is written once the first turn begins.
    if (typeof p.timestamp === 'string') this.times.earlier(Date.parse(p.timestamp), p.timestamp);
    if (typeof p.cwd === 'string' && p.cwd) this.cwd ??= p.cwd;
    if (typeof p.cli_version === 'string') this.version = p.cli_version;
    this.gitFacts(p.git as Json | null | undefined);
  }

  private gitFacts(git: Json | null | undefined): void {
    if (git && typeof git === 'object') {
      if (typeof git.branch === 'string' && git.branch) this.gitBranch = git.branch;
      if (typeof git.repository_url === 'string' && git.repository_url) {
        this.gitRemote = repositoryFromRemote(git.repository_url);
      }
    }
  }

  private turnContext(p: Json | null): void {
    if (!p || typeof p !== 'object') return;
    if (typeof p.model === 'string' && p.model) {
      this.model = p.model;
      this.modelCounts.see(p.model);
    }
    if (typeof p.cwd === 'string' && p.cwd) this.cwd ??= p.cwd;
    if (typeof p.approval_policy === 'string') this.approvalPolicy = p.approval_policy;
  }

  /** The current entry decides the status so far (its time is filled in by summary). */
  private setLast(kind: LastEntryKind, line: number): LastEntryFacts {
    const pending = [...this.pendingCalls.values()];
    this.last = { kind, line, pendingTools: pending.map((c) => c.name) };
    this.times.decides();
    if (pending.some((c) => c.escalation)) this.last.escalation = true;
    if (this.approvalPolicy) this.last.approvalPolicy = this.approvalPolicy;
    return this.last;
  }

  /** Open calls end with some signals (a new prompt, the end or abortion of the turn). */
  private closeCalls(signal: RecordSignal): void {
    if (signal !== 'confirms-turn-end' && CLOSES_OPEN_CALLS.has(signal)) this.pendingCalls.clear();
  }

  private responseItem(p: Fields, line: number): void {
    if (this.onlyStatusLeft()) return;
    const type = p.strMemo('type', this.itemTypes);
    const role = type === 'message' ? p.str('role') : undefined;
    const text =
      role === 'user' || role === 'assistant' ? firstText(p.parse('content')) : undefined;
    const signal = itemSignal(type, role, text);
    this.closeCalls(signal);
    switch (signal) {
      case 'assistant-progress':
        this.setLast('assistant-progress', line);
        return;
      case 'tool-result': {
        const id = p.str('call_id');
        if (id) this.pendingCalls.delete(id);
        this.setLast('tool-result', line);
        return;
      }
      case 'user-prompt':
        this.prompt(text, line);
        return;
      case 'assistant-text':
        this.assistantText(text, line);
        return;
      case 'tool-call':
        this.toolCall(p, type!, line);
        return;
      default:
        // Injected context (not a prompt): legacy files carry the working directory only here.
        if (role === 'user') this.injected(text);
    }
  }

  private toolCall(p: Fields, type: string, line: number): void {
    const id = p.str('call_id') ?? p.str('id') ?? '';
    const name = p.str('name') ?? type;
    // The arguments are parsed only when they may ask for escalation (most calls do not).
    const escalation =
      ESCALATION_PATTERNS.some((m) => hasKeyPattern(p.buf, p.start, p.end, m)) &&
      asksEscalation(p.parseAll() as Json);
    this.pendingCalls.set(id || `line-${line}`, { name, escalation });
    this.substantive = true;
    this.setLast('tool-call', line).detail = name;
  }

  private injected(text: string | undefined): void {
    const cwd = /<cwd>([^<]+)<\/cwd>/.exec(text ?? '')?.[1]?.trim();
    if (cwd) this.cwd ??= cwd;
  }

  private prompt(text: string | undefined, line: number): void {
    const t = (text ?? '').trimStart();
    this.substantive = true;
    this.setLast('user-prompt', line);
    if (!this.title && t) this.title = cleanTitle(t);
  }

  private assistantText(text: string | undefined, line: number): void {
    this.substantive = true;
    this.setLast('assistant-text', line).asksUser = asksUser(text);
  }

  private event(p: Fields, line: number, ms: number): void {
    const type = p.strMemo('type', this.itemTypes);
    if (type !== TOKEN_COUNT_EVENT && this.onlyStatusLeft()) return;
    let signal = eventSignal(type);
    // A user_message's text decides whether it is a prompt (see the format module).
    const message = signal === 'user-prompt' ? p.str('message') : undefined;
    if (message !== undefined) signal = eventSignal(type, message);
    this.closeCalls(signal);
    if (type === TOKEN_COUNT_EVENT) {
      // 0.9x writes each token_count twice in a row: the copy needs no parsing.
      if (this.kernelReadTotal()) this.tokens(p, ms, line);
      else if (!this.sameAsLastTokenCount(p)) this.tokens(p, ms, line);
    }
    switch (signal) {
      case 'confirms-turn-end':
        // The request that produced a final message is complete: the turn ended.
        if (this.last.kind === 'assistant-text') this.last.kind = 'turn-end';
        return;
      case 'user-prompt':
        this.prompt(message, line);
        return;
      case 'assistant-text':
        this.assistantText(p.str('message'), line);
        return;
      case 'assistant-progress':
        this.setLast('assistant-progress', line);
        return;
      case 'turn-end': {
        const lastText = p.str('last_agent_message');
        const asked = lastText !== undefined ? asksUser(lastText) : this.last.asksUser === true;
        this.setLast('turn-end', line).asksUser = asked;
        return;
      }
      case 'interrupted':
        this.setLast('interrupted', line).detail = p.str('reason');
        return;
      case 'api-error': {
        const facts = this.setLast('api-error', line);
        facts.detail = cleanTitle(p.str('message') ?? type ?? 'error');
        if (type === RETRYING_ERROR_EVENT) facts.retrying = true;
        return;
      }
      case 'approval':
        this.setLast('approval', line).detail = type;
        return;
      default:
    }
  }

  /**
   * Whether the kernel read this line's total, so that tokens() parses nothing and a copy
   * adds nothing without a comparison of bytes. The memo is then emptied: it must hold only
   * the token_count just before, or a later copy of an older one would be skipped.
   */
  private kernelReadTotal(): boolean {
    if (!this.totalCounts.read || !this.totalCounts.inner) return false;
    this.tokenPayload.forget(0);
    return true;
  }

  private sameAsLastTokenCount(p: Fields): boolean {
    return !this.tokenPayload.update(0, p.buf, p.start, p.end);
  }

  /** A token_count payload: its `info.total_token_usage` read by skimming, not parsing. */
  private tokens(p: Fields, ms: number, line: number): void {
    const cur = this.totalOf(p);
    // `info: null` is the first token_count of a session (rate limits only).
    if (!cur) return;
    this.sawTokenCount = true;
    const prev = this.prevTotal;
    if (
      prev &&
      cur.input === prev.input &&
      cur.cached === prev.cached &&
      cur.output === prev.output &&
      cur.reasoning === prev.reasoning
    ) {
      return; // the same total written again
    }
    let d = cur;
    if (
      prev &&
      cur.input >= prev.input &&
      cur.cached >= prev.cached &&
      cur.output >= prev.output &&
      cur.reasoning >= prev.reasoning
    ) {
      d = {
        input: cur.input - prev.input,
        cached: cur.cached - prev.cached,
        output: cur.output - prev.output,
        reasoning: cur.reasoning - prev.reasoning,
      };
    } else if (prev) {
      this.countedProblem(
        'token-reset',
        `Line ${line}: the cumulative token total went down; counted as a new series`,
        line,
      );
    }
    this.prevTotal = cur;
    this.usage.set(
      String(line),
      usageRecord(
        this.model,
        ms,
        Math.max(0, d.input - d.cached),
        d.output,
        d.cached,
        0,
        0,
        d.reasoning,
      ),
    );
    if (this.model) this.modelCounts.count(this.model);
  }

  /** info.total_token_usage of a token_count payload; undefined when there is none. */
  private totalOf(p: Fields): Totals | undefined {
    const counts = this.totalCounts;
    // Read with the line when info held a total_token_usage object (else as below: any
    // other shape goes through JSON.parse, which also reports bad JSON).
    if (counts.read && counts.inner) {
      const v = counts.values;
      return {
        input: count(v[4]),
        cached: count(v[5]),
        output: count(v[6]),
        reasoning: count(v[7]),
      };
    }
    const buf = p.buf;
    const i = p.range('info');
    if (!i || buf[i[0]] !== 0x7b || !skimObject(buf, i[0], i[1], this.info)) {
      return this.parsedTotal(p);
    }
    const r = this.info.range('total_token_usage');
    if (!r || buf[r[0]] !== 0x7b) return this.parsedTotal(p);
    const n = this.totalNumbers;
    // A malformed number: the parse in parsedTotal throws and the line is reported.
    if (!skimObject(buf, r[0], r[1], this.total) || !this.total.numbers(TOTAL_KEYS, n)) {
      return this.parsedTotal(p);
    }
    return { input: count(n[0]), cached: count(n[1]), output: count(n[2]), reasoning: count(n[3]) };
  }

  /** The same through JSON.parse, for any other shape (null, strings, bad JSON). */
  private parsedTotal(p: Fields): Totals | undefined {
    const info = (p.parseAll() as Json).info;
    if (!info || typeof info !== 'object') return undefined;
    const t = (info as Json).total_token_usage as Json | null | undefined;
    if (!t || typeof t !== 'object') return undefined;
    return {
      input: count(t.input_tokens),
      cached: count(t.cached_input_tokens),
      output: count(t.output_tokens),
      reasoning: count(t.reasoning_output_tokens),
    };
  }

  /** The state at rest, as plain data; usage records are the summary's (scannerState.ts). */
  saveState(): CodexScannerState {
    const s: CodexScannerState = {
      harness: 'codex',
      base: this.saveBase(),
      times: this.times.save(),
      models: this.modelCounts.save(),
      sawTokenCount: this.sawTokenCount,
      legacy: this.legacy,
      pendingCalls: [...this.pendingCalls].map(([id, c]) => [id, { ...c }]),
      last: copyFacts(this.last),
      substantive: this.substantive,
    };
    if (this.sessionId !== undefined) s.sessionId = this.sessionId;
    if (this.cwd !== undefined) s.cwd = this.cwd;
    if (this.gitBranch !== undefined) s.gitBranch = this.gitBranch;
    if (this.gitRemote !== undefined) s.gitRemote = this.gitRemote;
    if (this.version !== undefined) s.version = this.version;
    if (this.model !== undefined) s.model = this.model;
    if (this.approvalPolicy !== undefined) s.approvalPolicy = this.approvalPolicy;
    if (this.title !== undefined) s.title = this.title;
    if (this.prevTotal) s.prevTotal = { ...this.prevTotal };
    return s;
  }

  /** A scanner that continues where the one that saved `state` stopped, holding `usage`. */
  static resume(
    path: string,
    state: CodexScannerState,
    usage: Map<string, UsageRecord>,
  ): CodexScanner {
    const scanner = new CodexScanner(path, state.sessionId);
    scanner.restoreBase(state.base);
    scanner.cwd = state.cwd;
    scanner.gitBranch = state.gitBranch;
    scanner.gitRemote = state.gitRemote;
    scanner.version = state.version;
    scanner.model = state.model;
    scanner.approvalPolicy = state.approvalPolicy;
    scanner.title = state.title;
    scanner.times.restore(state.times);
    scanner.modelCounts.restore(state.models);
    scanner.usage = usage;
    scanner.prevTotal = state.prevTotal ? { ...state.prevTotal } : undefined;
    scanner.sawTokenCount = state.sawTokenCount;
    scanner.legacy = state.legacy;
    for (const [id, c] of state.pendingCalls) scanner.pendingCalls.set(id, { ...c });
    scanner.last = copyFacts(state.last);
    scanner.substantive = state.substantive;
    return scanner;
  }

  summary(): FileSummary {
    const mainModel = this.modelCounts.main(this.model);
    const s: FileSummary = {
      path: this.path,
      harness: 'codex',
      role: 'session',
      models: this.modelCounts.list(),
      firstMs: this.times.firstMs,
      lastMs: this.times.lastMs,
      usage: this.usage,
      copies: new Map(),
      subagents: [],
      last: { ...this.last },
      substantive: this.substantive,
      noTokenInfo: this.legacy && !this.sawTokenCount,
      problems: this.problems(),
      lines: this.lines,
      bytes: this.bytes,
    };
    if (this.sessionId) s.sessionId = this.sessionId;
    if (this.cwd) s.cwd = this.cwd;
    if (this.gitBranch) s.gitBranch = this.gitBranch;
    if (this.gitRemote) s.gitRemote = this.gitRemote;
    if (this.version) s.version = this.version;
    if (mainModel) s.mainModel = mainModel;
    this.times.fill(s);
    if (this.title) s.title = this.title;
    return s;
  }
}
