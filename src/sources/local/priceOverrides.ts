/**
 * The `sessionInspector.local.prices` setting (model id → USD per million tokens) read into a
 * PriceTable. Each entry is checked on its own: a bad one is left out and described (for a
 * warning and the log), the others still apply. Unknown fields make an entry invalid rather
 * than being ignored, so a misspelt `cacheRead` is not silently billed at the input price.
 */
import * as z from 'zod';
import type { ModelPrice, PriceTable } from './pricing.ts';

const usdPerMillion = z
  .number({ error: 'must be a number (USD per million tokens)' })
  .nonnegative({ error: 'must not be negative' });

const modelPrice = z.strictObject({
  input: usdPerMillion,
  output: usdPerMillion,
  cacheRead: usdPerMillion.optional(),
  cacheWrite: usdPerMillion.optional(),
  cacheWrite1h: usdPerMillion.optional(),
});

export interface PriceOverrideProblem {
  /** The entry's key as written; absent when the whole setting is wrong. */
  model?: string;
  problem: string;
}

export interface PriceOverrides {
  prices: PriceTable;
  problems: PriceOverrideProblem[];
}

/** Reads the setting's value; undefined and null mean "no overrides". */
export function parsePriceOverrides(raw: unknown): PriceOverrides {
  if (raw === undefined || raw === null) return { prices: {}, problems: [] };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return {
      prices: {},
      problems: [{ problem: 'the setting must be an object of model id → prices' }],
    };
  }
  // Entries, not assignments: a "__proto__" key must stay a key, never set a prototype.
  const prices: [string, ModelPrice][] = [];
  const problems: PriceOverrideProblem[] = [];
  for (const [model, value] of Object.entries(raw)) {
    if (model.trim() === '') {
      problems.push({ model, problem: 'the model id is empty' });
      continue;
    }
    const parsed = modelPrice.safeParse(value);
    if (parsed.success) prices.push([model, withoutUndefined(parsed.data)]);
    else problems.push({ model, problem: describe(parsed.error, value) });
  }
  return { prices: Object.fromEntries(prices), problems };
}

/** "input is missing; cache_read is not a price field". */
function describe(error: z.ZodError, value: unknown): string {
  const has = (field: PropertyKey) =>
    !!value && typeof value === 'object' && Object.hasOwn(value, field);
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        return `${issue.keys.join(', ')} ${issue.keys.length === 1 ? 'is not a price field' : 'are not price fields'} (input, output, cacheRead, cacheWrite, cacheWrite1h)`;
      }
      const field = issue.path.join('.');
      if (!field) return 'must be an object like { "input": 3, "output": 15 }';
      if (!has(issue.path[0]!)) return `${field} is missing`;
      return `${field} ${issue.message}`;
    })
    .join('; ');
}

/** Optional prices left out stay absent (Pricing falls back for absent ones only). */
function withoutUndefined(price: ModelPrice): ModelPrice {
  return Object.fromEntries(
    Object.entries(price).filter(([, v]) => v !== undefined),
  ) as unknown as ModelPrice;
}

/** One line per problem: `"gpt-6": input is missing`. */
export function describePriceProblems(problems: readonly PriceOverrideProblem[]): string[] {
  return problems.map((p) => (p.model === undefined ? p.problem : `"${p.model}": ${p.problem}`));
}
