/**
 * Token and cost totals of every local session per day, model, project and harness (for a
 * usage report). Built from the same de-duplicated records as the session rows, so the
 * rows add up to the totals.
 */
import type { LocalSession } from './aggregate.ts';
import { LocalIndex, type LocalIndexOptions, type LocalSnapshot } from './localIndex.ts';
import { SYNTHETIC_MODEL, type Pricing } from './pricing.ts';
import type { LocalProblem, UsageRecord } from './types.ts';

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Part of outputTokens (Codex reports it; Claude Code does not). */
  reasoningTokens: number;
  /** Responses (Claude Code) and token_count deltas (Codex). */
  responses: number;
  /** Sessions with at least one response in this bucket. */
  sessions: number;
  /** Of those, sessions with a response of a model without a price in this bucket. */
  unpricedSessions: number;
  /** USD; undefined when some tokens are of a model without a price. */
  cost: number | undefined;
  /** USD of the priced part only. */
  knownCost: number;
}

export interface UsageReport {
  /** The first day counted (`since` of the options), or undefined for all of them. */
  since?: string;
  totals: UsageTotals;
  /** By local calendar day (`YYYY-MM-DD`; `unknown` without a timestamp). */
  byDay: Record<string, UsageTotals>;
  /** By model id as written in the transcripts (`unknown` when none). */
  byModel: Record<string, UsageTotals>;
  /** By day, then by model within the day (the keys of byDay and byModel). */
  byDayModel: Record<string, Record<string, UsageTotals>>;
  /** By working directory. */
  byProject: Record<string, UsageTotals>;
  byHarness: Record<string, UsageTotals>;
  /** byDay and byDayModel of each harness on its own (its totals are in byHarness). */
  harnesses: Record<string, HarnessUsage>;
  /** Models with tokens but no price. */
  unpricedModels: string[];
  /** Where the prices come from: `@pydantic/genai-prices <version>` (overrides aside). */
  prices: string;
  /** Sessions with tokens of their own in the window (subagents count on their own). */
  sessions: number;
  /**
   * Sessions whose files carry no token information (Codex legacy); with `since`, those
   * last active on or after that day.
   */
  sessionsWithoutTokenInfo: number;
  files: number;
  bytes: number;
  problems: LocalProblem[];
}

export interface HarnessUsage {
  byDay: Record<string, UsageTotals>;
  byDayModel: Record<string, Record<string, UsageTotals>>;
}

export interface UsageReportOptions {
  /** Day key of an epoch ms (default: the local calendar day; utcDay for UTC). */
  dayOf?: (ms: number) => string;
  /**
   * Count only responses on this day key or later (`YYYY-MM-DD`, compared with `dayOf`);
   * responses without a timestamp are then left out.
   */
  since?: string;
}

function emptyTotals(): UsageTotals {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    responses: 0,
    sessions: 0,
    unpricedSessions: 0,
    cost: 0,
    knownCost: 0,
  };
}

/**
 * Day keys by 15-minute slot, computed once per slot (a report asks for every response):
 * every time zone's offset, and every change of it, is a whole number of quarter hours.
 * (A TZ changed while the process runs is not seen.)
 */
const localDays = new Map<number, string>();
const SLOT_MS = 900_000;
/**
 * Entries a day cache keeps: ten years of quarter hours. A long-running host that sees
 * stranger timestamps starts the cache afresh rather than growing without bound.
 */
const DAY_CACHE_MAX = 350_000;

/** Entries in the local and UTC day caches (for tests). */
export function dayCacheSizes(): { local: number; utc: number } {
  return { local: localDays.size, utc: utcDays.size };
}

/** `cache.set` that first empties a cache which reached DAY_CACHE_MAX. */
function remember(cache: Map<number, string>, key: number, day: string): void {
  if (cache.size >= DAY_CACHE_MAX) cache.clear();
  cache.set(key, day);
}

export function localDay(ms: number): string {
  if (!Number.isFinite(ms)) return 'unknown';
  const slot = Math.floor(ms / SLOT_MS);
  let day = localDays.get(slot);
  if (day === undefined) {
    const d = new Date(ms);
    const pad = (n: number) => String(n).padStart(2, '0');
    day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
    remember(localDays, slot, day);
  }
  return day;
}

/** `map`'s value for `key`, made by `make` and kept when there is none yet. */
function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/** Buckets by day, then model. */
type DayModels = Map<string, Map<string, Bucket>>;

/** A bucket while it is summed: which session last counted in it. */
interface Bucket {
  totals: UsageTotals;
  lastSession: number;
  lastUnpricedSession: number;
}

const utcDays = new Map<number, string>();
const DAY_MS = 86_400_000;

/** The UTC calendar day (`YYYY-MM-DD`; `unknown` without a timestamp). */
export function utcDay(ms: number): string {
  if (!Number.isFinite(ms)) return 'unknown';
  const n = Math.floor(ms / DAY_MS);
  let day = utcDays.get(n);
  if (day === undefined) {
    day = new Date(n * DAY_MS).toISOString().slice(0, 10);
    remember(utcDays, n, day);
  }
  return day;
}

/** Adds one response to a bucket (`index`: its session, counted once per bucket). */
function add(b: Bucket, r: UsageRecord, cost: number | undefined, index: number): void {
  const t = b.totals;
  t.inputTokens += r.input;
  t.outputTokens += r.output;
  t.cacheReadTokens += r.cacheRead;
  t.cacheWriteTokens += r.cacheWrite;
  t.reasoningTokens += r.reasoning;
  t.responses++;
  if (b.lastSession !== index) {
    b.lastSession = index;
    t.sessions++;
  }
  if (cost === undefined) {
    t.cost = undefined;
    if (b.lastUnpricedSession !== index) {
      b.lastUnpricedSession = index;
      t.unpricedSessions++;
    }
  } else {
    t.knownCost += cost;
    if (t.cost !== undefined) t.cost += cost;
  }
}

/** Totals of a snapshot's sessions. */
export function buildUsageReport(
  snapshot: LocalSnapshot,
  pricing: Pricing,
  options: UsageReportOptions = {},
): UsageReport {
  const dayOf = options.dayOf ?? localDay;
  const since = options.since;
  const buckets = new UsageBuckets(pricing, dayOf, since);
  let sessions = 0;
  let sessionsWithoutTokenInfo = 0;
  snapshot.sessions.forEach((s, index) => {
    if (s.noTokenInfo && s.records.length === 0) {
      if (!since || dayOf(Date.parse(s.summary.lastActivityAt ?? '')) >= since)
        sessionsWithoutTokenInfo++;
      return;
    }
    if (buckets.addSession(s, index)) sessions++;
  });
  const report: UsageReport = {
    ...buckets.tables(),
    prices: `@pydantic/genai-prices ${pricing.version}`,
    sessions,
    sessionsWithoutTokenInfo,
    files: snapshot.files.length,
    bytes: snapshot.bytes,
    problems: snapshot.problems,
  };
  if (since) report.since = since;
  return report;
}

const newBucket = (): Bucket => ({
  totals: emptyTotals(),
  lastSession: -1,
  lastUnpricedSession: -1,
});
const bucket = (map: Map<string, Bucket>, key: string): Bucket => entry(map, key, newBucket);
const modelsOfDay = (days: DayModels, day: string) => entry(days, day, () => new Map());
const totalsOf = (map: Map<string, Bucket>) =>
  Object.fromEntries([...map].map(([key, b]) => [key, b.totals]));
const totalsOfDayModels = (days: DayModels) =>
  Object.fromEntries([...days].map(([day, m]) => [day, totalsOf(m)]));

/** The report's buckets, filled one session at a time. */
class UsageBuckets {
  private readonly pricing: Pricing;
  private readonly dayOf: (ms: number) => string;
  private readonly since: string | undefined;
  private readonly total = newBucket();
  private readonly byDay = new Map<string, Bucket>();
  private readonly byModel = new Map<string, Bucket>();
  private readonly byDayModel: DayModels = new Map();
  private readonly byProject = new Map<string, Bucket>();
  private readonly byHarness = new Map<string, Bucket>();
  private readonly harnessDays = new Map<
    string,
    { byDay: Map<string, Bucket>; byDayModel: DayModels }
  >();
  private readonly unpriced = new Set<string>();

  constructor(pricing: Pricing, dayOf: (ms: number) => string, since: string | undefined) {
    this.pricing = pricing;
    this.dayOf = dayOf;
    this.since = since;
  }

  private daysOfHarness(harness: string) {
    return entry(this.harnessDays, harness, () => ({ byDay: new Map(), byDayModel: new Map() }));
  }

  /** Adds the session's responses in the window; false when it had none there. */
  addSession(s: LocalSession, index: number): boolean {
    const { dayOf, since, pricing, unpriced, total } = this;
    // Made on the first response in the window (a bucket exists only with responses).
    let project: Bucket | undefined;
    let harness: Bucket | undefined;
    const ownHarness = this.daysOfHarness(s.harness);
    let counted = false;
    // A session's responses mostly share a day and a model: their buckets are looked up
    // again only when one of them changes.
    let lastMs: number | undefined;
    let day = '';
    let bucketsDay: string | undefined;
    let bucketsModel: string | undefined;
    let dayBucket: Bucket | undefined;
    let modelBucket: Bucket | undefined;
    let dayModelBucket: Bucket | undefined;
    let harnessDayBucket: Bucket | undefined;
    let harnessDayModelBucket: Bucket | undefined;
    const records = s.records;
    // An index, not for-of: scan processes run without V8's optimising tier, whose
    // escape analysis is what removes an iterator's result object per record.
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      // Claude Code's own messages (`<synthetic>`, e.g. "No response requested.") have no
      // model in the record and no tokens: not a response, and no "unknown" model row.
      if (
        (r.model === undefined || r.model === SYNTHETIC_MODEL) &&
        r.input + r.output + r.cacheRead + r.cacheWrite === 0
      )
        continue;
      if (r.ms !== lastMs) {
        day = dayOf(r.ms);
        lastMs = r.ms;
      }
      // 'unknown' sorts after every date: test it apart.
      if (since && (day === 'unknown' || day < since)) continue;
      counted = true;
      const cost = pricing.costOf(r);
      const model = r.model ?? 'unknown';
      if (cost === undefined) unpriced.add(model);
      if (day !== bucketsDay || model !== bucketsModel || !dayModelBucket) {
        if (day !== bucketsDay || !dayBucket) {
          dayBucket = bucket(this.byDay, day);
          harnessDayBucket = bucket(ownHarness.byDay, day);
        }
        if (model !== bucketsModel || !modelBucket) modelBucket = bucket(this.byModel, model);
        dayModelBucket = bucket(modelsOfDay(this.byDayModel, day), model);
        harnessDayModelBucket = bucket(modelsOfDay(ownHarness.byDayModel, day), model);
        bucketsDay = day;
        bucketsModel = model;
      }
      add(total, r, cost, index);
      add(dayBucket!, r, cost, index);
      add(modelBucket!, r, cost, index);
      add(dayModelBucket, r, cost, index);
      add(harnessDayBucket!, r, cost, index);
      add(harnessDayModelBucket!, r, cost, index);
      project ??= bucket(this.byProject, s.project ?? 'unknown');
      harness ??= bucket(this.byHarness, s.harness);
      add(project, r, cost, index);
      add(harness, r, cost, index);
    }
    return counted;
  }

  /** The totals of every bucket, as the report lists them. */
  tables(): Pick<
    UsageReport,
    | 'totals'
    | 'byDay'
    | 'byModel'
    | 'byDayModel'
    | 'byProject'
    | 'byHarness'
    | 'harnesses'
    | 'unpricedModels'
  > {
    return {
      totals: this.total.totals,
      byDay: totalsOf(this.byDay),
      byModel: totalsOf(this.byModel),
      byDayModel: totalsOfDayModels(this.byDayModel),
      byProject: totalsOf(this.byProject),
      byHarness: totalsOf(this.byHarness),
      harnesses: Object.fromEntries(
        [...this.harnessDays].map(([harness, d]) => [
          harness,
          { byDay: totalsOf(d.byDay), byDayModel: totalsOfDayModels(d.byDayModel) },
        ]),
      ),
      unpricedModels: [...this.unpriced].sort(),
    };
  }
}

/**
 * Scans the local transcripts (or refreshes `index`) and totals them. With an index,
 * the scan reads only what changed since its last refresh.
 */
export async function scanUsage(
  options: LocalIndexOptions &
    UsageReportOptions & { index?: LocalIndex; signal?: AbortSignal } = {},
): Promise<UsageReport> {
  const index = options.index ?? new LocalIndex(options);
  const snapshot = await index.refresh(options.signal ? { signal: options.signal } : {});
  return buildUsageReport(snapshot, index.pricing, options);
}
