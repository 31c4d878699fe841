/**
 * The bench's cost model of ccusage (scripts/bench/ccusagePrices.ts): its observed rule
 * (each kind above 200k of that kind at the above-200k price) and the split of a cell's
 * difference into named rules, which must add up to ours − ccusage.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ccusageCost,
  modelCellCosts,
  modelKey,
  priceDifferences,
  type CcusagePrices,
} from '../../../scripts/bench/ccusagePrices.ts';
import type { LocalSnapshot } from '../../../src/sources/local/localIndex.ts';
import { Pricing } from '../../../src/sources/local/pricing.ts';
import type { UsageRecord } from '../../../src/sources/local/types.ts';

const MS = Date.parse('2026-06-01T12:00:00Z');
const record = (model: string, r: Partial<UsageRecord>): UsageRecord => ({
  model,
  ms: MS,
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  cacheWrite1h: 0,
  reasoning: 0,
  ...r,
});
const flat = (input: number, output: number, read: number, write: number, write1h: number) => ({
  input: { base: input, above: input },
  output: { base: output, above: output },
  cacheRead: { base: read, above: read },
  cacheWrite: { base: write, above: write },
  cacheWrite1h: { base: write1h, above: write1h },
});
const close = (a: number | undefined, b: number) =>
  assert.ok(a !== undefined && Math.abs(a - b) < 1e-9, `${a} ≈ ${b}`);

test("ccusage's rule: the tokens of a kind above 200k of that kind at the above-200k price", () => {
  const p: CcusagePrices = {
    ...flat(3, 15, 0.3, 3.75, 6),
    input: { base: 3, above: 6 },
  };
  close(ccusageCost(p, record('m', { input: 300_000 })), 0.6 + 0.6);
  // 150k input and 150k cache read: neither kind crosses 200k.
  close(ccusageCost(p, record('m', { input: 150_000, cacheRead: 150_000 })), 0.45 + 0.045);
  // 1-hour writes apart from 5-minute ones.
  close(ccusageCost(p, record('m', { cacheWrite: 100_000, cacheWrite1h: 40_000 })), 0.225 + 0.24);
});

test('a cell splits into price and tier parts that add up to ours − ccusage', () => {
  const pricing = new Pricing();
  const sonnet = 'claude-sonnet-4-5-20250929';
  // LiteLLM-like: input 10% dearer, per-kind tier above 200k.
  const theirs: CcusagePrices = {
    input: { base: 3.3, above: 6.6 },
    output: { base: 15, above: 22.5 },
    cacheRead: { base: 0.3, above: 0.6 },
    cacheWrite: { base: 3.75, above: 7.5 },
    cacheWrite1h: { base: 6, above: 12 },
  };
  const records = [
    record(sonnet, { input: 10_000, output: 2000 }),
    // 250k input, cache included: genai-prices bills all of it at the 200k tier.
    record(sonnet, { input: 50_000, cacheRead: 200_000, output: 1000 }),
  ];
  const snapshot = {
    sessions: [{ harness: 'claude-code', records }],
  } as unknown as LocalSnapshot;
  const prices = new Map([[modelKey('claude', sonnet), theirs]]);
  const cell = modelCellCosts(snapshot, pricing, prices).get(`claude|2026-06-01|${sonnet}`)!;
  const ours = records.reduce((n, r) => n + pricing.costOf(r)!, 0);
  const ccusage = records.reduce((n, r) => n + ccusageCost(theirs, r), 0);
  close(cell.ours, ours);
  close(cell.ccusage, ccusage);
  close((cell.parts.price ?? 0) + (cell.parts.tier ?? 0), ours - ccusage);
  // The price part: 60k input at $3 rather than $3.30.
  close(cell.parts.price, -60_000 * 0.3e-6);
  assert.equal(cell.tiered, 1);
  assert.equal(cell.responses, 2);
  assert.deepEqual(
    priceDifferences(pricing, prices, [{ agent: 'claude', model: sonnet, ms: MS }]),
    [
      `price differs between genai-prices and ccusage's LiteLLM data for ${sonnet} (per million, genai-prices vs ccusage): input $3 vs $3.3`,
    ],
  );
});

test('a model only one side prices is the "unpriced" part', () => {
  const snapshot = {
    sessions: [{ harness: 'codex', records: [record('gpt-5.3-codex', { input: 1_000_000 })] }],
  } as unknown as LocalSnapshot;
  const cell = modelCellCosts(snapshot, new Pricing(), new Map()).get(
    'codex|2026-06-01|gpt-5.3-codex',
  )!;
  close(cell.ours, 1.75);
  close(cell.ccusage, 0);
  close(cell.parts.unpriced, 1.75);
});
