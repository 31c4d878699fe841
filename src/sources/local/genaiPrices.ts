/**
 * Model prices from `@pydantic/genai-prices` (the Pydantic team's maintained price data), cut
 * down to what a transcript can be billed for, and the package's own model lookup
 * reproduced on that extract. The package's module holds every provider's data with
 * descriptions (about 480 KB minified, ~100 ms to load); the bundles carry this extract
 * instead, made from the installed package at build time (priceData.ts, esbuild.mjs), so
 * updating prices is a dependency bump. pricing.test.ts compares the two lookups model by
 * model.
 *
 * What is kept: the providers that `calcPrice(usage, modelId)` can pick from a model id
 * alone (those with a `model_match`, in the package's order, and their fallback
 * providers), each model's match rule and the prices of the usage this extension reports
 * (input, output, cache read, cache writes, requests), with their date or time-of-day
 * constraints and long-context tiers.
 */

/** A model or provider match rule, as the package writes it. */
export type MatchLogic =
  | { and: MatchLogic[] }
  | { or: MatchLogic[] }
  | { equals: string }
  | { starts_with: string }
  | { ends_with: string }
  | { contains: string }
  | { regex: string };

/** A price that rises with the request's input tokens (cache included) above `start`. */
export interface TieredRate {
  base: number;
  tiers: { start: number; price: number }[];
}

export type Rate = number | TieredRate;

/** The price keys kept (USD per million tokens; requests per thousand). */
export const PRICE_KEYS = [
  'input_mtok',
  'output_mtok',
  'cache_read_mtok',
  'cache_write_mtok',
  'cache_write_1h_mtok',
  'requests_kcount',
] as const;
export type PriceKey = (typeof PRICE_KEYS)[number];
export type PriceSet = Partial<Record<PriceKey, Rate>>;

export type PriceConstraint =
  | { type: 'start_date'; start_date: string }
  | { type: 'time_of_date'; start_time: string; end_time: string };

export interface PricedModel {
  id: string;
  match: MatchLogic;
  /** One price, or prices by constraint (the last one whose constraint holds applies). */
  prices: PriceSet | { constraint?: PriceConstraint; prices: PriceSet }[];
}

export interface PricedProvider {
  id: string;
  model_match?: MatchLogic;
  fallback_model_providers?: string[];
  models: PricedModel[];
}

export interface PriceData {
  /** The version of `@pydantic/genai-prices` the data comes from. */
  version: string;
  providers: PricedProvider[];
}

/** The package's provider shape, as far as the extract reads it. */
export interface SourceProvider {
  id: string;
  model_match?: MatchLogic;
  fallback_model_providers?: string[];
  models: {
    id: string;
    match: MatchLogic;
    prices: Record<string, unknown> | { constraint?: unknown; prices: Record<string, unknown> }[];
  }[];
}

/** The extract of the package's providers (see the module comment). */
export function extractPriceData(providers: readonly SourceProvider[], version: string): PriceData {
  const reachable = new Set(providers.filter((p) => p.model_match).map((p) => p.id));
  for (const p of providers) {
    if (p.model_match) for (const id of p.fallback_model_providers ?? []) reachable.add(id);
  }
  const pick = (prices: Record<string, unknown>): PriceSet => {
    const kept: PriceSet = {};
    for (const key of PRICE_KEYS) if (prices[key] !== undefined) kept[key] = prices[key] as Rate;
    return kept;
  };
  return {
    version,
    providers: providers
      .filter((p) => reachable.has(p.id))
      .map((p) => {
        const out: PricedProvider = { id: p.id, models: [] };
        if (p.model_match) out.model_match = p.model_match;
        if (p.fallback_model_providers) out.fallback_model_providers = p.fallback_model_providers;
        out.models = p.models.map((m) => ({
          id: m.id,
          match: m.match,
          prices: Array.isArray(m.prices)
            ? m.prices.map((c) =>
                c.constraint === undefined
                  ? { prices: pick(c.prices) }
                  : { constraint: c.constraint as PriceConstraint, prices: pick(c.prices) },
              )
            : pick(m.prices),
        }));
        return out;
      }),
  };
}

const regexes = new Map<string, RegExp>();

/** The package's match rule: case-insensitive but for `regex`, which is tested as written. */
export function matches(m: MatchLogic, id: string): boolean {
  if ('or' in m) return m.or.some((x) => matches(x, id));
  if ('and' in m) return m.and.every((x) => matches(x, id));
  if ('equals' in m) return id.toLowerCase() === m.equals.toLowerCase();
  if ('starts_with' in m) return id.toLowerCase().startsWith(m.starts_with.toLowerCase());
  if ('ends_with' in m) return id.toLowerCase().endsWith(m.ends_with.toLowerCase());
  if ('contains' in m) return id.toLowerCase().includes(m.contains.toLowerCase());
  if ('regex' in m) {
    let re = regexes.get(m.regex);
    if (!re) regexes.set(m.regex, (re = new RegExp(m.regex)));
    return re.test(id);
  }
  return false;
}

/** `-20250929` → `-2025-09-29` for a real date (the package's second try). */
const COMPACT_DATE = /(-)(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=-|:|$)/g;

function isoDates(id: string): string {
  return id.replace(COMPACT_DATE, (all, dash: string, y: string, mo: string, d: string) => {
    const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
    return date.getUTCFullYear() !== Number(y) ||
      date.getUTCMonth() !== Number(mo) - 1 ||
      date.getUTCDate() !== Number(d)
      ? all
      : `${dash}${y}-${mo}-${d}`;
  });
}

export interface FoundModel {
  provider: string;
  model: PricedModel;
}

/**
 * The model `calcPrice(usage, modelId)` prices `modelId` as (no provider given): the first
 * provider whose rule matches the id, then the first of its models (or of its fallback
 * providers' models) that matches the id, else the id with compact dates spelt out.
 */
export function findModel(data: PriceData, modelId: string): FoundModel | undefined {
  const id = modelId.toLowerCase().trim();
  const provider = data.providers.find((p) => p.model_match && matches(p.model_match, id));
  if (!provider) return undefined;
  const inProvider = (
    p: PricedProvider,
    withFallbacks: boolean,
    x: string,
  ): FoundModel | undefined => {
    const model = p.models.find((m) => matches(m.match, x));
    if (model) return { provider: p.id, model };
    if (!withFallbacks) return undefined;
    for (const fallbackId of p.fallback_model_providers ?? []) {
      const fallback = data.providers.find((f) => f.id === fallbackId);
      const found = fallback && inProvider(fallback, false, x);
      if (found) return found;
    }
    return undefined;
  };
  const found = inProvider(provider, true, id);
  if (found) return found;
  const dated = isoDates(id);
  return dated === id ? undefined : inProvider(provider, true, dated);
}

/** Seconds after midnight UTC of `HH:MM:SS[.fff](Z|±HH:MM)`. */
function secondsOfDay(time: string): number {
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|([+-])(\d{2}):(\d{2}))$/.exec(time);
  if (!m) throw new Error(`Invalid time-of-day constraint: ${time}`);
  const [, h, min, s, frac = '', zone, sign, oh = '00', om = '00'] = m;
  const offset = (Number(oh) * 60 + Number(om)) * 60;
  const local = Number(h) * 3600 + Number(min) * 60 + Number(s) + Number(`0.${frac}`);
  const shift = zone === 'Z' ? 0 : sign === '+' ? offset : -offset;
  return (local - shift + 86_400) % 86_400;
}

/** Whether a constraint holds at an epoch ms, as the package decides it (parsed once). */
export function constraintTest(c: PriceConstraint): (ms: number) => boolean {
  if (c.type === 'start_date') {
    const start = Date.parse(c.start_date);
    return (ms) => ms >= start;
  }
  const start = secondsOfDay(c.start_time);
  const end = secondsOfDay(c.end_time);
  return (ms) => {
    const d = new Date(ms);
    const now =
      d.getUTCHours() * 3600 +
      d.getUTCMinutes() * 60 +
      d.getUTCSeconds() +
      d.getUTCMilliseconds() / 1000;
    return end < start ? now >= start || now < end : now >= start && now < end;
  };
}
