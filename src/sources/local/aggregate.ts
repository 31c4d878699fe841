/**
 * From per-file summaries to sessions: subagent files attached to their parent (by folder,
 * or for 2.0.x files beside the parent by the sessionId in their lines, else by the agentId
 * the parent mentions; orphans stay as their own rows, never as resumable sessions), Claude Code
 * usage de-duplicated across files, statuses derived, tokens and cost summed.
 *
 * De-duplication: a Claude response key (message.id:requestId) is counted once over all
 * files, with the maximum of each field over every line and copy that carries it. It
 * belongs to the earliest file (by first timestamp, then path) whose own lines have it, so
 * a subagent's response counts in the subagent's row and a resumed session that repeats
 * old responses does not count them again. An agent_progress copy only counts when no file
 * has the response itself (the subagent file is missing): then it belongs to that
 * subagent's row if there is one, else to the parent.
 *
 * Incremental (Aggregation): only files that interact can change each other's rows (a
 * shared response key, a parent and its subagents), so each row remembers its token sums,
 * its group (the files it interacts with, transitively) and its keys' hashes. A refresh
 * re-aggregates only the groups of changed, new or removed files and of files whose keys
 * a changed file now shares; the other rows keep their sums without their records being
 * looked at (a window that opens from the persisted index has not even decoded them). A
 * row's records are worked out with its group when something asks for them.
 */
import { dirname, join } from 'node:path';
import type { SessionSummary } from '../../domain/session.ts';
import type { DiscoveredFile } from './discovery.ts';
import { deriveLocalStatus, type StatusThresholds } from './localStatus.ts';
import { copyUsage, mergeUsage } from './usageRecord.ts';
import type { Pricing } from './pricing.ts';
import { baseName, cleanTitle } from './text.ts';
import { orderMs, sortKey, UsageLedger } from './usageLedger.ts';
import type { FileSummary, Harness, SubagentMeta, UsageRecord } from './types.ts';
import { sortedHas } from '../../util/sortedSearch.ts';

export interface LocalSession {
  summary: SessionSummary;
  harness: Harness;
  role: 'session' | 'subagent';
  path: string;
  /** The working directory (what "project" means for local sessions). */
  project: string | undefined;
  /**
   * De-duplicated usage this session owns. For a row whose sums were kept from an earlier
   * aggregation, worked out (with its group) on first read.
   */
  records: UsageRecord[];
  /** No token accounting in the file (Codex legacy): tokens and cost are unknown. */
  noTokenInfo: boolean;
  /** Latest mtime of the session's files (subagent files included for a parent). */
  lastWriteMs: number;
  file: FileSummary;
  /** Paths of attached subagent files. */
  children: string[];
  /** Codex: under archived_sessions/. */
  archived: boolean;
}

export interface AggregateInput {
  connectionId: string;
  files: readonly DiscoveredFile[];
  summaries: readonly FileSummary[];
  metas: ReadonlyMap<string, SubagentMeta>;
  now: number;
  pricing: Pricing;
  thresholds: StatusThresholds;
}

/**
 * Sessions sorted by last activity (newest first), then id: every row aggregated, none of
 * the key hashes, memos or last run an Aggregation keeps for later runs.
 */
export function aggregate(input: AggregateInput): LocalSession[] {
  const sessions = buildSessions(input);
  assignUsage(sessions);
  addTokens(sessions, input.pricing);
  for (const s of sessions) finish(s, input);
  return sortSessions(sessions);
}

/** A row's token sums and cost (undefined: a model without a price). */
export interface RowTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number | undefined;
}

/** What an aggregation keeps of one file's row for the next (and the persisted index). */
export interface RowMemo {
  /**
   * The file summary it was worked out from (a new summary means a changed file);
   * undefined for a saved row whose file was not taken from the index.
   */
  summary: FileSummary | undefined;
  /** Undefined: the row is not counted (no token information and no records). */
  totals: RowTotals | undefined;
  /** Files that interact (shared keys, parent and subagents) share a group number. */
  group: number;
  /** Sorted 32-bit hashes of the file's usage and copies keys. */
  hashes: Uint32Array;
  /** The row's records, once worked out. */
  records?: UsageRecord[];
}

export interface AggregationOptions {
  /**
   * Runs once (the usage-report CLI): each run is aggregate(), nothing is remembered for a
   * later run (no rows, key hashes or last run).
   */
  oneShot?: boolean;
}

/**
 * aggregate() that remembers each row (RowMemo) and, on the next run, re-aggregates only
 * the groups a change can reach (see the module comment). Same results as aggregate().
 */
export class Aggregation {
  private readonly oneShot: boolean;
  private readonly memo = new Map<string, RowMemo>();
  private nextGroup = 1;
  /** Rows re-aggregated by the last run (tests, benchmarks). */
  lastRecomputed = 0;
  /** Runs that reused the last run's rows, and of those, appends the ledger added (tests). */
  readonly reuse = { runs: 0, appends: 0 };
  /** The last run's input and rows in file order: the next run reuses them (runReusing). */
  private last: LastRun | undefined;
  /** What de-duplicating the last part found, for an append to one of its files. */
  private ledger: UsageLedger | undefined;
  /** Sorted key hashes of the rows outside the ledger's part (made when first needed). */
  private outside: Uint32Array | undefined;

  constructor(options: AggregationOptions = {}) {
    this.oneShot = options.oneShot === true;
  }

  /** A row as the last run (or seed) left it. */
  row(path: string): RowMemo | undefined {
    return this.memo.get(path);
  }

  /** A row worked out elsewhere (the persisted index), valid while `summary` is the file's. */
  seed(path: string, row: RowMemo): void {
    this.forgetRun();
    this.memo.set(path, row);
    this.nextGroup = Math.max(this.nextGroup, row.group + 1);
  }

  /** Rows known (worked out or seeded). */
  get size(): number {
    return this.memo.size;
  }

  /** Forgets every row (the next run aggregates everything). */
  clear(): void {
    this.memo.clear();
    this.forgetRun();
  }

  private forgetRun(): void {
    this.last = undefined;
    this.ledger = undefined;
    this.outside = undefined;
  }

  run(input: AggregateInput): LocalSession[] {
    if (this.oneShot) {
      const rows = aggregate(input);
      this.lastRecomputed = rows.length;
      return rows;
    }
    const reused = this.runReusing(input);
    if (reused) return reused;
    this.forgetRun();
    const sessions = buildSessions(input);
    const n = sessions.length;
    const at = new Map<string, number>();
    for (let i = 0; i < n; i++) at.set(sessions[i]!.path, i);
    const { kept, reached } = this.keptRows(sessions, at);
    const { redo, members } = this.rowsToRedo(sessions, kept, reached);
    this.pullLinkedGroups(sessions, at, redo, members);
    const part: LocalSession[] = [];
    for (let i = 0; i < n; i++) if (redo[i]) part.push(sessions[i]!);
    this.lastRecomputed = part.length;
    this.aggregatePart(part, input, n);
    this.applyKeptRows(sessions, members);
    const memo = this.memo;
    if (memo.size > n) for (const path of memo.keys()) if (!at.has(path)) memo.delete(path);
    for (const s of sessions) finish(s, input);
    this.last = {
      files: input.files,
      metas: input.metas,
      rows: [...sessions],
      at,
      activity: Float64Array.from(sessions, activityMs),
    };
    return sortSessions(sessions);
  }

  /**
   * The last run's rows again, when the same files are listed and the changes are
   * appends the ledger can add (or Codex files: a row of its own): changed rows and
   * their parents are built again, rows whose records changed are summed again, every status is
   * derived again. Undefined (nothing changed) when the full run is needed.
   */
  private runReusing(input: AggregateInput): LocalSession[] | undefined {
    const last = this.last;
    if (!last || last.files.length !== input.files.length) return undefined;
    const rows = last.rows;
    const changed: number[] = [];
    const rebuild = new Set<number>();
    for (let i = 0; i < rows.length; i++) {
      const file = input.files[i]!;
      const s = rows[i]!;
      if (file.path !== s.path) return undefined;
      const summary = input.summaries[i]!;
      if (summary !== s.file) {
        if (!sameLinks(s.file, summary) || this.memo.get(s.path)?.summary !== s.file) {
          return undefined;
        }
        changed.push(i);
        rebuild.add(i);
      } else if (
        file.mtimeMs !== last.files[i]!.mtimeMs ||
        input.metas.get(file.path) !== last.metas.get(file.path)
      ) {
        // (The scan cache gives a new summary whenever these move.)
        return undefined;
      }
    }
    const claude = changed.filter((i) => rows[i]!.harness === 'claude-code');
    let appended: ReturnType<UsageLedger['append']>;
    if (claude.length > 0) {
      const ledger = this.ledger;
      if (!ledger || !claude.every((i) => ledger.paths.has(rows[i]!.path))) return undefined;
      const members = new Map<string, LocalSession>();
      for (const path of ledger.paths) members.set(path, rows[last.at.get(path)!]!);
      appended = ledger.append(
        claude.map((i) => input.summaries[i]!),
        members,
        (key) => this.seenOutside(key, ledger),
      );
      if (!appended) return undefined;
      this.reuse.appends++;
    }
    this.reuse.runs++;
    // From here on nothing is refused.
    for (const i of [...rebuild]) {
      const parentId = rows[i]!.summary.parentId;
      if (parentId !== undefined) rebuild.add(last.at.get(parentId)!);
    }
    const summed = new Set<number>();
    for (const path of appended?.dirty ?? []) summed.add(last.at.get(path)!);
    for (const i of changed) if (rows[i]!.harness === 'codex') summed.add(i);
    for (const i of summed) rebuild.add(i);
    for (const i of rebuild) rebuildRow(rows, i, input, last.at);
    for (const i of changed) {
      const s = rows[i]!;
      if (s.harness === 'codex') s.records = [...s.file.usage.values()];
    }
    const sums = [...summed].map((i) => rows[i]!);
    addTokens(sums, input.pricing);
    for (const s of sums) this.rememberSums(s, appended?.added.get(s.path));
    for (const i of rebuild) {
      if (!summed.has(i)) applyTotals(rows[i]!.summary, this.memo.get(rows[i]!.path)!.totals);
    }
    this.lastRecomputed = summed.size;
    for (let i = 0; i < rows.length; i++) {
      if (rebuild.has(i)) {
        finish(rows[i]!, input);
        last.activity[i] = activityMs(rows[i]!);
      } else restatus(rows[i]!, input.now, input.thresholds);
    }
    this.last = { ...last, files: input.files, metas: input.metas };
    return sortedRows(rows, last.activity);
  }

  /** A row summed again after an append: its memo, with the hashes of keys added to it. */
  private rememberSums(s: LocalSession, addedKeys: readonly string[] | undefined): void {
    const m = this.memo.get(s.path)!;
    let hashes = m.hashes;
    if (addedKeys && addedKeys.length > 0) {
      hashes = new Uint32Array(m.hashes.length + addedKeys.length);
      hashes.set(m.hashes);
      addedKeys.forEach((key, i) => (hashes[m.hashes.length + i] = hashKey(key)));
      hashes.sort();
    }
    this.memo.set(s.path, {
      summary: s.file,
      totals: totalsOf(s.summary),
      group: m.group,
      hashes,
      records: s.records,
    });
  }

  /** Whether a row outside the ledger's part has a key with `key`'s hash. */
  private seenOutside(key: string, ledger: UsageLedger): boolean {
    this.outside ??= this.hashesOutside(ledger);
    return sortedHas(this.outside, hashKey(key));
  }

  /** The sorted key hashes of every row outside the ledger's part (see `outside`). */
  private hashesOutside(ledger: UsageLedger): Uint32Array {
    const lists: Uint32Array[] = [];
    let n = 0;
    for (const [path, m] of this.memo) {
      if (!ledger.paths.has(path) && m.hashes.length > 0) {
        lists.push(m.hashes);
        n += m.hashes.length;
      }
    }
    const all = new Uint32Array(n);
    let at = 0;
    for (const list of lists) {
      all.set(list, at);
      at += list.length;
    }
    return all.sort();
  }

  /**
   * Works out `outside` for a new ledger once this run is over and the thread is free (an
   * append usually follows a while later): its first append does not wait for it.
   */
  private prepareOutside(ledger: UsageLedger): void {
    setTimeout(() => {
      if (this.ledger === ledger && !this.outside) this.outside = this.hashesOutside(ledger);
    }, 0).unref();
  }

  /**
   * Rows kept (the same summary as when worked out), and the groups a change reaches: those
   * of changed and removed files, and of kept files sharing a key with a changed one.
   */
  private keptRows(
    sessions: LocalSession[],
    at: Map<string, number>,
  ): { kept: Uint8Array; reached: Set<number> } {
    const memo = this.memo;
    const n = sessions.length;
    const kept = new Uint8Array(n);
    const reached = new Set<number>();
    let keptClaude = false;
    let changedClaude = false;
    for (let i = 0; i < n; i++) {
      const s = sessions[i]!;
      const m = memo.get(s.path);
      if (m && m.summary === s.file) {
        kept[i] = 1;
        if (s.harness === 'claude-code') keptClaude = true;
      } else {
        if (m) reached.add(m.group);
        if (s.harness === 'claude-code') changedClaude = true;
      }
    }
    if (memo.size > 0) {
      for (const [path, m] of memo) if (!at.has(path)) reached.add(m.group);
    }
    if (keptClaude && changedClaude) this.reachByKeys(sessions, kept, reached);
    return { kept, reached };
  }

  /** Adds the groups of kept Claude Code rows that share a key hash with a changed file. */
  private reachByKeys(sessions: LocalSession[], kept: Uint8Array, reached: Set<number>): void {
    const n = sessions.length;
    const changedHashes = new Set<number>();
    for (let i = 0; i < n; i++) {
      const s = sessions[i]!;
      if (!kept[i] && s.harness === 'claude-code') {
        for (const h of keyHashes(s.file)) changedHashes.add(h);
      }
    }
    for (let i = 0; i < n; i++) {
      if (!kept[i] || sessions[i]!.harness !== 'claude-code') continue;
      const m = this.memo.get(sessions[i]!.path)!;
      if (reached.has(m.group)) continue;
      for (const h of m.hashes) {
        if (changedHashes.has(h)) {
          reached.add(m.group);
          break;
        }
      }
    }
  }

  /** Marks the rows to aggregate again; the others are listed by their (untouched) group. */
  private rowsToRedo(
    sessions: LocalSession[],
    kept: Uint8Array,
    reached: Set<number>,
  ): { redo: Uint8Array; members: Map<number, number[]> } {
    const n = sessions.length;
    const redo = new Uint8Array(n);
    const members = new Map<number, number[]>();
    for (let i = 0; i < n; i++) {
      if (!kept[i]) redo[i] = 1;
      else {
        const group = this.memo.get(sessions[i]!.path)!.group;
        if (reached.has(group)) redo[i] = 1;
        else {
          const list = members.get(group);
          if (list) list.push(i);
          else members.set(group, [i]);
        }
      }
    }
    return { redo, members };
  }

  /**
   * A parent and its subagents are aggregated together: a link a change made (a new
   * subagent file, another parent found) pulls the other side's group in.
   */
  private pullLinkedGroups(
    sessions: LocalSession[],
    at: Map<string, number>,
    redo: Uint8Array,
    members: Map<number, number[]>,
  ): void {
    const n = sessions.length;
    for (let moved = true; moved;) {
      moved = false;
      for (let i = 0; i < n; i++) {
        const parentId = sessions[i]!.summary.parentId;
        if (parentId === undefined) continue;
        const j = at.get(parentId)!;
        if (redo[i] === redo[j]) continue;
        const group = this.memo.get(sessions[redo[i] ? j : i]!.path)!.group;
        for (const k of members.get(group) ?? []) redo[k] = 1;
        members.delete(group);
        moved = true;
      }
    }
  }

  /** Aggregates the rows to redo and remembers each with a fresh group number. */
  private aggregatePart(part: LocalSession[], input: AggregateInput, n: number): void {
    // A part of the rows (a refresh): kept for the appends that follow.
    const ledger = part.length > 0 && part.length < n ? new UsageLedger() : undefined;
    const groups = assignUsage(part, ledger);
    this.ledger = ledger;
    if (ledger) this.prepareOutside(ledger);
    // Before finish: setStatus there copies the summary.
    addTokens(part, input.pricing);
    const fresh = new Map<number, number>();
    for (let i = 0; i < part.length; i++) {
      const s = part[i]!;
      let group = fresh.get(groups[i]!);
      if (group === undefined) {
        group = this.nextGroup++;
        fresh.set(groups[i]!, group);
      }
      this.memo.set(s.path, {
        summary: s.file,
        totals: totalsOf(s.summary),
        group,
        hashes: s.harness === 'claude-code' ? keyHashes(s.file) : NO_HASHES,
        records: s.records,
      });
    }
  }

  /** Kept rows take their remembered sums; their records are worked out on first read. */
  private applyKeptRows(sessions: LocalSession[], members: Map<number, number[]>): void {
    for (const list of members.values()) {
      for (const i of list) {
        const s = sessions[i]!;
        const m = this.memo.get(s.path)!;
        applyTotals(s.summary, m.totals);
        if (m.records) s.records = m.records;
        else
          this.recordsOnDemand(
            s,
            list.map((k) => sessions[k]!),
          );
      }
    }
  }

  /**
   * `records` of a kept row: its group aggregated again on first read (the sums are known;
   * the records are only needed by the usage report).
   */
  private recordsOnDemand(s: LocalSession, group: LocalSession[]): void {
    const memo = this.memo;
    (s as Row).later(() => {
      for (const g of group) g.records = [];
      assignUsage(group);
      for (const g of group) {
        const m = memo.get(g.path);
        if (m?.summary === g.file) m.records = g.records;
      }
    });
  }
}

/**
 * A LocalSession as buildSessions makes it. `records` is an accessor of the class, so a
 * row whose records are worked out on first read (recordsOnDemand) keeps the shape of
 * every other row (a getter defined on each object gave each its own hidden class).
 */
class Row implements LocalSession {
  summary: SessionSummary;
  harness: Harness;
  role: 'session' | 'subagent';
  path: string;
  project: string | undefined;
  noTokenInfo: boolean;
  lastWriteMs: number;
  file: FileSummary;
  children: string[] = [];
  archived: boolean;
  #records: UsageRecord[] | undefined = [];
  #workOut: (() => void) | undefined;

  constructor(file: DiscoveredFile, summary: FileSummary, connectionId: string) {
    this.summary = newSummary(file, connectionId);
    this.harness = file.harness;
    this.role = file.role;
    this.path = file.path;
    this.project = summary.cwd;
    this.noTokenInfo = summary.noTokenInfo;
    this.lastWriteMs = file.mtimeMs;
    this.file = summary;
    this.archived = file.archived === true;
  }

  get records(): UsageRecord[] {
    if (this.#records === undefined) this.#workOut!();
    return this.#records!;
  }

  set records(records: UsageRecord[]) {
    this.#records = records;
    this.#workOut = undefined;
  }

  /** The records are worked out by `workOut` (which sets them) when first read. */
  later(workOut: () => void): void {
    this.#records = undefined;
    this.#workOut = workOut;
  }
}

/** The last run's input and rows (in file order), and each row's place. */
interface LastRun {
  files: readonly DiscoveredFile[];
  metas: ReadonlyMap<string, SubagentMeta>;
  rows: LocalSession[];
  at: Map<string, number>;
  /** Each row's activityMs (what the rows are sorted by). */
  activity: Float64Array;
}

/**
 * Whether a file's new summary links rows as its old one did (so the last run's
 * parents, subagents, projects and file order still hold).
 */
function sameLinks(a: FileSummary, b: FileSummary): boolean {
  return (
    a.harness === b.harness &&
    a.role === b.role &&
    a.sessionId === b.sessionId &&
    a.agentId === b.agentId &&
    a.cwd === b.cwd &&
    a.noTokenInfo === b.noTokenInfo &&
    orderMs(a.firstMs) === orderMs(b.firstMs) &&
    a.subagents.length === b.subagents.length &&
    a.subagents.every((link, i) => link.agentId === b.subagents[i]!.agentId)
  );
}

/**
 * Row `i` as buildSessions makes it, on the same object (its links are unchanged): the
 * new file summary and last write, a fresh summary (rows handed out keep theirs).
 */
function rebuildRow(
  rows: readonly LocalSession[],
  i: number,
  input: AggregateInput,
  at: ReadonlyMap<string, number>,
): void {
  const s = rows[i]!;
  const file = input.files[i]!;
  const old = s.summary;
  s.file = input.summaries[i]!;
  s.noTokenInfo = s.file.noTokenInfo;
  s.lastWriteMs = file.mtimeMs;
  for (const child of s.children) {
    s.lastWriteMs = Math.max(s.lastWriteMs, input.files[at.get(child)!]!.mtimeMs);
  }
  s.summary = newSummary(file, input.connectionId);
  if (file.role === 'subagent') {
    s.summary.label = subagentLabel(file, s.file, input.metas);
    if (old.parentId !== undefined) s.summary.parentId = old.parentId;
  }
}

/** A row's summary before finish() fills it in. */
function newSummary(file: DiscoveredFile, connectionId: string): SessionSummary {
  return {
    id: file.path,
    connectionId,
    label: '',
    status: { status: 'unknown', raw: '' },
    harness: file.harness,
  };
}

/** A subagent's label: its meta file's description, else its first prompt, else its id. */
function subagentLabel(
  file: DiscoveredFile,
  summary: FileSummary,
  metas: ReadonlyMap<string, SubagentMeta>,
): string {
  return (
    cleanTitle(metas.get(file.path)?.description ?? '') ??
    summary.title ??
    `Subagent ${file.agentId ?? ''}`.trim()
  );
}

function totalsOf(sum: SessionSummary): RowTotals | undefined {
  if (sum.inputTokens === undefined) return undefined;
  return {
    input: sum.inputTokens,
    output: sum.outputTokens ?? 0,
    cacheRead: sum.cacheReadTokens ?? 0,
    cacheWrite: sum.cacheWriteTokens ?? 0,
    cost: sum.estimatedCost,
  };
}

function applyTotals(sum: SessionSummary, t: RowTotals | undefined): void {
  if (!t) return;
  sum.inputTokens = t.input;
  sum.outputTokens = t.output;
  sum.cacheReadTokens = t.cacheRead;
  sum.cacheWriteTokens = t.cacheWrite;
  if (t.cost !== undefined) sum.estimatedCost = t.cost;
}

const NO_HASHES = new Uint32Array(0);

/** Sorted FNV-1a hashes of a file's usage and copies keys (equal keys, equal hashes). */
export function keyHashes(file: FileSummary): Uint32Array {
  const out = new Uint32Array(file.usage.size + file.copies.size);
  let i = 0;
  for (const key of file.usage.keys()) out[i++] = hashKey(key);
  for (const key of file.copies.keys()) out[i++] = hashKey(key);
  return out.sort();
}

function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Sorts `sessions` in place: newest activity first, then by path. */
export function sortSessions(sessions: LocalSession[]): LocalSession[] {
  // Each time parsed once, not at every comparison.
  const sorted = sortedRows(sessions, Float64Array.from(sessions, activityMs));
  for (let i = 0; i < sorted.length; i++) sessions[i] = sorted[i]!;
  return sessions;
}

/** What sessions are sorted by: the last activity (epoch ms, 0 without one). */
function activityMs(s: LocalSession): number {
  return Date.parse(s.summary.lastActivityAt ?? '') || 0;
}

/** `rows` sorted as sortSessions sorts them, with each row's activity known (`activity`). */
function sortedRows(rows: readonly LocalSession[], activity: Float64Array): LocalSession[] {
  const order = Array.from(rows, (_, i) => i);
  order.sort((a, b) => {
    const pa = rows[a]!.path;
    const pb = rows[b]!.path;
    return activity[b]! - activity[a]! || (pa < pb ? -1 : pa > pb ? 1 : 0);
  });
  return order.map((i) => rows[i]!);
}

function buildSessions(input: AggregateInput): LocalSession[] {
  const sessions: LocalSession[] = [];
  const byPath = new Map<string, LocalSession>();
  input.files.forEach((file, i) => {
    const s = input.summaries[i]!;
    const session = new Row(file, s, input.connectionId);
    sessions.push(session);
    byPath.set(file.path, session);
  });
  // Parents named by the agentId their Task results and progress lines mention.
  const byAgentId = new Map<string, LocalSession>();
  for (const s of sessions) {
    if (s.harness === 'claude-code' && s.role === 'session') {
      for (const link of s.file.subagents)
        if (!byAgentId.has(link.agentId)) byAgentId.set(link.agentId, s);
    }
  }
  input.files.forEach((file, i) => {
    if (file.role !== 'subagent') return;
    const child = sessions[i]!;
    // <project>/<sessionId>/subagents/agent-<id>.jsonl → <project>/<sessionId>.jsonl; a
    // 2.0.x <project>/agent-<id>.jsonl → the sessionId its lines carry, beside it.
    const sessionId = file.sessionId ?? child.file.sessionId;
    const byFolder = file.sessionId
      ? byPath.get(join(dirname(dirname(dirname(file.path))), `${file.sessionId}.jsonl`))
      : sessionId
        ? byPath.get(join(dirname(file.path), `${sessionId}.jsonl`))
        : undefined;
    const parent = byFolder ?? (file.agentId ? byAgentId.get(file.agentId) : undefined);
    child.summary.label = subagentLabel(file, child.file, input.metas);
    if (!parent) return; // an orphan: shown on its own
    child.summary.parentId = parent.path;
    child.project ??= parent.project;
    parent.children.push(file.path);
    parent.lastWriteMs = Math.max(parent.lastWriteMs, file.mtimeMs);
  });
  return sessions;
}

/**
 * Gives each session its de-duplicated records; returns, per session, a number shared by
 * the sessions it interacts with (a shared key, a parent and its subagents). With
 * `ledger`, also records there what a later append needs (see usageLedger.ts).
 */
function assignUsage(sessions: LocalSession[], ledger?: UsageLedger): number[] {
  const root = sessions.map((_, i) => i);
  const find = (i: number): number => {
    while (root[i] !== i) i = root[i] = root[root[i]!]!;
    return i;
  };
  const join = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) root[ra] = rb;
  };
  const position = new Map<LocalSession, number>();
  sessions.forEach((s, i) => position.set(s, i));
  const byPath = new Map(sessions.map((s, i) => [s.path, i]));
  sessions.forEach((s, i) => {
    const parent = s.summary.parentId === undefined ? undefined : byPath.get(s.summary.parentId);
    if (parent !== undefined) join(i, parent);
  });
  const claude = sessions
    .filter((s) => s.harness === 'claude-code')
    .sort(
      (a, b) =>
        orderMs(a.file.firstMs) - orderMs(b.file.firstMs) ||
        (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
    );
  // Each response once: its record (the first seen, or a copy once another merges into
  // it: the files' own records belong to the scan cache and are reused by the next
  // refresh) and the session it counts in. Parallel arrays behind one Map of indexes: no
  // object per response (a cold scan has tens of thousands). The arrays are sized once
  // for every record the files hold: grown by doubling, their copies and fresh pages cost
  // more than the lookups.
  let capacity = 0;
  for (const s of claude) capacity += s.file.usage.size + s.file.copies.size;
  const index = new Map<string, number>();
  const recs = new Array<UsageRecord>(capacity);
  const owners = new Array<LocalSession>(capacity);
  const carriers = new Int32Array(capacity);
  const copied = new Uint8Array(capacity);
  const sorts = ledger ? new Float64Array(capacity) : undefined;
  let found = 0;
  let carrier = 0;
  let sort = 0;
  const add = (key: string, r: UsageRecord, owner: () => LocalSession) => {
    const i = index.get(key);
    if (i === undefined) {
      const n = found++;
      index.set(key, n);
      recs[n] = r;
      const o = owner();
      owners[n] = o;
      carriers[n] = carrier;
      if (ledger) {
        sorts![n] = sort;
        if (o !== sessions[carrier]) ledger.foreignOf(sessions[carrier]!.path).push(n);
      }
      return;
    }
    if (carriers[i] !== carrier) join(carriers[i]!, carrier);
    if (copied[i] === 0) {
      if (ledger) {
        ledger.sources[i] = [recs[i]!];
        ledger.foreignOf(sessions[carriers[i]!]!.path).push(i);
      }
      recs[i] = copyUsage(recs[i]!);
      copied[i] = 1;
    }
    if (ledger) {
      ledger.sources[i]!.push(r);
      ledger.foreignOf(sessions[carrier]!.path).push(i);
    }
    mergeUsage(recs[i]!, r);
  };
  claude.forEach((s, rank) => {
    const self = () => s;
    carrier = position.get(s)!;
    ledger?.addCarrier(s.path, s.file, rank);
    let place = 0;
    s.file.usage.forEach((r, key) => {
      sort = sortKey(false, rank, place++);
      add(key, r, self);
    });
  });
  // Subagent rows by (parent path, agentId), for copies whose subagent file lacks them.
  const subagentOf = new Map<string, LocalSession>();
  for (const s of claude) {
    if (s.role === 'subagent' && s.summary.parentId && s.file.agentId) {
      subagentOf.set(`${s.summary.parentId}\n${s.file.agentId}`, s);
    }
  }
  claude.forEach((s, rank) => {
    carrier = position.get(s)!;
    let place = 0;
    s.file.copies.forEach((r, key) => {
      sort = sortKey(true, rank, place++);
      add(key, r, () => (r.agentId && subagentOf.get(`${s.path}\n${r.agentId}`)) || s);
    });
  });
  for (let i = 0; i < found; i++) owners[i]!.records.push(recs[i]!);
  for (const s of sessions) {
    if (s.harness === 'codex') s.records = [...s.file.usage.values()];
  }
  if (ledger) {
    fillLedger(ledger, sessions, { index, recs, owners, sorts: sorts!, found }, subagentOf);
  }
  return sessions.map((_, i) => find(i));
}

/** The rest of a ledger: entries, owners, each owner's sort keys, subagents by agentId. */
function fillLedger(
  ledger: UsageLedger,
  sessions: readonly LocalSession[],
  found: {
    index: Map<string, number>;
    recs: readonly UsageRecord[];
    owners: readonly LocalSession[];
    sorts: Float64Array;
    /** How many entries of the arrays are filled (they are sized for every record). */
    found: number;
  },
  subagentOf: ReadonlyMap<string, LocalSession>,
): void {
  for (const s of sessions) ledger.paths.add(s.path);
  for (const [key, i] of found.index) ledger.index.set(key, i);
  for (let i = 0; i < found.found; i++) {
    const owner = found.owners[i]!.path;
    ledger.recs.push(found.recs[i]!);
    ledger.owners.push(owner);
    ledger.orderOf(owner).push(found.sorts[i]!);
  }
  // Entries never merged have no sources (holes read as undefined).
  ledger.sources.length = found.found;
  for (const [key, s] of subagentOf) ledger.subagentOf.set(key, s.path);
}

/** baseName of project folders, which thousands of rows share (a bounded cache). */
const projectNames = new Map<string, string>();

function projectName(project: string): string {
  let name = projectNames.get(project);
  if (name === undefined) {
    if (projectNames.size >= 4096) projectNames.clear();
    projectNames.set(project, (name = baseName(project)));
  }
  return name;
}

function finish(s: LocalSession, input: AggregateInput): void {
  const f = s.file;
  const sum = s.summary;
  if (s.role === 'session') {
    const short = (f.sessionId ?? baseName(s.path)).slice(0, 8);
    sum.label =
      f.title ??
      f.summaryTitle ??
      `${s.harness === 'codex' ? 'Codex' : 'Claude Code'} session ${short}`;
    // Subagents have no id of their own to resume: they are resumed with their parent.
    if (f.sessionId) sum.resumeId = f.sessionId;
  }
  if (f.mainModel) sum.model = f.mainModel;
  if (s.project) sum.project = s.project;
  const repository = f.gitRemote ?? (s.project ? projectName(s.project) : undefined);
  if (repository) sum.repository = repository;
  if (f.gitBranch) sum.branch = f.gitBranch;
  if (f.firstTimestamp) sum.startedAt = f.firstTimestamp;
  // Legacy Codex files have one timestamp (the header): the file's mtime says more.
  const last =
    f.lastTimestamp && !s.noTokenInfo
      ? f.lastTimestamp
      : new Date(Math.max(s.lastWriteMs, Number.isFinite(f.lastMs) ? f.lastMs : 0)).toISOString();
  sum.lastActivityAt = last;
  // Last: it replaces the summary object.
  setStatus(s, input.now, input.thresholds);
}

/**
 * Token sums and cost of every session; without token information they stay unknown
 * (absent). One flat loop over all sessions' records. This code runs once per listing, so
 * V8 optimises it while it runs (on-stack replacement), from its hottest loop: a loop per
 * session inside a loop over sessions would be compiled for the inner loop alone, and that
 * code thrown away at each exit from it.
 */
function addTokens(sessions: readonly LocalSession[], pricing: Pricing): void {
  const counted = sessions.filter((s) => !s.noTokenInfo || s.records.length > 0);
  let next = 0;
  let records: readonly UsageRecord[] = [];
  let i = 0;
  let input = 0;
  let output = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  let cost: number | undefined = 0;
  for (;;) {
    if (i < records.length) {
      const r = records[i++]!;
      input += r.input;
      output += r.output;
      cacheRead += r.cacheRead;
      cacheWrite += r.cacheWrite;
      const c = pricing.costOf(r);
      cost = c === undefined || cost === undefined ? undefined : cost + c;
      continue;
    }
    // The last session's records are summed: write them, go on with the next session.
    if (next > 0) {
      const sum = counted[next - 1]!.summary;
      sum.inputTokens = input;
      sum.outputTokens = output;
      sum.cacheReadTokens = cacheRead;
      sum.cacheWriteTokens = cacheWrite;
      if (cost !== undefined) sum.estimatedCost = cost;
    }
    if (next === counted.length) return;
    records = counted[next++]!.records;
    i = 0;
    input = output = cacheRead = cacheWrite = 0;
    cost = 0;
  }
}

/**
 * Derives the session's status for `now` into a new summary object (rows already handed
 * out keep theirs): status, waitingSince, and endedAt for finished sessions.
 */
export function setStatus(s: LocalSession, now: number, thresholds: StatusThresholds): void {
  const { waitingSince, ...status } = statusOf(s, now, thresholds);
  const sum: SessionSummary = { ...s.summary, status };
  delete sum.waitingSince;
  delete sum.endedAt;
  if (waitingSince) sum.waitingSince = waitingSince;
  if (status.status === 'finished' && sum.lastActivityAt) sum.endedAt = sum.lastActivityAt;
  s.summary = sum;
}

function statusOf(s: LocalSession, now: number, thresholds: StatusThresholds) {
  return deriveLocalStatus(
    {
      harness: s.harness,
      role: s.role,
      facts: s.file.last,
      lastWriteMs: s.lastWriteMs,
      now,
      archived: s.archived,
    },
    thresholds,
  );
}

/**
 * setStatus for a row whose file and last write did not change: its summary object is
 * kept when the status derived for `now` is the one it shows (most rows, most refreshes).
 * (waitingSince and endedAt follow from the status, the file and the last write.)
 */
function restatus(s: LocalSession, now: number, thresholds: StatusThresholds): void {
  const derived = statusOf(s, now, thresholds);
  const shown = s.summary.status;
  if (
    derived.status === shown.status &&
    derived.raw === shown.raw &&
    derived.outcome === shown.outcome
  ) {
    return;
  }
  setStatus(s, now, thresholds);
}
