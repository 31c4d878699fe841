/**
 * The usage-report CLI's JSON (scripts/usage-report.ts, run from source): a cost that is
 * unknown (a model without a price) is written as null, not left out, at every level.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { assistant, jsonl, prompt, tempDir, usage, writeAt } from './fixtures.ts';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../../../scripts/usage-report.ts');

describe('usage-report CLI --json', () => {
  test('an unknown cost is null in the totals, days, models and harnesses; a known one a number', async () => {
    const { dir, cleanup } = await tempDir('asi-cli-');
    try {
      const claude = join(dir, 'claude');
      await writeAt(
        join(claude, 'projects', '-home-dev-orbit-api', 'S1.jsonl'),
        jsonl(
          prompt('Hi', 0),
          assistant({ id: 'msg_1', requestId: 'req_1', seconds: 1, usage: usage(10, 20) }),
          assistant({
            id: 'msg_2',
            requestId: 'req_2',
            seconds: 2,
            model: 'mystery-model-x',
            usage: usage(5, 7),
          }),
        ),
      );
      const { stdout } = await run(
        process.execPath,
        [CLI, '--json', '--utc', '--helpers', 'none', '--claude-dir', claude],
        { env: { ...process.env, CODEX_HOME: join(dir, 'no-codex') } },
      );
      const out = JSON.parse(stdout) as {
        totals: { cost: unknown; knownCost: number; outputTokens: number };
        byModel: Record<string, { cost: unknown }>;
        byDay: Record<string, { cost: unknown }>;
        byHarness: Record<string, { totals: { cost: unknown } }>;
      };
      assert.equal(out.totals.outputTokens, 27);
      assert.equal(out.totals.cost, null);
      assert.ok(out.totals.knownCost > 0);
      assert.equal(out.byModel['mystery-model-x']!.cost, null);
      assert.equal(typeof out.byModel['claude-sonnet-4-5-20250929']!.cost, 'number');
      assert.deepEqual(
        Object.values(out.byDay).map((d) => d.cost),
        [null],
      );
      assert.equal(out.byHarness['claude-code']!.totals.cost, null);
    } finally {
      await cleanup();
    }
  });
});
