/**
 * Why our Claude Code day × model totals and ccusage's differ: both sides' rules applied
 * literally to the same files, response by response, so every difference comes with the
 * responses that cause it and the rule behind it. The bench only trusts an explanation when
 * the two modelled totals reproduce the two real outputs exactly.
 *
 * ccusage 20.0.24 (`daily --json --offline`, native binary), as observed on hand-made
 * files (see the report of the bench task; these are behaviours, not its documentation):
 * - it reads only lines that contain `"usage":{` (compact one-line JSON), both assistant
 *   lines and the `agent_progress` copies of subagent lines in the parent file (dated by
 *   the copy's inner timestamp); a line with `"id": null` is skipped;
 * - one entry per (message.id, requestId) across all files: an entry without
 *   `isSidechain: true` replaces a sidechain one, else the entry with the larger
 *   input + output + cache total replaces the kept one; the kept line gives the day and
 *   every token field;
 * - `<synthetic>` responses are left out of the model breakdown.
 * Ours (src/sources/local/aggregate.ts): the same key, but each field's maximum over every
 * line and copy; the day of the response's first line in the file that owns it; copies
 * count only when no file has the response itself; `<synthetic>` with tokens is model
 * `unknown` (the zero-token ones, API errors and "No response requested.", make no record).
 */
import { readFile } from 'node:fs/promises';
import type { CorpusFile } from '../../test/support/localCorpus.ts';

export const FIELDS = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;
export type Field = (typeof FIELDS)[number];
export type Tokens = Record<Field, number>;

export type Reason =
  'kept-copy' | 'largest-total-line' | 'day-of-kept-line' | 'skipped' | 'synthetic';

export const REASONS: Record<Reason, string> = {
  'kept-copy':
    "ccusage kept an agent_progress copy from the parent file (it has no isSidechain flag, so ccusage prefers it) over the subagent file's own lines (isSidechain: true) that carry the final count; the copy is an earlier streaming snapshot. We take each field's maximum over the lines and copies",
  'largest-total-line':
    "ccusage kept the one line with the largest input+output+cache total; we take each field's maximum over the response's lines",
  'day-of-kept-line':
    "the response's lines straddle midnight: ccusage dates it by the line it kept (the one with the largest count), we by its first line",
  skipped: 'ccusage skips these lines (not compact one-line JSON, or a null id); we count them',
  synthetic:
    'model <synthetic> with tokens: ccusage leaves it out of the model breakdown, we count it as model "unknown"',
};

/** `claude|<day>|<model>` → tokens. */
export type Cells = Map<string, Tokens>;

export interface Contribution {
  reason: Reason;
  responses: number;
  /** Ours − ccusage, per field. */
  delta: Tokens;
}

export interface RuleModel {
  ours: Cells;
  ccusage: Cells;
  /** Per cell: what made ours and ccusage's differ there. */
  why: Map<string, Contribution[]>;
}

type Obj = Record<string, unknown>;

interface Observation {
  fileOrder: number;
  line: number;
  ms: number;
  model: string | undefined;
  tokens: Tokens;
  copy: boolean;
  sidechain: boolean;
  /** ccusage reads this line. */
  ccusageReads: boolean;
}

const zero = (): Tokens => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
const num = (v: unknown) => (typeof v === 'number' && v > 0 ? v : 0);
const total = (t: Tokens) => t.input + t.output + t.cacheRead + t.cacheWrite;

function addInto(cells: Cells, key: string, t: Tokens, sign = 1): void {
  const c = cells.get(key) ?? zero();
  for (const f of FIELDS) c[f] += sign * t[f];
  cells.set(key, c);
}

export const cellKey = (harness: string, day: string, model: string) =>
  `${harness}|${day}|${model}`;

/** Applies both rule sets to the Claude Code files of the corpus. */
export async function modelClaudeRules(
  files: readonly CorpusFile[],
  dayOf: (ms: number) => string,
): Promise<RuleModel> {
  const claude = files
    .filter((f) => f.harness === 'claude-code')
    .map((f) => f.path)
    .sort();
  const byKey = new Map<string, Observation[]>();
  const firstMs: number[] = [];
  for (let order = 0; order < claude.length; order++) {
    const text = await readFile(claude[order]!, 'utf8');
    let first = Infinity;
    let lineNo = 0;
    for (const line of text.split('\n')) {
      lineNo++;
      // The top-level timestamp is the last key Claude Code writes.
      const at = line.lastIndexOf('"timestamp":"');
      if (at >= 0) {
        const ms = Date.parse(line.slice(at + 13, line.indexOf('"', at + 13)));
        if (ms < first) first = ms;
      }
      if (!line.includes('"usage"')) continue;
      let e: Obj;
      try {
        e = JSON.parse(line) as Obj;
      } catch {
        continue;
      }
      const o = observe(e, order, lineNo, line);
      if (!o) continue;
      const list = byKey.get(o.key) ?? [];
      list.push(o.obs);
      byKey.set(o.key, list);
    }
    firstMs.push(first);
  }

  const model: RuleModel = { ours: new Map(), ccusage: new Map(), why: new Map() };
  const explain = (key: string, reason: Reason, delta: Tokens) => {
    const list = model.why.get(key) ?? [];
    let c = list.find((x) => x.reason === reason);
    if (!c) list.push((c = { reason, responses: 0, delta: zero() }));
    c.responses++;
    for (const f of FIELDS) c.delta[f] += delta[f];
    model.why.set(key, list);
  };

  for (const obs of byKey.values()) {
    const ours = oursOf(obs, firstMs);
    const kept = ccusageKeeps(obs);
    const oursKey = cellKey('claude', dayOf(ours.ms), ours.model ?? 'unknown');
    addInto(model.ours, oursKey, ours.tokens);
    const theirsKey =
      kept && kept.model !== undefined ? cellKey('claude', dayOf(kept.ms), kept.model) : undefined;
    if (theirsKey) addInto(model.ccusage, theirsKey, kept!.tokens);
    const same = theirsKey === oursKey && FIELDS.every((f) => ours.tokens[f] === kept!.tokens[f]);
    if (same || total(ours.tokens) === 0) continue;
    if (!kept) explain(oursKey, 'skipped', ours.tokens);
    else if (!theirsKey) explain(oursKey, 'synthetic', ours.tokens);
    else if (theirsKey !== oursKey) {
      explain(oursKey, 'day-of-kept-line', ours.tokens);
      explain(theirsKey, 'day-of-kept-line', negate(kept.tokens));
    } else {
      const delta = zero();
      for (const f of FIELDS) delta[f] = ours.tokens[f] - kept.tokens[f];
      const beatenSidechain = obs.some(
        (o) => !o.copy && o.sidechain && total(o.tokens) > total(kept.tokens),
      );
      explain(oursKey, kept.copy && beatenSidechain ? 'kept-copy' : 'largest-total-line', delta);
    }
  }
  return model;
}

function negate(t: Tokens): Tokens {
  return { input: -t.input, output: -t.output, cacheRead: -t.cacheRead, cacheWrite: -t.cacheWrite };
}

/** One line's usage, if it has any: an assistant line or an agent_progress copy. */
function observe(
  e: Obj,
  fileOrder: number,
  line: number,
  raw: string,
): { key: string; obs: Observation } | undefined {
  let msg: Obj | undefined;
  let requestId: unknown;
  let stamp: unknown = e.timestamp;
  let copy = false;
  let sidechain = e.isSidechain === true;
  if (e.type === 'assistant') {
    msg = e.message as Obj | undefined;
    requestId = e.requestId;
  } else if (e.type === 'progress' && (e.data as Obj | undefined)?.type === 'agent_progress') {
    const inner = (e.data as Obj).message as Obj | undefined;
    if (inner?.type !== 'assistant') return undefined;
    msg = inner.message as Obj | undefined;
    requestId = inner.requestId;
    stamp = typeof inner.timestamp === 'string' ? inner.timestamp : e.timestamp;
    sidechain = inner.isSidechain === true;
    copy = true;
  }
  const usage = msg?.usage as Obj | undefined;
  if (!msg || !usage || typeof usage !== 'object') return undefined;
  const tokens: Tokens = {
    input: num(usage.input_tokens),
    output: num(usage.output_tokens),
    cacheRead: num(usage.cache_read_input_tokens),
    cacheWrite: num(usage.cache_creation_input_tokens),
  };
  const id = typeof msg.id === 'string' && msg.id ? msg.id : undefined;
  if (!id && total(tokens) === 0) return undefined;
  const rid = typeof requestId === 'string' && requestId ? requestId : undefined;
  const key = id ? (rid ? `${id}:${rid}` : id) : `${fileOrder}#${line}`;
  const ms = typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN;
  const model =
    typeof msg.model === 'string' && msg.model && msg.model !== '<synthetic>'
      ? msg.model
      : undefined;
  const ccusageReads =
    raw.includes('"usage":{') && msg.id !== null && requestId !== null && Number.isFinite(ms);
  return {
    key,
    obs: { fileOrder, line, ms, model, tokens, copy, sidechain, ccusageReads },
  };
}

/** Our rule: per-field maximum; day and model from the owning file's first line. */
function oursOf(
  obs: Observation[],
  firstMs: number[],
): { ms: number; model: string | undefined; tokens: Tokens } {
  const direct = obs.filter((o) => !o.copy);
  const pool = direct.length > 0 ? direct : obs;
  const fileKey = (o: Observation) => firstMs[o.fileOrder] ?? Infinity;
  const ordered = [...pool].sort(
    (a, b) => fileKey(a) - fileKey(b) || a.fileOrder - b.fileOrder || a.line - b.line,
  );
  const owner = ordered[0]!.fileOrder;
  const first = ordered.find((o) => o.fileOrder === owner && Number.isFinite(o.ms));
  const tokens = zero();
  for (const o of obs) for (const f of FIELDS) tokens[f] = Math.max(tokens[f], o.tokens[f]);
  const model = [...ordered, ...obs.filter((o) => o.copy)].find((o) => o.model)?.model;
  return { ms: first?.ms ?? Number.NaN, model, tokens };
}

/** ccusage's rule: the line it keeps (non-sidechain first, then the larger total). */
function ccusageKeeps(obs: Observation[]): Observation | undefined {
  let kept: Observation | undefined;
  const read = obs
    .filter((o) => o.ccusageReads)
    .sort((a, b) => a.fileOrder - b.fileOrder || a.line - b.line);
  for (const o of read) {
    if (!kept) kept = o;
    else if (kept.sidechain !== o.sidechain) {
      if (kept.sidechain) kept = o;
    } else if (total(o.tokens) > total(kept.tokens)) kept = o;
  }
  return kept;
}
