/**
 * Every producer of usage records gives them the same keys in the same order (what one
 * object shape for V8 needs; see usageRecord.ts): the scanners' records, read by the kernel
 * or through JSON.parse, agent_progress copies, Codex deltas, a worker's unpacked records
 * and the aggregation's merged copies.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { aggregate } from '../../../../src/sources/local/aggregate.ts';
import type { DiscoveredFile } from '../../../../src/sources/local/discovery.ts';
import { DEFAULT_STATUS_THRESHOLDS } from '../../../../src/sources/local/localStatus.ts';
import { packUsage, unpackUsage } from '../../../../src/sources/local/engine/packedUsage.ts';
import { Pricing } from '../../../../src/sources/local/pricing.ts';
import type { UsageRecord } from '../../../../src/sources/local/types.ts';
import { copyUsage, usageRecord } from '../../../../src/sources/local/usageRecord.ts';
import {
  assistant,
  codexMeta,
  jsonl,
  progressCopy,
  prompt,
  scanClaude,
  scanCodex,
  tokenCount,
  turnContext,
  usage,
} from './fixtures.ts';

const KEYS = Object.keys(usageRecord(undefined, 0, 0, 0, 0, 0, 0, 0));

function assertOneShape(records: Iterable<UsageRecord>, what: string): number {
  let n = 0;
  for (const r of records) {
    assert.deepEqual(Object.keys(r), KEYS, what);
    n++;
  }
  return n;
}

describe('usage records have one shape', () => {
  const subagentLine = assistant({ id: 'msg_sub', usage: usage(1, 2), seconds: 3 });
  const claude = scanClaude(
    jsonl(
      prompt('Fix it'),
      assistant({ id: 'msg_1', usage: usage(3, 5, 100, 10), seconds: 1 }),
      // A usage object of a form the skim leaves to JSON.parse (a count as a string).
      assistant({ id: 'msg_2', usage: { input_tokens: '7', output_tokens: 1 }, seconds: 2 }),
      progressCopy('a1', subagentLine, 4),
    ),
  );
  const codex = scanCodex(
    jsonl(
      codexMeta(),
      turnContext('gpt-5-codex'),
      tokenCount({ input: 10, cached: 2, output: 3, reasoning: 1 }, 2),
      tokenCount({ input: 30, cached: 4, output: 9, reasoning: 2 }, 3),
    ),
  );

  test('from the scanners, kernel and JSON.parse readings, copies and Codex deltas', () => {
    assert.equal(assertOneShape(claude.usage.values(), 'Claude Code'), 2);
    assert.equal(assertOneShape(claude.copies.values(), 'agent_progress copy'), 1);
    assert.equal([...claude.copies.values()][0]!.agentId, 'a1');
    assert.equal(assertOneShape(codex.usage.values(), 'Codex'), 2);
  });

  test("from a worker's packed results and the aggregation's merged copies", () => {
    assertOneShape(unpackUsage(packUsage(claude.usage)).values(), 'unpacked');
    assertOneShape(unpackUsage(packUsage(claude.copies)).values(), 'unpacked copy');
    const r = [...claude.usage.values()][0]!;
    assertOneShape([copyUsage(r)], 'copied');
    // Two files with the same response: the aggregation merges them into a copy.
    const file = (path: string): DiscoveredFile => ({
      path,
      harness: 'claude-code',
      role: 'session',
      size: 1,
      mtimeMs: 0,
      ino: 0,
      dev: 0,
      root: '/t',
    });
    const sessions = aggregate({
      connectionId: 'local',
      files: [file('/t/A.jsonl'), file('/t/B.jsonl')],
      summaries: [claude, claude],
      metas: new Map(),
      now: Date.now(),
      pricing: new Pricing(),
      thresholds: DEFAULT_STATUS_THRESHOLDS,
    });
    const records = sessions.flatMap((s) => s.records);
    assert.equal(assertOneShape(records, 'aggregated'), 3, 'two responses and the copy, once');
  });
});
