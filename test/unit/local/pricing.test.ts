/** Prices, model-id matching, overrides, and "cost unknown" for unknown models. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LocalIndex } from '../../../src/sources/local/localIndex.ts';
import { DEFAULT_PRICES, Pricing, normalizeModel } from '../../../src/sources/local/pricing.ts';
import type { UsageRecord } from '../../../src/sources/local/types.ts';
import { buildUsageReport } from '../../../src/sources/local/usageReport.ts';
import { assistant, jsonl, prompt, tempDir, usage, writeAt } from './fixtures.ts';

const M = 1_000_000;

function rec(model: string | undefined, r: Partial<UsageRecord>): UsageRecord {
  return {
    model,
    ms: 0,
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    cacheWrite1h: 0,
    reasoning: 0,
    ...r,
  };
}

const close = (actual: number | undefined, expected: number) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-9, `${actual} ≈ ${expected}`);

describe('pricing', () => {
  const p = new Pricing();

  test('Claude: input, output, cache read, 5 minute and 1 hour cache writes', () => {
    const r = rec('claude-sonnet-4-5-20250929', {
      input: M,
      output: M,
      cacheRead: M,
      cacheWrite: 3 * M,
      cacheWrite1h: M,
    });
    // 3 + 15 + 0.30 + 2 × 3.75 + 1 × 6
    close(p.costOf(r), 3 + 15 + 0.3 + 7.5 + 6);
  });

  test('OpenAI: cached input at the cached price, reasoning is part of output', () => {
    const r = rec('gpt-5-codex', { input: M, cacheRead: M, output: M, reasoning: M / 2 });
    close(p.costOf(r), 1.25 + 0.125 + 10);
  });

  test('the families the brief names all have prices', () => {
    for (const model of [
      'claude-opus-4-5',
      'claude-opus-4-1',
      'claude-sonnet-4-5',
      'claude-haiku-4-5',
      'gpt-5',
      'gpt-5-codex',
      'o3',
      'o4-mini',
    ]) {
      assert.ok(DEFAULT_PRICES[model], model);
    }
  });

  test('an unknown model gives undefined, never 0; no tokens cost 0 whatever the model', () => {
    assert.equal(p.costOf(rec('claude-experimental-9', { output: 10 })), undefined);
    assert.equal(p.costOf(rec(undefined, { input: 10 })), undefined);
    assert.equal(p.costOf(rec('claude-experimental-9', {})), 0);
  });

  test('model ids are matched through prefixes, dates, provider spellings', () => {
    const rows: [string, string][] = [
      ['claude-opus-4-5-20251101', 'claude-opus-4-5'],
      ['anthropic/claude-opus-4-5', 'claude-opus-4-5'],
      ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5'],
      ['claude-opus-4-1@20250805', 'claude-opus-4-1'],
      ['gpt-5-2025-08-07', 'gpt-5'],
      ['GPT-5-Codex', 'gpt-5-codex'],
    ];
    for (const [raw, id] of rows) assert.equal(normalizeModel(raw), id, raw);
    // Longest key at a '-' boundary: a variant of a known model.
    assert.equal(p.priceOf('claude-opus-4-5-thinking'), DEFAULT_PRICES['claude-opus-4-5']);
    assert.equal(p.priceOf('claude-sonnet-4.5'), DEFAULT_PRICES['claude-sonnet-4-5']);
    assert.equal(p.priceOf('gpt-5.1-codex-mini'), DEFAULT_PRICES['gpt-5.1-codex-mini']);
    assert.equal(p.priceOf('gpt-50'), undefined, 'no match inside a word');
  });

  test('priceOverrides price unknown models and replace bundled prices', () => {
    const custom = new Pricing({
      'claude-experimental-9': { input: 2, output: 8 },
      'gpt-5': { input: 1, output: 1, cacheRead: 1 },
    });
    // Left-out cache prices default to the input price.
    close(
      custom.costOf(rec('claude-experimental-9', { input: M, output: M, cacheRead: M })),
      2 + 8 + 2,
    );
    close(custom.costOf(rec('gpt-5-2025-08-07', { output: M })), 1);
    close(custom.costOf(rec('gpt-5-codex', { output: M })), 10);
  });
});

describe('cost in sessions and reports', () => {
  test('a session with an unknown model has tokens and no cost; the report says which model', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const project = join(dir, 'claude', 'projects', '-p');
      await writeAt(
        join(project, 'known.jsonl'),
        jsonl(prompt('a'), assistant({ usage: usage(0, M) })),
      );
      await writeAt(
        join(project, 'mixed.jsonl'),
        jsonl(
          prompt('b'),
          assistant({ id: 'm1', usage: usage(0, M) }),
          assistant({ id: 'm2', model: 'claude-experimental-9', usage: usage(0, 10) }),
        ),
      );
      const options = { claudeConfigDirs: [join(dir, 'claude')], codexHome: join(dir, 'none') };
      let index = new LocalIndex(options);
      let snap = await index.refresh();
      const known = snap.sessions.find((s) => s.path.endsWith('known.jsonl'))!.summary;
      const mixed = snap.sessions.find((s) => s.path.endsWith('mixed.jsonl'))!.summary;
      close(known.estimatedCost, 15);
      assert.equal(mixed.outputTokens, M + 10);
      assert.equal(mixed.estimatedCost, undefined);
      assert.ok(!('estimatedCost' in mixed), 'absent, not 0');
      const report = buildUsageReport(snap, index.pricing);
      assert.equal(report.totals.cost, undefined);
      close(report.totals.knownCost, 30);
      assert.deepEqual(report.unpricedModels, ['claude-experimental-9']);
      close(report.byModel['claude-sonnet-4-5-20250929']!.cost, 30);

      index = new LocalIndex({
        ...options,
        priceOverrides: { 'claude-experimental-9': { input: 1, output: M } },
      });
      snap = await index.refresh();
      close(
        snap.sessions.find((s) => s.path.endsWith('mixed.jsonl'))!.summary.estimatedCost,
        15 + 10,
      );
    } finally {
      await cleanup();
    }
  });
});
