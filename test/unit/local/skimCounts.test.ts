/**
 * Usage counts read by the WebAssembly kernel during a line's walk (NestedCounts) against
 * the JS reading the Claude scanner does without it (skimObject + Fields.numbers, then
 * count()): whatever the kernel reads must be what the JS reads, and every form it does
 * not read must be left to the JS (`read` false), including lines the JS reads through
 * JSON.parse.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SeededRandom } from '../../../src/demo/random.ts';
import {
  Fields,
  skimObject,
  type Nested,
  type NestedCounts,
} from '../../../src/sources/local/jsonSkim.ts';
import { kernel } from '../../../src/sources/local/skimKernel.ts';
import { count } from '../../../src/sources/local/text.ts';

const NUMBER_KEYS = [
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens',
] as const;
const NAMES = ['usage', ...NUMBER_KEYS, 'cache_creation', 'ephemeral_1h_input_tokens'];

/** The kernel's counts for `line` (a Claude line), or undefined when it left them to JS. */
function kernelCounts(line: string): number[] | undefined {
  const k = kernel!;
  const buf = k.load(Buffer.from(line));
  const counts: NestedCounts = { names: NAMES, read: false, values: [0, 0, 0, 0, 0] };
  const nested: Nested = { key: 'message', out: new Fields(), counts };
  if (!skimObject(buf, 0, buf.length, new Fields(), nested)) return undefined;
  return counts.read ? [...counts.values] : undefined;
}

/**
 * What the scanner's JS reading gives for the line's last message.usage, off the
 * kernel's memory: undefined where it turns to JSON.parse (no usage object, a number it
 * does not read from bytes, a malformed value).
 */
function jsCounts(line: string): number[] | undefined {
  const buf = Buffer.from(line); // not the kernel's buffer: the JS walk
  const m = new Fields();
  if (!skimObject(buf, 0, buf.length, new Fields(), { key: 'message', out: m }) || !m.ok) {
    return undefined;
  }
  const r = m.range('usage');
  const u = new Fields();
  const n: (number | undefined)[] = [];
  if (!r || buf[r[0]] !== 0x7b || !skimObject(buf, r[0], r[1], u) || !u.numbers(NUMBER_KEYS, n)) {
    return undefined;
  }
  let oneHour: number | undefined;
  const c = u.range('cache_creation');
  const cf = new Fields();
  if (c && buf[c[0]] === 0x7b && skimObject(buf, c[0], c[1], cf)) {
    oneHour = cf.num('ephemeral_1h_input_tokens');
    if (Number.isNaN(oneHour)) return undefined;
  }
  return [...n.map(count), count(oneHour)];
}

const line = (usage: string, before = '') =>
  `{"type":"assistant","message":{"id":"m",${before}"usage":${usage},"content":[]},"requestId":"r"}`;

/** Usage objects the kernel reads itself. */
const READ = [
  '{"input_tokens":3,"output_tokens":5,"cache_read_input_tokens":7,"cache_creation_input_tokens":11,"cache_creation":{"ephemeral_5m_input_tokens":2,"ephemeral_1h_input_tokens":9},"service_tier":"standard","server_tool_use":{"web_search_requests":0}}',
  '{"input_tokens":3}',
  '{}',
  '{"input_tokens":null,"output_tokens":"12","cache_read_input_tokens":true,"cache_creation_input_tokens":{"a":[1]}}',
  '{"input_tokens":1,"output_tokens":4,"input_tokens":2}',
  '{"cache_creation":null,"output_tokens":8}',
  '{"cache_creation":{"ephemeral_1h_input_tokens":6},"cache_creation":null}',
  '{"cache_creation":null,"cache_creation":{"ephemeral_1h_input_tokens":6}}',
  '{"cache_creation":{"ephemeral_1h_input_tokens":6,"ephemeral_1h_input_tokens":4}}',
  ' { "input_tokens" : 3 , "cache_creation" : { "ephemeral_1h_input_tokens" : 4 } } ',
  '{"input_tokens":123456789012345678901234567890}',
  '{"input_tokens":007}',
  '{"input\\u005ftokens":5,"output_tokens":0}',
  '{"cache_creation":{"ephemeral_1h_input_tokens":"5"}}',
];

/** Forms left to the JS reading (which may still read them, or turn to JSON.parse). */
const LEFT = [
  '{"input_tokens":1.5}',
  '{"input_tokens":-3}',
  '{"output_tokens":1e3}',
  '{"input_tokens":12a}',
  '{"cache_creation":{"ephemeral_1h_input_tokens":-1}}',
  '{"cache_creation":{"ephemeral_1h_input_tokens":2.5}}',
  '{"cache_creation":{"a" 1}}',
  '{"input_tokens" 1}',
  'null',
  '[1]',
  '"usage"',
];

describe('usage counts read in the kernel walk', () => {
  test('what the kernel reads equals the JS reading; other forms are left to JS', () => {
    for (const usage of READ) {
      const text = line(usage);
      const fromKernel = kernelCounts(text);
      assert.ok(fromKernel, `the kernel reads ${usage}`);
      assert.deepEqual(fromKernel, jsCounts(text), usage);
    }
    for (const usage of LEFT) {
      assert.equal(kernelCounts(line(usage)), undefined, `left to JS: ${usage}`);
    }
  });

  test('the last usage of the last message counts; none, none read', () => {
    const two = line('{"input_tokens":2}', '"usage":{"input_tokens":1},');
    assert.deepEqual(kernelCounts(two), [2, 0, 0, 0, 0]);
    assert.deepEqual(kernelCounts(two), jsCounts(two));
    const afterNull = line('{"input_tokens":2}', '"usage":null,');
    assert.deepEqual(kernelCounts(afterNull), [2, 0, 0, 0, 0]);
    assert.deepEqual(kernelCounts(afterNull), jsCounts(afterNull));
    assert.equal(kernelCounts(line('null', '"usage":{"input_tokens":1},')), undefined);
    const noUsage = '{"type":"assistant","message":{"id":"m","content":[]}}';
    assert.equal(kernelCounts(noUsage), undefined);
    // A second message without usage: the first one's counts must not be taken.
    const twoMessages =
      '{"message":{"usage":{"input_tokens":1}},"message":{"id":"m2","content":[]}}';
    assert.equal(kernelCounts(twoMessages), undefined);
    assert.equal(jsCounts(twoMessages), undefined);
  });

  test('2,000 randomly damaged usage objects: the kernel never disagrees with the JS', () => {
    const rng = new SeededRandom(11);
    const bytes = ['"', '\\', '{', '}', ',', ':', ' ', '1', '0', '-', '.', 'e', 'n'];
    let read = 0;
    for (let n = 0; n < 2000; n++) {
      let usage = READ[rng.int(0, READ.length - 1)]!;
      for (let c = rng.int(1, 2); c > 0; c--) {
        const at = rng.int(0, usage.length);
        usage =
          rng.next() < 0.5
            ? usage.slice(0, at) + rng.pick(bytes) + usage.slice(at)
            : usage.slice(0, at) + usage.slice(at + 1);
      }
      const text = line(usage);
      const fromKernel = kernelCounts(text);
      if (fromKernel === undefined) continue;
      read++;
      assert.deepEqual(fromKernel, jsCounts(text), usage);
    }
    assert.ok(read > 500, `the kernel read ${read} of them itself`);
  });
});
