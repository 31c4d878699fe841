/**
 * Prices from @pydantic/genai-prices: our lookup on the extract agrees with the package's own
 * calcPrice for every model it can match; tiers apply per request; unknown models are
 * "cost unknown" (never a shorter family id's price) and told once; overrides win;
 * `<synthetic>` messages cost nothing and make no model row.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { calcPrice } from '@pydantic/genai-prices';
import type { MatchLogic, PricedModel } from '../../../../src/sources/local/genaiPrices.ts';
import { LocalIndex } from '../../../../src/sources/local/localIndex.ts';
import { LocalSource } from '../../../../src/sources/local/localSource.ts';
import { priceData } from '../../../../src/sources/local/priceData.ts';
import { Pricing, normalizeModel } from '../../../../src/sources/local/pricing.ts';
import type { UsageRecord } from '../../../../src/sources/local/types.ts';
import { buildUsageReport } from '../../../../src/sources/local/usageReport.ts';
import { writeLocalCorpus } from '../../../support/localCorpus.ts';
import {
  assistant,
  codex,
  codexMeta,
  jsonl,
  prompt,
  tempDir,
  tokenCount,
  turnContext,
  usage,
  writeAt,
} from './fixtures.ts';

const M = 1_000_000;
const JUNE_2026 = Date.parse('2026-06-01T12:00:00Z');

function rec(model: string | undefined, r: Partial<UsageRecord>): UsageRecord {
  return {
    model,
    ms: JUNE_2026,
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    cacheWrite1h: 0,
    reasoning: 0,
    ...r,
  };
}

const close = (actual: number | undefined, expected: number, what = '') =>
  assert.ok(
    actual !== undefined && Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)),
    `${what} ${actual} ≈ ${expected}`,
  );

/** The package's price of a record: its `input_tokens` include the cached ones. */
function packagePrice(model: string, r: UsageRecord): number | undefined {
  const result = calcPrice(
    {
      input_tokens: r.input + r.cacheRead + r.cacheWrite,
      cache_read_tokens: r.cacheRead,
      cache_write_tokens: r.cacheWrite,
      cache_write_1h_tokens: r.cacheWrite1h,
      output_tokens: r.output,
    },
    model,
    { timestamp: new Date(r.ms) },
  );
  return result?.total_price;
}

/** Requests of every shape that matters: small, across the 200k and 272k tiers, huge. */
const SHAPES: Partial<UsageRecord>[] = [
  { input: 1200, output: 800, cacheRead: 20_000, cacheWrite: 3000, cacheWrite1h: 1000 },
  { input: 10_000, output: 4000, cacheRead: 250_000, cacheWrite: 5000, cacheWrite1h: 2000 },
  { input: 30_000, output: 9000, cacheRead: 300_000, cacheWrite: 0, cacheWrite1h: 0 },
  { input: M, output: M, cacheRead: M, cacheWrite: M, cacheWrite1h: M / 2 },
  { output: 1000 },
];

/** The ids a model's rule names (`equals`, `starts_with`), besides its own id. */
function idsOf(m: PricedModel): string[] {
  const ids = new Set([m.id]);
  const walk = (x: MatchLogic) => {
    if ('or' in x) x.or.forEach(walk);
    else if ('and' in x) x.and.forEach(walk);
    else if ('equals' in x) ids.add(x.equals);
    else if ('starts_with' in x) ids.add(x.starts_with);
  };
  walk(m.match);
  return [...ids];
}

/** Times to price at: the model's price changes (and just before), every hour of a day. */
function timesOf(m: PricedModel): number[] {
  if (!Array.isArray(m.prices)) return [JUNE_2026];
  const times = [JUNE_2026, Date.now()];
  for (const v of m.prices) {
    if (v.constraint?.type === 'start_date') {
      const start = Date.parse(v.constraint.start_date);
      times.push(start - 1, start, start + 36 * 3600_000);
    }
  }
  for (let h = 0; h < 24; h++) times.push(Date.parse('2026-09-01T00:30:00Z') + h * 3600_000);
  return times;
}

describe('prices agree with @pydantic/genai-prices', () => {
  const ours = new Pricing();

  test('every model the package can match from an id alone, at every tier and price date', () => {
    let compared = 0;
    for (const provider of priceData().providers) {
      for (const model of provider.models) {
        for (const id of idsOf(model)) {
          for (const ms of timesOf(model)) {
            for (const shape of SHAPES) {
              const r = rec(id, { ...shape, ms });
              const theirs = packagePrice(id, r);
              const mine = ours.costOf(r);
              if (theirs === undefined) {
                // A model the package cannot reach from its id alone is unknown to us too,
                // unless our id normalisation finds it: then at the package's price for that id.
                const normal = normalizeModel(id);
                if (normal === id.toLowerCase()) assert.equal(mine, undefined, id);
                else if (mine !== undefined) close(mine, packagePrice(normal, r)!, id);
                continue;
              }
              close(mine, theirs, `${provider.id} ${id} at ${new Date(ms).toISOString()}`);
              compared++;
            }
          }
        }
      }
    }
    assert.ok(compared > 5000, `${compared} comparisons`);
  });

  test('the current Claude and GPT-5 models, as the harnesses write them', () => {
    const models = [
      'claude-opus-4-6',
      'claude-opus-4-5-20251101',
      'claude-opus-4-1',
      'claude-opus-4-1-20250805',
      'claude-sonnet-4-20250514',
      'claude-sonnet-4-5',
      'claude-sonnet-4-5-20250929',
      'claude-sonnet-4-6',
      'claude-haiku-4-5',
      'claude-haiku-4-5-20251001',
      'gpt-5',
      'gpt-5-codex',
      'gpt-5.1-codex',
      'gpt-5.1-codex-max',
      'gpt-5.1-codex-mini',
      'gpt-5.2-codex',
      'gpt-5.3-codex',
      'gpt-5.4',
      'gpt-5.5-codex',
    ];
    for (const model of models) {
      assert.ok(ours.knows(model), `${model} has a price`);
      for (const shape of SHAPES) {
        const r = rec(model, shape);
        close(ours.costOf(r), packagePrice(model, r)!, model);
      }
    }
  });
});

describe('pricing', () => {
  const p = new Pricing();

  test('claude-opus-4-6 costs $5 / $25 per million input / output tokens', () => {
    close(p.costOf(rec('claude-opus-4-6', { input: M })), 5);
    close(p.costOf(rec('claude-opus-4-6', { output: M })), 25);
    const rates = p.ratesOf('claude-opus-4-6', JUNE_2026);
    assert.equal(rates?.input, 5);
    assert.equal(rates?.output, 25);
    // Not Opus 4's $15 / $75 (the old table's longest-prefix guess).
    assert.equal(p.ratesOf('claude-opus-4', JUNE_2026)?.input, 15);
  });

  test('gpt-5.3-codex has a price: Codex sessions are not "cost unknown"', () => {
    close(p.costOf(rec('gpt-5.3-codex', { input: M, cacheRead: M, output: M })), 1.75 + 0.175 + 14);
  });

  test('an unknown model is cost unknown, never the price of a shorter id of its family', () => {
    for (const model of [
      'claude-opus-9-9',
      'claude-opus-9-9-20270101',
      'gpt-5.9-codex',
      'gpt-50',
    ]) {
      assert.equal(p.knows(model), false, model);
      assert.equal(p.costOf(rec(model, { input: 10, output: 10 })), undefined, model);
    }
    assert.equal(p.costOf(rec(undefined, { input: 10 })), undefined, 'no model');
    assert.equal(p.costOf(rec('claude-opus-9-9', {})), 0, 'no tokens cost 0 whatever the model');
  });

  test('each unknown model is told once, and only when it has tokens', () => {
    const told: string[] = [];
    const pricing = new Pricing({}, { onUnknownModel: (m) => told.push(m) });
    pricing.costOf(rec('claude-opus-9-9', {}));
    assert.deepEqual(told, []);
    for (let i = 0; i < 3; i++) pricing.costOf(rec('claude-opus-9-9', { output: 5 }));
    pricing.costOf(rec('claude-sonnet-4-5', { output: 5 }));
    pricing.costOf(rec('my-model', { input: 5 }));
    assert.deepEqual(told, ['claude-opus-9-9', 'my-model']);
  });

  test('ids with a provider prefix, a Bedrock or Vertex suffix, or another case', () => {
    const sonnet = p.costOf(rec('claude-sonnet-4-5', { input: M, output: M }));
    for (const model of [
      'anthropic/claude-sonnet-4-5',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'claude-sonnet-4-5@20250929',
      'Claude-Sonnet-4-5',
    ]) {
      close(p.costOf(rec(model, { input: M, output: M })), sonnet!, model);
    }
  });

  test('cache reads and 5-minute and 1-hour cache writes each at their own price', () => {
    const r = rec('claude-haiku-4-5-20251001', {
      input: M,
      output: M,
      cacheRead: M,
      cacheWrite: 3 * M,
      cacheWrite1h: M,
    });
    // 1 + 5 + 0.10 + 2 × 1.25 + 1 × 2
    close(p.costOf(r), 1 + 5 + 0.1 + 2.5 + 2);
    // OpenAI: no cache write price (writes are input), reasoning is part of output.
    close(
      p.costOf(rec('gpt-5-codex', { input: M, cacheRead: M, output: M, reasoning: M / 2 })),
      11.375,
    );
  });

  test('a long-context tier applies to the request whose input crosses it, not to the sum', () => {
    // Claude Sonnet 4.5: above 200k input tokens (cache included), $6 / $22.50.
    const small = rec('claude-sonnet-4-5', { input: 150_000, output: 1000 });
    close(p.costOf(small), 0.45 + 0.015);
    const large = rec('claude-sonnet-4-5', { input: 50_000, cacheRead: 160_000, output: 1000 });
    close(p.costOf(large), 50_000 * 6e-6 + 160_000 * 0.6e-6 + 1000 * 22.5e-6);
    // GPT-5.4: above 271,999 input tokens, every kind of the request at the higher price.
    close(p.costOf(rec('gpt-5.4', { input: 271_999, output: M })), 271_999 * 2.5e-6 + 15);
    close(p.costOf(rec('gpt-5.4', { input: 272_000, output: M })), 272_000 * 5e-6 + 22.5);
  });

  test('a price that changed on a date: each response at the price of its day', () => {
    // Opus 4.6 had a 200k tier until 2026-03-13.
    const big = { input: 250_000, output: 10_000 };
    const before = p.costOf(
      rec('claude-opus-4-6', { ...big, ms: Date.parse('2026-03-01T00:00:00Z') }),
    );
    const after = p.costOf(
      rec('claude-opus-4-6', { ...big, ms: Date.parse('2026-03-20T00:00:00Z') }),
    );
    close(before, 250_000 * 10e-6 + 10_000 * 37.5e-6);
    close(after, 250_000 * 5e-6 + 10_000 * 25e-6);
  });

  test('overrides win over genai-prices and price models it does not know', () => {
    const custom = new Pricing({
      'claude-opus-4-6': { input: 1, output: 2 },
      'claude-opus-9-9': { input: 2, output: 8, cacheRead: 0.5 },
    });
    // Left-out cache prices default to the input price; no tiers.
    close(
      custom.costOf(rec('claude-opus-4-6-20260101', { input: M, cacheWrite: M, output: M })),
      4,
    );
    close(custom.costOf(rec('claude-opus-9-9', { input: M, output: M, cacheRead: M })), 10.5);
    // An override names one model: a longer id of the same family is not covered.
    assert.equal(custom.costOf(rec('claude-opus-9-9-fast', { input: M })), undefined);
    assert.deepEqual(custom.describe('claude-opus-9-9'), { source: 'override' });
    assert.deepEqual(custom.describe('claude-opus-4-5'), {
      source: 'genai-prices',
      matched: 'anthropic/claude-opus-4-5',
    });
  });

  test('<synthetic> costs nothing, even with tokens', () => {
    assert.equal(p.knows('<synthetic>'), true);
    assert.equal(p.costOf(rec('<synthetic>', { input: 10, output: 10 })), 0);
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
          assistant({ id: 'm2', model: 'claude-opus-9-9', usage: usage(0, 10) }),
        ),
      );
      const options = { claudeConfigDirs: [join(dir, 'claude')], codexHome: join(dir, 'none') };
      const told: string[] = [];
      let index = new LocalIndex({ ...options, onUnknownModel: (m) => told.push(m) });
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
      assert.deepEqual(report.unpricedModels, ['claude-opus-9-9']);
      assert.equal(report.byModel['claude-opus-9-9']!.cost, undefined);
      close(report.byModel['claude-sonnet-4-5-20250929']!.cost, 30);
      assert.match(report.prices, /^@pydantic\/genai-prices \d+\.\d+\.\d+$/);
      assert.deepEqual(
        told,
        ['claude-opus-9-9'],
        'logged once, though the rows and report price it again',
      );

      index = new LocalIndex({
        ...options,
        priceOverrides: { 'claude-opus-9-9': { input: 1, output: M } },
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

  test('a local connection logs each model without a price once', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await writeAt(
        join(dir, 'claude', 'projects', '-p', 'S1.jsonl'),
        jsonl(
          prompt('a'),
          assistant({ id: 'm1', model: 'claude-opus-9-9', usage: usage(10, 10), seconds: 5 }),
          assistant({ id: 'm2', model: 'claude-opus-9-9', usage: usage(10, 10), seconds: 6 }),
          assistant({ id: 'm3', usage: usage(10, 10), seconds: 7 }),
        ),
      );
      const warnings: string[] = [];
      const log = { trace() {}, info() {}, error() {}, warn: (m: string) => warnings.push(m) };
      const source = new LocalSource({
        config: { id: 'local', label: 'Local', kind: 'local' },
        claudeConfigDirs: [join(dir, 'claude')],
        codexHome: join(dir, 'none'),
        log,
      });
      await source.listSessions({ limit: 10 });
      const report = await source.usage();
      await source.usage();
      assert.deepEqual(report.unpricedModels, ['claude-opus-9-9']);
      assert.deepEqual(warnings, [
        'Local transcripts: no price for model "claude-opus-9-9" (neither @pydantic/genai-prices nor sessionInspector.local.prices has one): its tokens count, its cost is unknown.',
      ]);
      await source.dispose();
    } finally {
      await cleanup();
    }
  });

  test('responses are priced one by one: two 150k requests are not one 300k request', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await writeAt(
        join(dir, 'claude', 'projects', '-p', 'S1.jsonl'),
        jsonl(
          prompt('a'),
          assistant({ id: 'm1', usage: usage(150_000, 1000), seconds: 5 }),
          assistant({ id: 'm2', usage: usage(150_000, 1000), seconds: 9 }),
        ),
      );
      const index = new LocalIndex({
        claudeConfigDirs: [join(dir, 'claude')],
        codexHome: join(dir, 'none'),
      });
      const snap = await index.refresh();
      const base = 2 * (150_000 * 3e-6 + 1000 * 15e-6);
      close(snap.sessions[0]!.summary.estimatedCost, base);
      close(buildUsageReport(snap, index.pricing).totals.cost, base);
    } finally {
      await cleanup();
    }
  });

  test('a <synthetic> "No response requested." makes no model row and costs nothing', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await writeAt(
        join(dir, 'claude', 'projects', '-p', 'S1.jsonl'),
        jsonl(
          prompt('a'),
          assistant({ id: 'm1', usage: usage(10, M), seconds: 5 }),
          assistant({
            id: 'f04bc820-fc92-4fe4-bc13-c7ebc20d66b3',
            model: '<synthetic>',
            usage: usage(0, 0),
            content: [{ type: 'text', text: 'No response requested.' }],
            stop: 'stop_sequence',
            seconds: 50,
            extra: { isApiErrorMessage: false },
          }),
        ),
      );
      const index = new LocalIndex({
        claudeConfigDirs: [join(dir, 'claude')],
        codexHome: join(dir, 'none'),
      });
      const report = buildUsageReport(await index.refresh(), index.pricing);
      assert.deepEqual(Object.keys(report.byModel), ['claude-sonnet-4-5-20250929']);
      assert.deepEqual(report.unpricedModels, []);
      assert.equal(report.totals.responses, 1);
      close(report.totals.cost, 10 * 3e-6 + 15);
    } finally {
      await cleanup();
    }
  });

  test('a Codex gpt-5.3-codex session has a cost', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const total = { input: 120_000, cached: 100_000, output: 3000, reasoning: 1000 };
      await writeAt(
        join(dir, 'codex', 'sessions', '2026', '07', '01', 'rollout-2026-07-01T10-00-00-a.jsonl'),
        jsonl(
          codexMeta(),
          turnContext('gpt-5.3-codex'),
          codex('event_msg', { type: 'task_started' }, 2),
          tokenCount(total, 5),
        ),
      );
      const index = new LocalIndex({
        claudeConfigDirs: [join(dir, 'none')],
        codexHome: join(dir, 'codex'),
      });
      const report = buildUsageReport(await index.refresh(), index.pricing);
      assert.deepEqual(report.unpricedModels, []);
      close(
        report.byModel['gpt-5.3-codex']!.cost,
        20_000 * 1.75e-6 + 100_000 * 0.175e-6 + 3000 * 14e-6,
      );
    } finally {
      await cleanup();
    }
  });
});

/** Every model id the transcripts name: assistant messages (Claude Code), turn_context (Codex). */
function modelsIn(path: string, into: Set<string>): void {
  for (const name of readdirSync(path)) {
    const full = join(path, name);
    if (statSync(full).isDirectory()) modelsIn(full, into);
    else if (name.endsWith('.jsonl')) {
      for (const line of readFileSync(full, 'utf8').split('\n')) {
        if (!line.includes('"model"')) continue;
        let e: { type?: string; message?: { model?: unknown }; payload?: { model?: unknown } };
        try {
          e = JSON.parse(line) as typeof e;
        } catch {
          continue;
        }
        const model =
          e.type === 'assistant'
            ? e.message?.model
            : e.type === 'turn_context'
              ? e.payload?.model
              : undefined;
        if (typeof model === 'string') into.add(model);
      }
    }
  }
}

describe('the test corpora', () => {
  test('no current Claude or GPT-5 model in them is cost unknown', async () => {
    const models = new Set<string>();
    // The real transcripts (test/fixtures/real, see its SOURCES.md) and the generated corpus.
    modelsIn(join(import.meta.dirname, '..', '..', '..', 'fixtures', 'real'), models);
    const { dir, cleanup } = await tempDir();
    try {
      await writeLocalCorpus(dir, { claudeSessions: 4, codexSessions: 3 });
      modelsIn(dir, models);
    } finally {
      await cleanup();
    }
    const current = [...models].filter((m) => /^(claude-|gpt-5)/.test(m)).sort();
    for (const m of [
      'claude-opus-4-6',
      'gpt-5.3-codex',
      'claude-sonnet-4-5-20250929',
      'gpt-5-codex',
    ]) {
      assert.ok(current.includes(m), `the corpora have ${m}: ${current.join(', ')}`);
    }
    const p = new Pricing();
    assert.deepEqual(
      current.filter((m) => !p.knows(m)),
      [],
    );
  });
});
