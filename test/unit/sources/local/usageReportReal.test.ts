/**
 * The usage-report CLI's counting paths on the real published transcripts
 * (test/fixtures/real, laid out as Claude Code and Codex write them; see
 * test/unit/conformance/realFiles.ts): the one-shot index the CLI builds, and the CLI
 * itself run from source, count what the extension's index counts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { LocalIndex, type LocalSnapshot } from '../../../../src/sources/local/localIndex.ts';
import { ScanCache } from '../../../../src/sources/local/scanCache.ts';
import {
  buildUsageReport,
  utcDay,
  type UsageReport,
} from '../../../../src/sources/local/usageReport.ts';
import { CASES, layOut, REAL } from '../../conformance/realFiles.ts';
import { tempDir } from './fixtures.ts';
import { shown } from './shownRows.ts';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../../../scripts/usage-report.ts');

/** The index scripts/usage-report.ts builds with `--helpers none`. */
function cliIndex(claude: string, codex: string): LocalIndex {
  return new LocalIndex({
    claudeConfigDirs: [claude],
    codexHome: codex,
    cache: new ScanCache({ workers: 0, blockingReads: true, status: false, readOnce: true }),
    blockingReads: true,
    oneShot: true,
  });
}

/** A value as JSON gives it back, an undefined property (an unknown cost) as null. */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (v === undefined ? null : v)));
}

/** The parts of the CLI's `--json` output that are the report's counts, as it writes them. */
function cliCounts(r: UsageReport): unknown {
  const byHarness = Object.fromEntries(
    Object.keys(r.byHarness).map((h) => [h, { totals: r.byHarness[h], ...r.harnesses[h] }]),
  );
  return asJson({
    files: r.files,
    sessions: r.sessions,
    sessionsWithoutTokenInfo: r.sessionsWithoutTokenInfo,
    totals: r.totals,
    byDay: r.byDay,
    byModel: r.byModel,
    byDayModel: r.byDayModel,
    byProject: r.byProject,
    byHarness,
    unpricedModels: r.unpricedModels,
  });
}

describe('usage report on the real transcripts', () => {
  let claude = '';
  let codex = '';
  let cleanup = async () => {};
  let normal: LocalIndex;
  let expected: LocalSnapshot;
  let report: UsageReport;

  before(async () => {
    const temp = await tempDir('asi-real-usage-');
    cleanup = temp.cleanup;
    claude = join(temp.dir, 'claude');
    codex = join(temp.dir, 'codex');
    for (const c of CASES) await layOut(c, c.harness === 'codex' ? codex : claude);
    // The extension's index: statuses wanted, rows kept for the next refresh.
    normal = new LocalIndex({ claudeConfigDirs: [claude], codexHome: codex });
    expected = await normal.refresh();
    report = buildUsageReport(expected, normal.pricing, { dayOf: utcDay });
  });
  after(() => cleanup());

  test('every real transcript is laid out, found and counted', async () => {
    const real = (await readdir(REAL, { recursive: true })).filter((p) => p.endsWith('.jsonl'));
    const laidOut = CASES.flatMap((c) => c.files.map((f) => f.fixture));
    assert.deepEqual([...laidOut].sort(), [...real].sort(), 'the cases are the real files');
    assert.equal(expected.files.length, real.length, 'the discovery finds every copy');
    assert.equal(expected.sessions.length, real.length, 'one row per file');
    assert.deepEqual(expected.problems, []);
    for (const harness of ['claude-code', 'codex']) {
      const t = report.byHarness[harness];
      assert.ok(t && t.inputTokens > 0 && t.outputTokens > 0, `${harness} tokens counted`);
      assert.ok(t.knownCost > 0, `${harness} cost counted`);
    }
    // Every row counts but the summary-only file, which has no response.
    const silent = expected.sessions.filter((s) => s.records.length === 0);
    assert.deepEqual(
      silent.map((s) => basename(s.summary.id)),
      ['ff71dbed-a4f2-4284-a4fc-fe2fb90de929.jsonl'],
    );
    assert.equal(report.sessions, expected.sessions.length - silent.length);
  });

  test("the CLI's one-shot index gives the extension's report and rows", async () => {
    const once = cliIndex(claude, codex);
    const got = await once.refresh();
    // A usage-only read (ClaudeCodeScanner's usageEntry) reads no prompt, title, branch or
    // status: the rest of every row must agree.
    const unread = ['label', 'branch', 'status'] as const;
    assert.deepEqual(shown(got, once, unread), shown(expected, normal, unread));
  });

  test("the CLI's JSON (--utc --helpers none) has the extension's totals, days, models and harnesses", async () => {
    const { stdout } = await run(
      process.execPath,
      [CLI, '--json', '--utc', '--helpers', 'none', '--claude-dir', claude],
      { env: { ...process.env, CODEX_HOME: codex } },
    );
    const out = JSON.parse(stdout) as Record<string, unknown>;
    const keys = Object.keys(cliCounts(report) as object);
    const counts = Object.fromEntries(keys.map((k) => [k, out[k]]));
    assert.deepEqual(counts, cliCounts(report));
  });
});
