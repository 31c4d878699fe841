/**
 * Bundled list prices (USD per million tokens) and the cost of usage records. Prices are
 * the providers' public standard-tier list prices (no batch discounts, no long-context
 * surcharge). A model that is not in the table (after overrides, aliases and prefix
 * matching) has no price: its cost is undefined ("cost unknown"), never 0.
 */
import type { UsageRecord } from './types.ts';

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

/** Anthropic: 5m cache write = 1.25 × input, 1h = 2 × input, cache read = 0.1 × input. */
function anthropic(input: number, output: number): ModelPrice {
  return {
    input,
    output,
    cacheRead: input / 10,
    cacheWrite: input * 1.25,
    cacheWrite1h: input * 2,
  };
}

/** OpenAI: cache writes are free (billed as input); cached input at the listed discount. */
function openai(input: number, output: number, cacheRead: number): ModelPrice {
  return { input, output, cacheRead, cacheWrite: input, cacheWrite1h: input };
}

export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  // Claude 4.x
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  // Claude 3.x, still seen in older transcripts
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-3-5-sonnet': anthropic(3, 15),
  'claude-3-5-haiku': anthropic(0.8, 4),
  'claude-3-opus': anthropic(15, 75),
  'claude-3-haiku': anthropic(0.25, 1.25),
  // OpenAI GPT-5 family (Codex)
  'gpt-5': openai(1.25, 10, 0.125),
  'gpt-5-codex': openai(1.25, 10, 0.125),
  'gpt-5-mini': openai(0.25, 2, 0.025),
  'gpt-5-nano': openai(0.05, 0.4, 0.005),
  'gpt-5-pro': openai(15, 120, 15),
  'gpt-5.1': openai(1.25, 10, 0.125),
  'gpt-5.1-codex': openai(1.25, 10, 0.125),
  'gpt-5.1-codex-max': openai(1.25, 10, 0.125),
  'gpt-5.1-codex-mini': openai(0.25, 2, 0.025),
  'gpt-5.2': openai(1.75, 14, 0.175),
  'gpt-5.2-codex': openai(1.75, 14, 0.175),
  'codex-mini-latest': openai(1.5, 6, 0.375),
  // OpenAI o-series and GPT-4.1/4o
  o1: openai(15, 60, 7.5),
  'o1-mini': openai(1.1, 4.4, 0.55),
  o3: openai(2, 8, 0.5),
  'o3-mini': openai(1.1, 4.4, 0.55),
  'o3-pro': openai(20, 80, 20),
  'o4-mini': openai(1.1, 4.4, 0.275),
  'gpt-4.1': openai(2, 8, 0.5),
  'gpt-4.1-mini': openai(0.4, 1.6, 0.1),
  'gpt-4.1-nano': openai(0.1, 0.4, 0.025),
  'gpt-4o': openai(2.5, 10, 1.25),
  'gpt-4o-mini': openai(0.15, 0.6, 0.075),
};

/** Other spellings of the same models. */
const ALIASES: Readonly<Record<string, string>> = {
  'claude-4-opus': 'claude-opus-4',
  'claude-4-sonnet': 'claude-sonnet-4',
  'claude-opus-4.5': 'claude-opus-4-5',
  'claude-opus-4.1': 'claude-opus-4-1',
  'claude-sonnet-4.5': 'claude-sonnet-4-5',
  'claude-haiku-4.5': 'claude-haiku-4-5',
  'claude-3-5-sonnet-latest': 'claude-3-5-sonnet',
  'claude-3-7-sonnet-latest': 'claude-3-7-sonnet',
  'claude-3-5-haiku-latest': 'claude-3-5-haiku',
};

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

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** A lookup that puts `overrides` (keys spelled like model ids) before the bundled table. */
export class Pricing {
  private readonly table: Map<string, ModelPrice>;
  private readonly memo = new Map<string, ModelPrice | undefined>();
  /** The last lookup: records come in runs of one model, so most lookups repeat it. */
  private lastModel: string | undefined;
  private lastPrice: ModelPrice | undefined;

  constructor(overrides: PriceTable = {}) {
    this.table = new Map(Object.entries(DEFAULT_PRICES));
    for (const [model, price] of Object.entries(overrides)) {
      if (Number.isFinite(price.input) && Number.isFinite(price.output)) {
        this.table.set(normalizeModel(model), price);
      }
    }
  }

  /**
   * Exact id, then alias, then the longest table key the id extends at a `-` boundary
   * (`claude-opus-4-5-thinking` → `claude-opus-4-5`). Undefined: unknown model.
   */
  priceOf(model: string | undefined): ModelPrice | undefined {
    if (!model) return undefined;
    if (model === this.lastModel) return this.lastPrice;
    let price: ModelPrice | undefined;
    if (this.memo.has(model)) price = this.memo.get(model);
    else {
      price = this.lookUp(normalizeModel(model));
      this.memo.set(model, price);
    }
    this.lastModel = model;
    this.lastPrice = price;
    return price;
  }

  private lookUp(id: string): ModelPrice | undefined {
    const price = this.table.get(id) ?? this.table.get(ALIASES[id] ?? '');
    if (price) return price;
    let bestKey = '';
    for (const key of this.table.keys()) {
      if (id.startsWith(`${key}-`) && key.length > bestKey.length) bestKey = key;
    }
    return bestKey ? this.table.get(bestKey) : undefined;
  }

  /** USD for one record; undefined when it has tokens and its model has no price. */
  costOf(r: UsageRecord): number | undefined {
    if (r.input + r.output + r.cacheRead + r.cacheWrite === 0) return 0;
    const p = this.priceOf(r.model);
    if (!p) return undefined;
    const write = p.cacheWrite ?? p.input;
    const write1h = Math.min(r.cacheWrite1h, r.cacheWrite);
    return (
      (r.input * p.input +
        r.output * p.output +
        r.cacheRead * (p.cacheRead ?? p.input) +
        (r.cacheWrite - write1h) * write +
        write1h * (p.cacheWrite1h ?? write)) /
      1_000_000
    );
  }
}
