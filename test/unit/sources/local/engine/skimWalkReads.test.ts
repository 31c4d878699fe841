/**
 * What the WebAssembly kernel reads during a line's walk for the scanners, against the
 * JS reading each scanner does without it:
 * - usage counts (NestedCounts) against skimObject + Fields.numbers, then count():
 *   whatever the kernel reads must be what the JS reads, and every form it does not read
 *   must be left to the JS (`read` false), including lines the JS reads through JSON.parse;
 * - the same for Codex's payload.info.total_token_usage;
 * - the key check (KeyCheck) of toolUseResult for agentId: where the kernel says "no",
 *   the JS finds no agentId either.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SeededRandom } from '../../../../../src/demo/random.ts';
import { USAGE_COUNT_NAMES, USAGE_KEYS } from '../../../../../src/sources/local/claudeCodeScan.ts';
import { TOTAL_COUNT_NAMES, TOTAL_KEYS } from '../../../../../src/sources/local/codexScan.ts';
import {
  Fields,
  hasKeyPattern,
  skimObject,
  type KeyCheck,
  type Nested,
  type NestedCounts,
} from '../../../../../src/domain/json/skim.ts';
import { kernel } from '../../../../../src/domain/json/skimKernel.ts';
import { count } from '../../../../../src/sources/local/text.ts';

/** `text` with one or two random edits: one of `bytes` inserted, or a character dropped. */
function damage(rng: SeededRandom, text: string, bytes: readonly string[]): string {
  let out = text;
  for (let c = rng.int(1, 2); c > 0; c--) {
    const at = rng.int(0, out.length);
    out =
      rng.next() < 0.5
        ? out.slice(0, at) + rng.pick(bytes) + out.slice(at)
        : out.slice(0, at) + out.slice(at + 1);
  }
  return out;
}

/**
 * For 2,000 lines from `next`: wherever the kernel read the numbers itself, they equal
 * the JS reading. Returns how many it read.
 */
function agreeOnDamaged(
  next: () => string,
  fromKernel: (line: string) => number[] | undefined,
  fromJs: (line: string) => number[] | undefined,
): number {
  let read = 0;
  for (let n = 0; n < 2000; n++) {
    const text = next();
    const kernelRead = fromKernel(text);
    if (kernelRead === undefined) continue;
    read++;
    assert.deepEqual(kernelRead, fromJs(text), text);
  }
  return read;
}

/** The kernel's counts for `line` (a Claude line), or undefined when it left them to JS. */
function kernelCounts(line: string): number[] | undefined {
  const counts = skimCounts(line, 'message', USAGE_COUNT_NAMES);
  return counts?.read ? counts.values.slice(0, 5) : undefined;
}

/** A kernel skim of `line` descending into `key`, reading the counts `names`. */
function skimCounts(line: string, key: string, names: readonly string[]): NestedCounts | undefined {
  const k = kernel!;
  const buf = k.load(Buffer.from(line));
  const counts: NestedCounts = { names, read: false, inner: false, values: Array(8).fill(0) };
  const nested: Nested = { key, out: new Fields(), counts };
  return skimObject(buf, 0, buf.length, new Fields(), nested) ? counts : undefined;
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
  if (!r || buf[r[0]] !== 0x7b || !skimObject(buf, r[0], r[1], u) || !u.numbers(USAGE_KEYS, n)) {
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
  '{"input_tokens":0,"output_tokens":false}',
  '{"input\\u005ftokens":5,"output_tokens":0}',
  '{"cache_creation":{"ephemeral_1h_input_tokens":"5"}}',
];

/** Forms left to the JS reading (which may still read them, or turn to JSON.parse). */
const LEFT = [
  '{"input_tokens":1.5}',
  '{"input_tokens":-3}',
  '{"output_tokens":1e3}',
  '{"input_tokens":12a}',
  // No JSON (JSON.parse rejects the line): a leading zero, a literal misspelt.
  '{"input_tokens":007}',
  '{"input_tokens":nul}',
  '{"output_tokens":falsey}',
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
    const read = agreeOnDamaged(
      () => line(damage(rng, READ[rng.int(0, READ.length - 1)]!, bytes)),
      kernelCounts,
      jsCounts,
    );
    assert.ok(read > 500, `the kernel read ${read} of them itself`);
  });
});

/** The kernel's answer for toolUseResult having a top-level agentId key. */
function kernelCheck(line: string): boolean | undefined | 'malformed line' {
  const k = kernel!;
  const buf = k.load(Buffer.from(line));
  const keyCheck: KeyCheck = { field: 'toolUseResult', key: 'agentId', answer: undefined };
  const nested: Nested = { key: 'message', out: new Fields(), keyCheck };
  if (!skimObject(buf, 0, buf.length, new Fields(), nested)) return 'malformed line';
  return keyCheck.answer;
}

/** The agentId the scanner's JS reading finds in the line's last toolUseResult. */
function jsAgentId(line: string): string | undefined {
  const buf = Buffer.from(line);
  const f = new Fields();
  if (!skimObject(buf, 0, buf.length, f)) return undefined;
  const r = f.range('toolUseResult');
  if (!r || buf[r[0]] !== 0x7b) return undefined;
  if (!hasKeyPattern(buf, r[0], r[1], Buffer.from('"agentId"'))) return undefined;
  const inner = new Fields();
  if (!skimObject(buf, r[0], r[1], inner)) return undefined;
  return inner.str('agentId');
}

const result = (toolUseResult: string, before = '') =>
  `{"type":"user",${before}"toolUseResult":${toolUseResult},"message":{"content":[]}}`;

describe('the key check in the kernel walk (toolUseResult.agentId)', () => {
  test('yes, no, and not known, and the JS agrees wherever the kernel says no', () => {
    const cases: [string, boolean | undefined][] = [
      ['{"status":"completed","agentId":"a1","content":[{"type":"text","text":"done"}]}', true],
      ['{"stdout":"agentId","stderr":"","interrupted":false}', false],
      ['{"file":{"agentId":"deeper"},"x":"\\"agentId\\""}', false],
      ['{}', false],
      ['"agentId"', false],
      ['null', false],
      ['[{"agentId":"a"}]', false],
      ['{"agent\\u0049d":"a2"}', false],
      [' { "agentId" : "a3" } ', true],
      ['{"a" 1,"agentId":"a4"}', undefined],
    ];
    for (const [value, expected] of cases) {
      const text = result(value);
      assert.equal(kernelCheck(text), expected, value);
      if (expected === false) assert.equal(jsAgentId(text), undefined, value);
      if (expected === true) assert.ok(jsAgentId(text), value);
    }
    assert.equal(kernelCheck('{"type":"user","message":{"content":[]}}'), false, 'absent');
  });

  test('the last toolUseResult counts', () => {
    const lastHas = result('{"agentId":"b"}', '"toolUseResult":{"x":1},');
    const lastHasNot = result('{"x":1}', '"toolUseResult":{"agentId":"b"},');
    assert.equal(kernelCheck(lastHas), true);
    assert.equal(jsAgentId(lastHas), 'b');
    assert.equal(kernelCheck(lastHasNot), false);
    assert.equal(jsAgentId(lastHasNot), undefined);
  });

  test('2,000 randomly damaged results: where the kernel says no, the JS finds none', () => {
    const rng = new SeededRandom(13);
    const bytes = ['"', '\\', '{', '}', ',', ':', ' ', 'a', 'I', 'd'];
    const bases = [
      '{"status":"completed","agentId":"a1","content":[{"type":"text","text":"x"}]}',
      '{"stdout":"agentId","agentId":"a","stderr":""}',
    ];
    let no = 0;
    for (let n = 0; n < 2000; n++) {
      const value = damage(rng, bases[rng.int(0, bases.length - 1)]!, bytes);
      const text = result(value);
      if (kernelCheck(text) !== false) continue;
      no++;
      assert.equal(jsAgentId(text), undefined, value);
    }
    assert.ok(no > 200, `the kernel ruled out ${no} of them`);
  });
});

/** The Codex totals the kernel read with the line (only when it met total_token_usage). */
function kernelTotals(line: string): number[] | undefined {
  const counts = skimCounts(line, 'payload', TOTAL_COUNT_NAMES);
  return counts?.read && counts.inner ? counts.values.slice(4).map(count) : undefined;
}

/** The Codex scanner's JS reading of payload.info.total_token_usage, off the kernel. */
function jsTotals(line: string): number[] | undefined {
  const buf = Buffer.from(line);
  const p = new Fields();
  if (!skimObject(buf, 0, buf.length, new Fields(), { key: 'payload', out: p }) || !p.ok) {
    return undefined;
  }
  const i = p.range('info');
  const info = new Fields();
  if (!i || buf[i[0]] !== 0x7b || !skimObject(buf, i[0], i[1], info)) return undefined;
  const r = info.range('total_token_usage');
  const total = new Fields();
  const n: (number | undefined)[] = [];
  if (!r || buf[r[0]] !== 0x7b) return undefined;
  if (!skimObject(buf, r[0], r[1], total) || !total.numbers(TOTAL_KEYS, n)) return undefined;
  return n.map(count);
}

const tokenCount = (info: string) =>
  `{"timestamp":"2026-01-01T00:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":${info},"rate_limits":{"primary":{"used_percent":1.5}}}}`;

describe('Codex token totals read in the kernel walk', () => {
  test('total_token_usage read with the line equals the JS reading; other shapes left to JS', () => {
    const read = [
      '{"total_token_usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":3,"reasoning_output_tokens":1,"total_tokens":14},"last_token_usage":{"input_tokens":2},"model_context_window":272000}',
      '{"total_token_usage":{"input_tokens":10}}',
      '{"total_token_usage":{},"total_token_usage":{"output_tokens":7,"output_tokens":9}}',
      '{"total_token_usage":{"input_tokens":null,"output_tokens":"3"}}',
    ];
    for (const info of read) {
      const text = tokenCount(info);
      assert.ok(kernelTotals(text), `the kernel reads ${info}`);
      assert.deepEqual(kernelTotals(text), jsTotals(text), info);
    }
    const left = [
      'null',
      '{}',
      '{"total_token_usage":null}',
      '{"total_token_usage":{"input_tokens":1.5}}',
      '{"total_token_usage":{"input_tokens":-1}}',
      '{"total_token_usage":{"input_tokens":0100}}',
      '{"total_token_usage":{"output_tokens":tru}}',
      '{"total_token_usage":{"input_tokens" 1}}',
      '{"total_token_usage":{"input_tokens":1},"total_token_usage":null}',
    ];
    for (const info of left) {
      assert.equal(kernelTotals(tokenCount(info)), undefined, `left to JS: ${info}`);
    }
  });

  test('2,000 randomly damaged token counts: the kernel never disagrees with the JS', () => {
    const rng = new SeededRandom(17);
    const bytes = ['"', '\\', '{', '}', ',', ':', ' ', '1', '0', '-', '.', 'n'];
    const base =
      '{"total_token_usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":3,"reasoning_output_tokens":1},"last_token_usage":{"input_tokens":2}}';
    const read = agreeOnDamaged(() => tokenCount(damage(rng, base, bytes)), kernelTotals, jsTotals);
    assert.ok(read > 500, `the kernel read ${read} of them itself`);
  });
});
