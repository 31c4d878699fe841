/**
 * Lines longer than a read (pasted images, long tool output) are put together from the
 * reads in buffers shared by every scanner of the thread: scanners fed in turn, a line at
 * a time across many reads, give the summaries of one read each; a prompt with an image
 * gives its text as the title without the image being decoded; a last line that waits
 * for its end keeps its bytes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ClaudeCodeScanner } from '../../../../../src/sources/local/claudeCodeScan.ts';
import { assistant, jsonl, prompt, toolResult, toolUse, usage } from '../fixtures.ts';

const image = (bytes: number) => ({
  type: 'image',
  source: { type: 'base64', media_type: 'image/png', data: 'iVBOR'.repeat(bytes / 5) },
});

function transcript(n: number): Buffer {
  const lines = [
    prompt('look at this screenshot', 0, {
      message: {
        role: 'user',
        content: [{ type: 'text', text: `screenshot ${n}` }, image(300_000 + n)],
      },
    }),
    assistant({ id: `m${n}`, usage: usage(n, 10 + n), content: [toolUse(`t${n}`, 'Read')] }),
    toolResult(`t${n}`, 5, false, {
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: 'x\\"y'.repeat(90_000) }],
      },
    }),
    assistant({ id: `m${n}b`, usage: usage(1, 7), seconds: 9 }),
  ];
  return Buffer.from(jsonl(...lines));
}

const scanner = (n: number) => new ClaudeCodeScanner(`/p/S${n}.jsonl`, { role: 'session' });

describe('lines longer than a read', () => {
  test('scanners fed in turn, in small and large pieces, equal one read each', () => {
    const files = [1, 2, 3].map(transcript);
    const whole = files.map((bytes, n) => {
      const s = scanner(n);
      s.feed(bytes);
      s.finish();
      return s.summary();
    });
    for (const piece of [7, 4093, 65_536, 250_001]) {
      const scanners = files.map((_, n) => scanner(n));
      const longest = Math.max(...files.map((f) => f.length));
      for (let at = 0; at < longest; at += piece) {
        files.forEach((bytes, n) => {
          if (at < bytes.length) scanners[n]!.feed(bytes.subarray(at, at + piece));
        });
      }
      const summaries = scanners.map((s) => (s.finish(), s.summary()));
      assert.deepEqual(summaries, whole, `pieces of ${piece} bytes`);
    }
    assert.equal(whole[1]!.title, 'screenshot 2');
    assert.equal(whole[2]!.usage.size, 2);
  });

  test('lines after a long line in the read that ends it keep their file offsets', () => {
    // Two prompts, each after long lines: the second pass starts where the last one ended.
    const [first, second] = [transcript(6), transcript(7)];
    const bytes = Buffer.concat([first, second]);
    const replayFrom = (piece: number) => {
      const s = scanner(6);
      s.deferStatus();
      for (let at = 0; at < bytes.length; at += piece) s.feed(bytes.subarray(at, at + piece));
      s.finish();
      return s.statusReplay()?.from;
    };
    const once = replayFrom(bytes.length);
    assert.equal(once, first.length + second.indexOf(0x0a) + 1, 'just past the last prompt');
    for (const piece of [4093, 65_536, 250_001, 700_000]) {
      assert.equal(replayFrom(piece), once, `pieces of ${piece} bytes`);
    }
  });

  test('an unfinished long last line keeps its bytes while another scanner reads', () => {
    const bytes = transcript(4);
    const cut = bytes.length - 1000;
    const a = scanner(4);
    a.feed(bytes.subarray(0, cut));
    a.finish();
    const b = scanner(5);
    b.feed(transcript(5));
    b.finish();
    assert.ok(a.summary().problems.some((p) => p.kind === 'truncated-line'));
    a.feed(bytes.subarray(cut));
    a.finish();
    const once = scanner(4);
    once.feed(bytes);
    once.finish();
    assert.deepEqual(a.summary(), once.summary());
  });
});
