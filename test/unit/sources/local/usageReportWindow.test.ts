/**
 * The usage report's days, its `since` window and its per-bucket session counts, over the
 * generated corpus (against the reference computation) and over small hand-written files.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LocalIndex } from '../../../../src/sources/local/localIndex.ts';
import { buildUsageReport } from '../../../../src/sources/local/usageReport.ts';
import {
  expectedTokens,
  reportTokens,
  writeLocalCorpus,
  type ExpectedTotals,
  type LocalCorpus,
} from '../../../support/localCorpus.ts';
import { assistant, jsonl, prompt, tempDir, usage, writeAt } from './fixtures.ts';

const utcDay = (ms: number) =>
  Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 10) : 'unknown';

describe('usage report over the corpus', () => {
  let corpus: LocalCorpus;
  let cleanup: () => Promise<void>;
  let index: LocalIndex;
  before(async () => {
    const t = await tempDir('asi-report-corpus-');
    cleanup = t.cleanup;
    corpus = await writeLocalCorpus(t.dir, { claudeSessions: 5, codexSessions: 4 });
    index = new LocalIndex({ claudeConfigDirs: [corpus.claudeDir], codexHome: corpus.codexDir });
  });
  after(() => cleanup());

  test('by UTC day, the days equal the reference computation', async () => {
    const report = buildUsageReport(await index.refresh(), index.pricing, { dayOf: utcDay });
    assert.deepEqual(Object.keys(report.byDay).sort(), Object.keys(corpus.expected.byDay).sort());
    for (const [day, expected] of Object.entries(corpus.expected.byDay)) {
      assert.deepEqual(reportTokens(report.byDay[day]!), expectedTokens(expected), day);
    }
  });

  test('`since` keeps the responses of that day and later, in every breakdown', async () => {
    const snapshot = await index.refresh();
    const days = Object.keys(corpus.expected.byDay).sort();
    assert.ok(days.length >= 3, `the corpus spans days: ${days.join(', ')}`);
    const since = days[Math.floor(days.length / 2)]!;
    const all = buildUsageReport(snapshot, index.pricing, { dayOf: utcDay });
    const part = buildUsageReport(snapshot, index.pricing, { dayOf: utcDay, since });
    assert.equal(part.since, since);
    assert.deepEqual(
      Object.keys(part.byDay).sort(),
      days.filter((d) => d >= since),
    );
    const kept = days.filter((d) => d >= since).map((d) => corpus.expected.byDay[d]!);
    const sum = (f: (t: ExpectedTotals) => number) => kept.reduce((n, t) => n + f(t), 0);
    assert.equal(
      part.totals.inputTokens,
      sum((t) => t.input),
    );
    assert.equal(
      part.totals.outputTokens,
      sum((t) => t.output),
    );
    assert.equal(
      part.totals.responses,
      sum((t) => t.responses),
    );
    for (const breakdown of [part.byModel, part.byHarness, part.byProject]) {
      const rows = Object.values(breakdown);
      assert.equal(
        rows.reduce((n, t) => n + t.outputTokens, 0),
        part.totals.outputTokens,
      );
    }
    assert.ok(
      part.sessions > 0 && part.sessions < all.sessions,
      `${part.sessions} of ${all.sessions}`,
    );
    assert.ok(part.totals.knownCost < all.totals.knownCost);
  });

  test('each bucket counts the sessions that have a response in it', async () => {
    const snapshot = await index.refresh();
    const report = buildUsageReport(snapshot, index.pricing, { dayOf: utcDay });
    const withTokens = snapshot.sessions.filter((s) => s.records.length > 0);
    assert.equal(report.sessions, withTokens.length);
    assert.equal(report.totals.sessions, withTokens.length);
    for (const [harness, t] of Object.entries(report.byHarness)) {
      assert.equal(t.sessions, withTokens.filter((s) => s.harness === harness).length, harness);
    }
    for (const [model, t] of Object.entries(report.byModel)) {
      const using = withTokens.filter((s) =>
        s.records.some((r) => (r.model ?? 'unknown') === model),
      );
      assert.equal(t.sessions, using.length, model);
    }
    assert.equal(report.totals.unpricedSessions, 0, 'every corpus model is priced');
  });
});

describe('usage report windows and unpriced sessions', () => {
  test('an unpriced model: counted sessions, no cost, and responses before `since` left out', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const project = join(dir, 'claude', 'projects', '-p');
      // Day 1 (2026-07-01): a priced response. Day 2: one priced and one unpriced.
      await writeAt(
        join(project, 'a.jsonl'),
        jsonl(
          prompt('a'),
          assistant({ id: 'm1', usage: usage(0, 1_000_000) }),
          assistant({ id: 'm2', usage: usage(0, 10), seconds: 86_400 }),
          assistant({
            id: 'm3',
            model: 'claude-experimental-9',
            usage: usage(0, 7),
            seconds: 86_401,
          }),
        ),
      );
      const index = new LocalIndex({
        claudeConfigDirs: [join(dir, 'claude')],
        codexHome: join(dir, 'none'),
      });
      const snapshot = await index.refresh();
      const all = buildUsageReport(snapshot, index.pricing, { dayOf: utcDay });
      assert.deepEqual(Object.keys(all.byDay).sort(), ['2026-07-01', '2026-07-02']);
      assert.equal(all.byDay['2026-07-01']!.unpricedSessions, 0);
      assert.equal(all.byDay['2026-07-02']!.unpricedSessions, 1);
      assert.equal(all.byDay['2026-07-02']!.sessions, 1, 'one session, two responses');
      assert.equal(all.byDay['2026-07-02']!.responses, 2);
      assert.equal(all.byDay['2026-07-01']!.cost, 15);
      assert.equal(all.byDay['2026-07-02']!.cost, undefined);
      assert.deepEqual(all.unpricedModels, ['claude-experimental-9']);

      const late = buildUsageReport(snapshot, index.pricing, {
        dayOf: utcDay,
        since: '2026-07-02',
      });
      assert.deepEqual(Object.keys(late.byDay), ['2026-07-02']);
      assert.equal(late.totals.outputTokens, 17);
      assert.equal(late.totals.cost, undefined);
      assert.ok(Math.abs(late.totals.knownCost - 10 * 15e-6) < 1e-12);

      const none = buildUsageReport(snapshot, index.pricing, {
        dayOf: utcDay,
        since: '2026-08-01',
      });
      assert.equal(none.sessions, 0);
      assert.equal(none.totals.responses, 0);
      assert.deepEqual(none.unpricedModels, []);
    } finally {
      await cleanup();
    }
  });
});
