/**
 * Reads straight into the skim kernel's memory (LineScanner.readArea): bytes read there
 * and fed are skimmed where they lie, with the unfinished line of the last read copied in
 * front of them. Whatever the cuts between reads, the summaries, problems and line
 * offsets are those of feeding copies; the bytes read stay as read after the feed; an
 * area written over before its feed throws rather than scanning other bytes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { SeededRandom } from '../../../../../src/demo/random.ts';
import { KERNEL_MAX_BYTES, kernel } from '../../../../../src/domain/json/skimKernel.ts';
import { ClaudeCodeScanner } from '../../../../../src/sources/local/claudeCodeScan.ts';
import { CodexScanner } from '../../../../../src/sources/local/codexScan.ts';
import {
  assistant,
  codexMeta,
  jsonl,
  prompt,
  toolResult,
  toolUse,
  tokenCount,
  turnContext,
  usage,
} from '../fixtures.ts';

type Scanner = ClaudeCodeScanner | CodexScanner;
type Make = () => Scanner;

const claude: Make = () => new ClaudeCodeScanner('/t/S1.jsonl', { role: 'session' });
const codex: Make = () => new CodexScanner('/t/rollout.jsonl');

/** Where a piece is read: into the scanner's area when it gives one, or a buffer of its own. */
type Target = 'area' | 'copy' | 'kernel-elsewhere';

interface Outcome {
  summary: unknown;
  replayFrom: number | undefined;
  /** Per read, whether it went into the kernel's memory. */
  inArea: boolean[];
}

/**
 * Feeds `bytes` cut at `cuts` (ascending offsets), each piece read as `target` says, with
 * the status left to a second pass (so the line offsets show in `replayFrom`).
 */
function scan(make: Make, bytes: Buffer, cuts: readonly number[], target: Target): Outcome {
  const s = make();
  s.deferStatus();
  const inArea: boolean[] = [];
  let from = 0;
  for (const to of [...cuts, bytes.length]) {
    if (to <= from) continue;
    const piece = bytes.subarray(from, to);
    if (target === 'copy') s.feed(Buffer.from(piece));
    else if (target === 'kernel-elsewhere') s.feed(kernel!.load(piece));
    else {
      const area = s.readArea(piece.length);
      const buf = area ?? Buffer.allocUnsafe(piece.length);
      piece.copy(buf);
      inArea.push(area !== undefined);
      s.feed(buf);
      // The caller may still read what it read (the tail ScanCache keeps).
      assert.ok(buf.equals(piece), `the bytes read at ${from} were written over by their feed`);
    }
    from = to;
  }
  s.finish();
  return { summary: s.summary(), replayFrom: s.statusReplay()?.from, inArea };
}

function same(
  make: Make,
  bytes: Buffer,
  cuts: readonly number[],
  target: Target = 'area',
): Outcome {
  const expected = scan(make, bytes, cuts, 'copy');
  const got = scan(make, bytes, cuts, target);
  assert.deepEqual(
    { summary: got.summary, replayFrom: got.replayFrom },
    { summary: expected.summary, replayFrom: expected.replayFrom },
    `cut at ${cuts.join(', ')} (${target})`,
  );
  return got;
}

function claudeText(): Buffer {
  return Buffer.from(
    jsonl(
      prompt('fix the "parser" \\ now é', 0),
      assistant({ id: 'm1', usage: usage(10, 20, 3, 4), content: [toolUse('t1', 'Read')] }),
      toolResult('t1', 5),
      '   ',
      '{"type":"assistant","broken":',
      assistant({ id: 'm2', usage: usage(1, 7), seconds: 9 }),
      '{\n  "type": "summary",\n  "summary": "pretty"\n}',
      prompt('second \\uD83D\\uDE00 prompt', 12),
      assistant({ id: 'm3', usage: usage(5, 6), seconds: 14 }),
    ) + '{"type":"user","message":{"role":"user","content":"no newline at the end"}}',
  );
}

function codexText(): Buffer {
  const t = (n: number) => ({ input: n, cached: 1, output: 2 * n, reasoning: 0 });
  return Buffer.from(
    jsonl(
      codexMeta(),
      turnContext('gpt-5-codex'),
      tokenCount(t(10), 2),
      '{"timestamp":"x","type":"event_msg","payload":',
      tokenCount(t(30), 4, t(20)),
      turnContext('gpt-5.1-codex', 5),
      tokenCount(t(50), 6, t(20)),
    ),
  );
}

const real = (path: string) =>
  readFileSync(new URL(`../../../../fixtures/real/${path}`, import.meta.url));

describe('reads into the kernel (readArea)', () => {
  test('the kernel loads here, and an area is given', () => {
    assert.ok(kernel);
    assert.ok(claude().readArea(1024));
  });

  for (const [name, make, text] of [
    ['Claude Code', claude, claudeText],
    ['Codex', codex, codexText],
  ] as const) {
    test(`${name}: a file cut in two at every position, then in three, scans as copies do`, () => {
      const bytes = text();
      for (let cut = 0; cut <= bytes.length; cut++) {
        assert.ok(
          !same(make, bytes, [cut]).inArea.includes(false),
          'the reads went into the kernel',
        );
      }
      const rng = new SeededRandom(3);
      for (let round = 0; round < 300; round++) {
        const a = rng.int(0, bytes.length);
        same(make, bytes, [a, rng.int(a, bytes.length)]);
      }
    });

    test(`${name}: reads shorter than a line, several cut lines in a row`, () => {
      const bytes = text();
      for (const piece of [1, 2, 7, 16, 17, 100, 333]) {
        const cuts: number[] = [];
        for (let at = piece; at < bytes.length; at += piece) cuts.push(at);
        const { inArea } = same(make, bytes, cuts);
        assert.deepEqual(inArea, Array(cuts.length + 1).fill(true), `pieces of ${piece}`);
      }
    });
  }

  test('real transcripts in random reads: as copies, also fed from elsewhere in the kernel', () => {
    const rng = new SeededRandom(8);
    const files: [Make, Buffer][] = [
      [claude, real('claude/entire-checkpoints/b1/5d3b4e29e9/0/full.jsonl')],
      [claude, real('claude/spotter/transcripts/subagent.jsonl')],
      [
        codex,
        real(
          'codex/localpush/sessions/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
        ),
      ],
    ];
    for (const [make, bytes] of files) {
      for (const mean of [200, 5000, 70_000]) {
        const cuts: number[] = [];
        for (let at = rng.int(1, mean); at < bytes.length; at += rng.int(1, 2 * mean))
          cuts.push(at);
        same(make, bytes, cuts);
        same(make, bytes, cuts, 'kernel-elsewhere');
      }
    }
  });

  test('a line longer than the kernel holds: read beside it, then in the area again', () => {
    const long = prompt('long', 1, {
      message: {
        role: 'user',
        content: [{ type: 'text', text: 'wxyz'.repeat(KERNEL_MAX_BYTES / 4) }],
      },
    });
    const after = Array.from({ length: 8000 }, (_, i) =>
      assistant({ id: `m${i}`, usage: usage(3, i), seconds: 2 + i }),
    );
    const bytes = Buffer.from(jsonl(prompt('first', 0), long, ...after));
    assert.ok(bytes.length > KERNEL_MAX_BYTES + (1 << 20));
    const cuts: number[] = [];
    for (let at = 1 << 20; at < bytes.length; at += 1 << 20) cuts.push(at + 5);
    const { inArea, summary } = same(claude, bytes, cuts);
    // In the area while the line fits beside it, not while it is over the kernel's size.
    assert.equal(inArea[0], true);
    assert.ok(inArea.includes(false), 'a read went beside the kernel');
    assert.equal(inArea.at(-1), true);
    assert.equal((summary as ReturnType<Scanner['summary']>).usage.size, 8000);
  });

  test('an area loaded over before its feed throws; another view of the kernel is copied first', () => {
    const bytes = claudeText();
    const a = claude();
    const area = a.readArea(bytes.length)!;
    bytes.copy(area);
    claude().feed(Buffer.from('{"type":"user"}\n'));
    assert.throws(() => a.feed(area), /loaded over/);

    // The area another scanner was given (its room differs): read as a copy.
    const b = claude();
    b.feed(bytes.subarray(0, 10));
    const other = claude().readArea(bytes.length - 10)!;
    bytes.copy(other, 0, 10);
    b.feed(other);
    b.finish();
    const once = claude();
    once.feed(bytes);
    once.finish();
    assert.deepEqual(b.summary(), once.summary());
  });
});
