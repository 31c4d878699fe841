/**
 * The cost of usage records. Prices come from `@pydantic/genai-prices` (genaiPrices.ts:
 * its model-id matching per provider, cache read and write prices, long-context tiers and
 * prices that change on a date), after the user's `sessionInspector.local.prices`
 * overrides. Each record (one response, one Codex token_count delta) is priced on its own,
 * as the providers bill each request: a tier applies when that request's input crosses it.
 * A model neither knows has no price: its cost is undefined ("cost unknown"), never 0 and
 * never the price of a shorter id of the same family.
 */
import {
  constraintTest,
  findModel,
  type PriceData,
  type PriceSet,
  type Rate,
} from './genaiPrices.ts';
import { priceData } from './priceData.ts';
import type { UsageRecord } from './types.ts';

/** A price the user sets (USD per million tokens). */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cache hits; defaults to `input` when a custom price leaves it out. */
  cacheRead?: number;
  /** Cache writes with the 5 minute TTL; defaults to `input`. */
  cacheWrite?: number;
  /** Cache writes with the 1 hour TTL; defaults to `cacheWrite`. */
  cacheWrite1h?: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** What Claude Code writes as the model of a message it made itself (no API call). */
export const SYNTHETIC_MODEL = '<synthetic>';

/**
 * Lower case, without a provider prefix (`anthropic/`, `openai/`, Bedrock's
 * `us.anthropic.`), a Bedrock `-v1:0` or Vertex `@date` suffix, or a release date.
 */
export function normalizeModel(model: string): string {
  return model
    .trim()
    .toLowerCase()
    .replace(/^(?:[a-z]+\/)+/, '')
    .replace(/^(?:[a-z]{2,4}\.)?anthropic\./, '')
    .replace(/-v\d+(?::\d+)?$/, '')
    .replace(/@\d{8}$/, '')
    .replace(/-\d{8}$/, '')
    .replace(/-\d{4}-\d{2}-\d{2}$/, '');
}

/**
 * Flat prices (USD per million tokens, requests per thousand) of one model for requests
 * whose input is in one tier. A price the model lacks is 0 with its `has…` flag false:
 * those tokens are then billed as their parent kind (cache reads and writes as input,
 * 1-hour writes as writes), as genai-prices does.
 */
interface Rates {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number;
  requests: number;
  hasCacheRead: boolean;
  hasCacheWrite: boolean;
  hasCacheWrite1h: boolean;
}

/** A model's rates by the request's input tokens (cache included): the first band whose `above` it exceeds. */
interface Bands {
  above: number[];
  rates: Rates[];
}

/** Where a price comes from, for the report and the log. */
export type PriceSource = 'override' | 'genai-prices' | 'synthetic';

/** A model's prices: the same at all times, or chosen by the record's time. */
interface Priced {
  source: PriceSource;
  /** genai-prices: provider and model id it matched (`anthropic/claude-opus-4-6`). */
  matched?: string;
  fixed: Bands | undefined;
  /** Prices that depend on the time (a start date, an off-peak window). */
  at: ((ms: number) => Bands) | undefined;
}

const rate = (r: Rate | undefined, total: number): number => {
  if (r === undefined) return 0;
  if (typeof r === 'number') return r;
  let price = r.base;
  for (const t of r.tiers) if (total > t.start) price = t.price;
  return price;
};

function ratesOf(p: PriceSet, total: number): Rates {
  return {
    input: rate(p.input_mtok, total),
    output: rate(p.output_mtok, total),
    cacheRead: rate(p.cache_read_mtok, total),
    cacheWrite: rate(p.cache_write_mtok, total),
    cacheWrite1h: rate(p.cache_write_1h_mtok, total),
    requests: rate(p.requests_kcount, total),
    hasCacheRead: p.cache_read_mtok !== undefined,
    hasCacheWrite: p.cache_write_mtok !== undefined,
    hasCacheWrite1h: p.cache_write_1h_mtok !== undefined,
  };
}

/** One band per tier boundary of any price (the highest first), and the base band. */
function bandsOf(p: PriceSet): Bands {
  const starts = new Set<number>();
  for (const r of Object.values(p)) {
    if (typeof r === 'object') for (const t of r.tiers) starts.add(t.start);
  }
  const above = [...starts].sort((a, b) => b - a);
  // A request in band `start` has more than `start` input tokens, at most the next start.
  const rates = above.map((start) => ratesOf(p, start + 1));
  above.push(-Infinity);
  rates.push(ratesOf(p, 0));
  return { above, rates };
}

function overrideBands(p: ModelPrice): Bands {
  const cacheWrite = p.cacheWrite ?? p.input;
  return {
    above: [-Infinity],
    rates: [
      {
        input: p.input,
        output: p.output,
        cacheRead: p.cacheRead ?? p.input,
        cacheWrite,
        cacheWrite1h: p.cacheWrite1h ?? cacheWrite,
        requests: 0,
        hasCacheRead: true,
        hasCacheWrite: true,
        hasCacheWrite1h: true,
      },
    ],
  };
}

const FREE: Bands = {
  above: [-Infinity],
  rates: [
    {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      cacheWrite1h: 0,
      requests: 0,
      hasCacheRead: true,
      hasCacheWrite: true,
      hasCacheWrite1h: true,
    },
  ],
};

/** USD of one request at flat rates. */
function costAt(p: Rates, r: UsageRecord): number {
  const write1h = p.hasCacheWrite1h ? Math.min(r.cacheWrite1h, r.cacheWrite) : 0;
  const write = p.hasCacheWrite ? r.cacheWrite - write1h : 0;
  const read = p.hasCacheRead ? r.cacheRead : 0;
  // `input` excludes cached tokens; kinds without a price of their own are billed as input.
  const input = r.input + (r.cacheRead - read) + (r.cacheWrite - write - write1h);
  return (
    (input * p.input +
      read * p.cacheRead +
      write * p.cacheWrite +
      write1h * p.cacheWrite1h +
      r.output * p.output) /
      1_000_000 +
    p.requests / 1000
  );
}

export interface PricingOptions {
  /** Called once per model id that has tokens and no price (for the log). */
  onUnknownModel?: (model: string) => void;
  /** The price data (tests); default: the bundled extract of genai-prices. */
  data?: PriceData;
}

/** A lookup that puts `overrides` (keys spelled like model ids) before genai-prices. */
export class Pricing {
  /** The genai-prices version the prices come from. */
  readonly version: string;
  private readonly data: PriceData;
  private readonly overrides = new Map<string, ModelPrice>();
  private readonly onUnknownModel: ((model: string) => void) | undefined;
  /** Unknown models already told to onUnknownModel. */
  private readonly reported = new Set<string>();
  /** By model id as written: models repeat, and matching walks hundreds of rules. */
  private readonly memo = new Map<string, Priced | undefined>();
  /** The last lookup: records come in runs of one model, so most lookups repeat it. */
  private lastModel: string | undefined;
  private lastPriced: Priced | undefined;

  constructor(overrides: PriceTable = {}, options: PricingOptions = {}) {
    this.data = options.data ?? priceData();
    this.version = this.data.version;
    this.onUnknownModel = options.onUnknownModel;
    for (const [model, price] of Object.entries(overrides)) {
      if (Number.isFinite(price.input) && Number.isFinite(price.output)) {
        this.overrides.set(normalizeModel(model), price);
      }
    }
  }

  /**
   * The model's prices: an override for the id (compared without date, provider prefix
   * or Bedrock/Vertex suffix), else genai-prices' match for the id as written, else for
   * that normalised id. Undefined: an unknown model.
   */
  private priced(model: string): Priced | undefined {
    if (model === this.lastModel) return this.lastPriced;
    let priced: Priced | undefined;
    if (this.memo.has(model)) priced = this.memo.get(model);
    else {
      priced = this.lookUp(model);
      this.memo.set(model, priced);
    }
    this.lastModel = model;
    this.lastPriced = priced;
    return priced;
  }

  private lookUp(model: string): Priced | undefined {
    const id = normalizeModel(model);
    const override = this.overrides.get(id);
    if (override) return { source: 'override', fixed: overrideBands(override), at: undefined };
    if (model === SYNTHETIC_MODEL) return { source: 'synthetic', fixed: FREE, at: undefined };
    const found =
      findModel(this.data, model) ??
      (id && id !== model.trim().toLowerCase() ? findModel(this.data, id) : undefined);
    if (!found) return undefined;
    const matched = `${found.provider}/${found.model.id}`;
    const prices = found.model.prices;
    if (!Array.isArray(prices)) {
      return { source: 'genai-prices', matched, fixed: bandsOf(prices), at: undefined };
    }
    // The last variant whose constraint holds, else the first (as genai-prices picks).
    const variants = prices.map((v) => ({
      holds: v.constraint ? constraintTest(v.constraint) : () => true,
      bands: bandsOf(v.prices),
    }));
    const at = (ms: number): Bands => {
      // Without a timestamp, today's price (as genai-prices does without one).
      const t = Number.isFinite(ms) ? ms : Date.now();
      for (let i = variants.length - 1; i >= 0; i--) {
        if (variants[i]!.holds(t)) return variants[i]!.bands;
      }
      return variants[0]!.bands;
    };
    return { source: 'genai-prices', matched, fixed: undefined, at };
  }

  /** Whether the model has a price (an override, genai-prices, or `<synthetic>`'s zero). */
  knows(model: string | undefined): boolean {
    return model !== undefined && this.priced(model) !== undefined;
  }

  /** Where the model's price comes from and, from genai-prices, the model it matched. */
  describe(model: string): { source: PriceSource; matched?: string } | undefined {
    const p = this.priced(model);
    if (!p) return undefined;
    return p.matched ? { source: p.source, matched: p.matched } : { source: p.source };
  }

  /**
   * Per-million prices for one request of this model at `ms` with `inputTokens` of input
   * (cache included: it picks the tier). Undefined: unknown model.
   */
  ratesOf(
    model: string,
    ms: number,
    inputTokens = 0,
  ):
    | { input: number; output: number; cacheRead: number; cacheWrite: number; cacheWrite1h: number }
    | undefined {
    const p = this.priced(model);
    if (!p) return undefined;
    const r = pick(p.fixed ?? p.at!(ms), inputTokens);
    const write = r.hasCacheWrite ? r.cacheWrite : r.input;
    return {
      input: r.input,
      output: r.output,
      cacheRead: r.hasCacheRead ? r.cacheRead : r.input,
      cacheWrite: write,
      cacheWrite1h: r.hasCacheWrite1h ? r.cacheWrite1h : write,
    };
  }

  /** The input token counts (cache included) above which a request of this model at `ms` costs more. */
  tierThresholds(model: string, ms: number): number[] {
    const p = this.priced(model);
    return p ? (p.fixed ?? p.at!(ms)).above.filter(Number.isFinite).reverse() : [];
  }

  /** USD for one record; undefined when it has tokens and its model has no price. */
  costOf(r: UsageRecord): number | undefined {
    const total = r.input + r.cacheRead + r.cacheWrite;
    if (total + r.output === 0) return 0;
    const model = r.model;
    const p = model === undefined ? undefined : this.priced(model);
    if (!p) {
      if (model !== undefined) this.unknown(model);
      return undefined;
    }
    return costAt(pick(p.fixed ?? p.at!(r.ms), total), r);
  }

  private unknown(model: string): void {
    if (!this.onUnknownModel || this.reported.has(model)) return;
    this.reported.add(model);
    this.onUnknownModel(model);
  }
}

function pick(b: Bands, inputTokens: number): Rates {
  const above = b.above;
  let i = 0;
  while (inputTokens <= above[i]!) i++;
  return b.rates[i]!;
}
