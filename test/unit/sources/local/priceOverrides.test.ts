/**
 * The sessionInspector.local.prices setting: valid entries become prices (and change costs),
 * each invalid entry is left out with a problem naming it and what is wrong.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  describePriceProblems,
  parsePriceOverrides,
} from '../../../../src/sources/local/priceOverrides.ts';
import { Pricing } from '../../../../src/sources/local/pricing.ts';
import type { UsageRecord } from '../../../../src/sources/local/types.ts';

const M = 1_000_000;
const record = (model: string, extra: Partial<UsageRecord> = {}): UsageRecord => ({
  model,
  ms: 0,
  input: M,
  output: M,
  cacheRead: M,
  cacheWrite: M,
  cacheWrite1h: 0,
  reasoning: 0,
  ...extra,
});

describe('parsePriceOverrides', () => {
  test('no setting, null or an empty object: no prices, no problems', () => {
    for (const raw of [undefined, null, {}]) {
      assert.deepEqual(parsePriceOverrides(raw), { prices: {}, problems: [] });
    }
  });

  test('valid entries keep only the fields given, and price the model', () => {
    const { prices, problems } = parsePriceOverrides({
      'my-model': { input: 2, output: 8 },
      'claude-sonnet-4-5': { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 3, cacheWrite1h: 4 },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(prices['my-model'], { input: 2, output: 8 });
    assert.ok(!('cacheRead' in prices['my-model']!), 'absent, so Pricing falls back to input');
    const pricing = new Pricing(prices);
    // Cache reads and writes default to the input price.
    assert.equal(pricing.costOf(record('my-model')), 2 + 8 + 2 + 2);
    // The override wins over the bundled price, dated ids included.
    assert.equal(pricing.costOf(record('claude-sonnet-4-5-20250929')), 1 + 2 + 0.5 + 3);
    assert.equal(pricing.costOf(record('claude-sonnet-4-5', { cacheWrite1h: M })), 1 + 2 + 0.5 + 4);
  });

  test('each invalid entry is left out and named with its problem; the others apply', () => {
    const { prices, problems } = parsePriceOverrides({
      good: { input: 1, output: 1 },
      missing: { input: 1 },
      negative: { input: -1, output: 1 },
      text: { input: '3', output: 1 },
      typo: { input: 1, output: 1, cache_read: 0.1 },
      notAnObject: 5,
      '': { input: 1, output: 1 },
    });
    assert.deepEqual(Object.keys(prices), ['good']);
    assert.deepEqual(describePriceProblems(problems), [
      '"missing": output is missing',
      '"negative": input must not be negative',
      '"text": input must be a number (USD per million tokens)',
      '"typo": cache_read is not a price field (input, output, cacheRead, cacheWrite, cacheWrite1h)',
      '"notAnObject": must be an object like { "input": 3, "output": 15 }',
      '"": the model id is empty',
    ]);
  });

  test('a setting that is not an object is one problem, and no prices', () => {
    for (const raw of [[{ input: 1 }], 'gpt-5', 3]) {
      const { prices, problems } = parsePriceOverrides(raw);
      assert.deepEqual(prices, {});
      assert.deepEqual(describePriceProblems(problems), [
        'the setting must be an object of model id → prices',
      ]);
    }
  });

  test('a "__proto__" key is an ordinary (invalid or valid) entry, never a prototype', () => {
    const raw = JSON.parse('{"__proto__": {"input": 1, "output": 2}}') as unknown;
    const { prices } = parsePriceOverrides(raw);
    assert.equal(Object.getPrototypeOf(prices), Object.prototype);
    assert.deepEqual(Object.keys(prices), ['__proto__']);
    // Input 1, output 2, cache read and write at the input price.
    assert.equal(new Pricing(prices).costOf(record('__proto__')), 1 + 2 + 1 + 1);
  });
});
