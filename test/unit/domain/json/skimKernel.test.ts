/**
 * The WebAssembly skim (skimKernel.wat) against the JS skim it stands in for: the same
 * fields, nested fields, content elements and verdicts on valid, malformed and randomly
 * damaged lines; the committed module is what the .wat compiles to; and the small
 * helpers the scanners use on its results (isoMs, numbers, StringMemo, RawMemo).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileSkimKernel } from '../../../../scripts/build-wasm.ts';
import { SeededRandom } from '../../../../src/demo/random.ts';
import {
  Fields,
  RawMemo,
  StringMemo,
  escapes,
  skimObject,
  stringEnd,
  type Nested,
} from '../../../../src/domain/json/skim.ts';
import { KERNEL_MAX_BYTES, kernel } from '../../../../src/domain/json/skimKernel.ts';
import { SKIM_KERNEL_WASM } from '../../../../src/domain/json/skimKernelWasm.ts';

interface Outcome {
  ok: boolean;
  fields?: number[];
  start?: number;
  end?: number;
  nestedOk?: boolean;
  nested?: number[];
  elements?: number[];
  /** Per element: its fields, start and end (empty: not an object). */
  elementFields?: number[][];
  surrogate: boolean;
}

/** A message/content descent with element fields, as the Claude scanner skims a line. */
function messageDescent(): Nested {
  return {
    key: 'message',
    out: new Fields(),
    elementsOf: 'content',
    elements: [],
    elementFields: [],
  };
}

/** skimObject of `text` with a message/content descent, as the Claude scanner does. */
function skim(text: string, inKernel: boolean): Outcome {
  const k = kernel!;
  const bytes = Buffer.from(text);
  const buf = inKernel ? k.load(bytes) : bytes;
  assert.equal(buf === k.buf, inKernel);
  const out = new Fields();
  const nested = messageDescent();
  escapes.surrogate = false;
  const ok = skimObject(buf, 0, buf.length, out, nested);
  const result: Outcome = { ok, surrogate: escapes.surrogate };
  if (!ok) return result;
  return {
    ...result,
    fields: out.quads(),
    start: out.start,
    end: out.end,
    nestedOk: nested.out.ok,
    nested: nested.out.ok ? [...nested.out.quads(), nested.out.start, nested.out.end] : [],
    elements: nested.elements!.slice(0, nested.elementCount! * 2),
    elementFields: nested
      .elementFields!.slice(0, nested.elementCount!)
      .map((f) => (f.ok ? [...f.quads(), f.start, f.end] : [])),
  };
}

function sameBothWays(text: string): Outcome {
  const js = skim(text, false);
  const wasm = skim(text, true);
  assert.deepEqual(wasm, js, `kernel and JS differ on ${JSON.stringify(text.slice(0, 200))}`);
  return js;
}

const LINES = [
  '{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hi \\"there\\""},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":3}},"requestId":"r"}',
  '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"a\\\\","is_error":true}]},"toolUseResult":{"stdout":"x"}}',
  '  { "a" : 1 , "message" : { "content" : [ 1 , "two" , { "x" : [ ] } ] } }  ',
  '{}',
  '{"message":{}}',
  '{"message":{"content":[]}}',
  '{"message":"not an object","content":[1]}',
  '{"message":{"content":"a string"}}',
  '{"message":{"message":{"content":[1]}},"content":[2]}',
  '{"message":{"content":[1]},"message":{"content":[2,3]}}',
  '{"":1,"message":{"":[1]}}',
  '{"k\\"ey":"v\\\\\\"","n":-1.5e+3,"t":true,"f":false,"z":null}',
  '{"s":"\\ud83d\\ude00 and a lone \\udc00"}',
  '{"long":"' + 'x'.repeat(5000) + '\\"' + 'y'.repeat(33) + '"}',
  '{"ünï":"ødé ✓ 中文","message":{"content":["ü"]}}',
  '{"message":{"content":[{},1,{"a":{"b":[{"c":1}]},"a":2},"x",{ "t" : "u" }]}}',
  // Malformed
  '{"message":{"content":[{"a":1 "b":2}]}}',
  '{"message":{"content":[{1:2}]}}',
  '',
  '{',
  '{"a"',
  '{"a":',
  '{"a":1',
  '{"a":1,}',
  '{"a" 1}',
  '{a:1}',
  '{"a":1}}',
  '{"a":1} x',
  '[1,2]',
  '{"message":{"content":[1,]}}',
  '{"message":{"content":[1 2]}}',
  '{"message":{"a":1,,"b":2}}',
  '{"a":"unterminated}',
  '{"a":tru e}',
  // Pass the skim (values are checked only when a scanner parses them): mixed brackets,
  // an unquoted string.
  '{"a":{"b":[1,2}]}',
  '{"message":{"content":[{"name":Bash","input":{"c":"ls"}}]}}',
];

describe('skim kernel (WebAssembly) against the JS skim', () => {
  test('the kernel loads here (Node has WebAssembly SIMD)', () => {
    assert.ok(kernel, 'no kernel: the scanners would silently run the slower JS loops');
  });

  test('the committed module is what skimKernel.wat compiles to (`npm run build:wasm`)', async () => {
    const compiled = Buffer.from(await compileSkimKernel());
    assert.equal(SKIM_KERNEL_WASM, compiled.toString('base64'));
  });

  test('valid and malformed lines: same fields, nesting, elements and verdict', () => {
    let valid = 0;
    for (const line of LINES) if (sameBothWays(line).ok) valid++;
    assert.equal(valid, 18, 'the first 16 lines and the last two pass, the others do not');
  });

  test('2,000 randomly damaged transcript-like lines: same outcome both ways', () => {
    const rng = new SeededRandom(7);
    const bytes = ['"', '\\', '{', '}', '[', ']', ',', ':', ' ', 'x', '1', '\n'];
    let checked = 0;
    for (let n = 0; n < 2000; n++) {
      const base = LINES[rng.int(0, 15)]!;
      let text = base;
      const cuts = rng.int(1, 3);
      for (let c = 0; c < cuts; c++) {
        const at = rng.int(0, text.length);
        const r = rng.next();
        if (r < 0.3) text = text.slice(0, at);
        else if (r < 0.65) text = text.slice(0, at) + rng.pick(bytes) + text.slice(at);
        else text = text.slice(0, at) + text.slice(at + 1);
      }
      sameBothWays(text);
      checked++;
    }
    assert.equal(checked, 2000);
  });

  test("skimming a value of a line leaves the line's fields (read in place) as they were", () => {
    const k = kernel!;
    const buf = k.load(Buffer.from(LINES[0]!));
    const line = new Fields();
    const nested = messageDescent();
    assert.ok(skimObject(buf, 0, buf.length, line, nested));
    const before = [line.quads(), nested.out.quads(), nested.elementFields![1]!.quads()];
    const usage = nested.out.range('usage')!;
    const inner = new Fields();
    assert.ok(skimObject(buf, usage[0], usage[1], inner));
    assert.equal(inner.num('input_tokens'), 3);
    assert.deepEqual(
      [line.quads(), nested.out.quads(), nested.elementFields![1]!.quads()],
      before,
      'the line, its message and its content blocks are still read from the kernel',
    );
    assert.equal(line.str('requestId'), 'r');
  });

  test('more fields than the kernel holds: the JS walk takes over, same result', () => {
    const wide: Record<string, number> = {};
    for (let i = 0; i < 1500; i++) wide[`k${i}`] = i;
    const inner = Array.from({ length: 2500 }, (_, i) => i);
    const out = sameBothWays(JSON.stringify({ ...wide, message: { content: inner } }));
    assert.equal(out.fields!.length / 4, 1501);
    assert.equal(out.elements!.length / 2, 2500);
    // More element fields than their area holds (2,048 in all).
    const blocks = Array.from({ length: 300 }, (_, i) => ({
      a: i,
      b: i,
      c: i,
      d: i,
      e: i,
      f: i,
      g: i,
    }));
    const many = sameBothWays(JSON.stringify({ message: { content: blocks } }));
    assert.equal(many.elementFields!.length, 300);
    assert.deepEqual(many.elementFields![299]!.length, 7 * 4 + 2);
  });

  test('newline: the same positions as indexOf, at every start and around 16-byte steps', () => {
    const k = kernel!;
    const rng = new SeededRandom(5);
    for (let n = 0; n < 200; n++) {
      const length = rng.int(0, 80);
      const bytes = Buffer.alloc(length, 0x61);
      for (let i = rng.int(0, 4); i > 0; i--) if (length) bytes[rng.int(0, length - 1)] = 0x0a;
      const buf = k.load(bytes);
      for (let start = 0; start <= length; start++) {
        for (const end of [length, Math.max(start, length - rng.int(0, 17))]) {
          const expected = buf.subarray(0, end).indexOf(0x0a, start);
          assert.equal(
            k.newline(start, end),
            expected,
            `${bytes.toString('latin1')} ${start}..${end}`,
          );
        }
      }
    }
  });

  test('loadJoined: a head and the start of a tail, side by side in the kernel (or joined over its limit)', () => {
    const k = kernel!;
    const head = Buffer.from('{"a":"one half');
    const tail = Buffer.from(' and the other"}\n{"b":2}\n');
    const line = k.loadJoined(head, tail, tail.indexOf(0x0a));
    assert.equal(line.toString(), '{"a":"one half and the other"}');
    assert.equal(line, k.buf, 'read in place by the kernel');
    assert.equal(k.newline(0, line.length), -1);
    const big = Buffer.alloc(KERNEL_MAX_BYTES, 0x61);
    const joined = k.loadJoined(big, tail, 3);
    assert.equal(joined.length, KERNEL_MAX_BYTES + 3);
    assert.equal(joined.toString('latin1', KERNEL_MAX_BYTES - 1), 'a an');
    assert.notEqual(joined, k.buf);
  });

  test('string ends: the same as the JS loop, at every start, around 16- and 32-byte steps', () => {
    const k = kernel!;
    const rng = new SeededRandom(11);
    const alphabet = [0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x22, 0x5c, 0x75, 0x64];
    for (let round = 0; round < 300; round++) {
      const length = rng.int(0, 100);
      const bytes = Buffer.alloc(length, 0x61);
      for (let i = rng.int(0, 6); i > 0; i--) {
        if (length) bytes[rng.int(0, length - 1)] = alphabet[rng.int(0, alphabet.length - 1)]!;
      }
      k.load(bytes);
      for (let start = 0; start < length; start++) {
        for (const end of [length, Math.max(start, length - rng.int(0, 40))]) {
          escapes.surrogate = false;
          const expected = stringEnd(bytes, start, end);
          const flagged = escapes.surrogate;
          k.takeSurrogate();
          assert.equal(
            k.stringEnd(start, end),
            expected,
            `${bytes.toString('latin1')} ${start}..${end}`,
          );
          assert.equal(k.takeSurrogate(), flagged, `surrogate flag: ${bytes.toString('latin1')}`);
        }
      }
    }
  });

  test('escapes at every position of a 16-byte step: the same ends and surrogate flag as the JS loop', () => {
    const k = kernel!;
    // Backslash runs before quotes, escaped quotes before a real one, `\\u` escapes (a
    // surrogate's or not, after an escaped backslash or not), a real quote before a
    // backslash, a lone last backslash.
    const patterns = [
      '\\',
      '\\\\',
      '\\"',
      '\\\\"',
      '\\\\\\"',
      '\\"\\"',
      '\\"\\\\"',
      '\\\\\\\\\\\\\\\\',
      '\\n\\t\\r\\b\\f\\/',
      '\\uD83D\\uDE00',
      '\\ud83d',
      '\\uDc00',
      '\\u00e9',
      '\\\\uD83D',
      '\\u',
      '\\ud',
      '"',
      '\\"x"',
      '"\\',
      '"a\\"b"',
      '\\""\\\\',
    ];
    for (const pattern of patterns) {
      for (let at = 0; at <= 36; at++) {
        for (const close of ['', '"', 'aa"}', '\\']) {
          const text = `"${'a'.repeat(at)}${pattern}${'a'.repeat(36 - at)}${close}`;
          const bytes = Buffer.from(text, 'latin1');
          // Zeros past the bytes, so that a read past them finds no stale `u`.
          k.load(Buffer.alloc(bytes.length + 32));
          k.load(bytes);
          for (let end = 1; end <= bytes.length; end++) {
            escapes.surrogate = false;
            const expected = stringEnd(bytes, 0, end);
            const flagged = escapes.surrogate;
            k.takeSurrogate();
            assert.equal(k.stringEnd(0, end), expected, `${text} ..${end}`);
            assert.equal(k.takeSurrogate(), flagged, `surrogate flag: ${text} ..${end}`);
          }
        }
      }
    }
  });

  test('a `\\uD…` escape raises the surrogate flag both ways; others do not', () => {
    assert.equal(sameBothWays('{"a":"\\uD83D\\uDE00"}').surrogate, true);
    assert.equal(sameBothWays('{"a":"\\udc00"}').surrogate, true);
    assert.equal(sameBothWays('{"a":"\\u00e9 \\\\ud83d"}').surrogate, false);
  });
});

describe('skim helpers', () => {
  const fields = (text: string) => {
    const f = new Fields();
    const buf = Buffer.from(text);
    assert.ok(skimObject(buf, 0, buf.length, f));
    return f;
  };

  test('isoMs: canonical timestamps read from bytes; any other form is NaN', () => {
    for (const t of [
      '2026-06-01T08:47:47.042Z',
      '2024-02-29T23:59:59.999Z',
      '1999-12-31T00:00:00.000Z',
    ]) {
      assert.equal(fields(`{"t":"${t}"}`).isoMs('t'), Date.parse(t), t);
      assert.equal(new Date(Date.parse(t)).toISOString(), t, 'rebuilt text is the same');
    }
    for (const t of [
      '2026-06-01T08:47:47Z',
      '2026-06-01T08:47:47.042+02:00',
      '2026-06-01 08:47:47.042Z',
      '2026-06-01T08:47:47.042z',
      '2026-13-01T08:47:47.042Z',
      '2023-02-29T08:47:47.042Z',
      '2026-04-31T08:47:47.042Z',
      '2026-06-01T24:00:00.000Z',
      '2026-06-01T08:60:00.000Z',
      '2026-06-0xT08:47:47.042Z',
    ]) {
      assert.ok(Number.isNaN(fields(`{"t":"${t}"}`).isoMs('t')), t);
    }
    assert.ok(Number.isNaN(fields('{"t":12}').isoMs('t')));
    assert.ok(Number.isNaN(fields('{}').isoMs('t')));
    // Within the hour of the timestamp before (read from a memo), and across hours.
    for (const t of [
      '2026-06-01T08:00:00.000Z',
      '2026-06-01T08:59:59.999Z',
      '2026-06-01T08:05:07.009Z',
      '2026-06-01T09:05:07.009Z',
      '2026-07-01T09:05:07.009Z',
      '2026-07-01T09:05:07.009Z',
    ]) {
      assert.equal(fields(`{"t":"${t}"}`).isoMs('t'), Date.parse(t), t);
    }
    for (const t of ['2026-07-01T09:60:07.009Z', '2026-07-01T09:05:7x.009Z']) {
      assert.ok(Number.isNaN(fields(`{"t":"${t}"}`).isoMs('t')), t);
    }
  });

  test('numbers: one pass, the last of repeated keys, NaN reported', () => {
    const out: (number | undefined)[] = [];
    assert.ok(
      fields('{"a":1,"b":"x","c":null,"a":7,"d":2.5}').numbers(['a', 'b', 'c', 'd', 'e'], out),
    );
    assert.deepEqual(out, [7, undefined, undefined, 2.5, undefined]);
    assert.equal(fields('{"a":1-2}').numbers(['a'], out), false);
  });

  test("numbers as JSON.parse reads them, after the kernel's walk and the JS walk: what it rejects is NaN, other values undefined", () => {
    const k = kernel!;
    for (const value of [
      '0',
      '-0',
      '7',
      '0100',
      '-01',
      '00',
      '0.5',
      '.5',
      '1.',
      '1e3',
      '1e',
      '-1.5E+2',
      '0x10',
      '-Infinity',
      '+1',
      '1_0',
      'null',
      'nul',
      'true',
      'truex',
      'false',
      '"7"',
      '{}',
      '[1]',
    ]) {
      const text = `{"a":${value},"b":2}`;
      let expected: number | undefined;
      try {
        const parsed: unknown = (JSON.parse(text) as { a: unknown }).a;
        expected = typeof parsed === 'number' ? parsed : undefined;
      } catch {
        expected = NaN;
      }
      for (const buf of [Buffer.from(text), k.load(Buffer.from(text))]) {
        const f = new Fields();
        assert.ok(skimObject(buf, 0, buf.length, f), value);
        assert.equal(f.num('a'), expected, `${value} (${buf === k.buf ? 'kernel' : 'JS'})`);
      }
    }
  });

  test('StringMemo decodes like str() for repeated, escaped and non-ASCII values', () => {
    const memo = new StringMemo(2);
    const values = ['assistant', 'user', 'a\\"b', 'ünï', 'assistant', 'system', 'user', 'ünï'];
    for (const v of values) {
      const f = fields(`{"type":"${v}"}`);
      assert.equal(f.strMemo('type', memo), f.str('type'));
    }
    assert.equal(fields('{"type":3}').strMemo('type', memo), undefined);
  });

  test('RawMemo: changed only when the bytes differ, including a longer value', () => {
    const memo = new RawMemo();
    assert.equal(fields('{"v":"1.0"}').changed('v', memo, 0), true);
    assert.equal(fields('{"v":"1.0"}').changed('v', memo, 0), false);
    assert.equal(fields('{"v":"1.0.1"}').changed('v', memo, 0), true);
    assert.equal(fields('{"v":"' + 'x'.repeat(200) + '"}').changed('v', memo, 0), true);
    assert.equal(fields('{"v":"1.0"}').changed('v', memo, 0), true);
    assert.equal(fields('{"w":"1.0"}').changed('v', memo, 0), false, 'absent: not changed');
    // Long values (compared natively): the same bytes, then one byte off at either end.
    const long = 'y'.repeat(300);
    assert.equal(fields(`{"v":"${long}"}`).changed('v', memo, 1), true);
    assert.equal(fields(`{"v":"${long}"}`).changed('v', memo, 1), false);
    assert.equal(fields(`{"v":"${long.slice(1)}z"}`).changed('v', memo, 1), true);
    assert.equal(fields(`{"v":"z${long.slice(1)}"}`).changed('v', memo, 1), true);
    assert.ok(memo.holds(1, Buffer.from(`"z${long.slice(1)}"`), 0, long.length + 2));
  });

  test('RawMemo: slots are independent; forget empties one; past SLOTS nothing is held', () => {
    const memo = new RawMemo();
    const bytes = (i: number) => Buffer.from(`"value ${i}"`);
    for (let slot = 0; slot < RawMemo.SLOTS; slot++) {
      assert.equal(memo.holds(slot, bytes(slot), 0, 9), false, `slot ${slot} starts empty`);
      assert.equal(memo.update(slot, bytes(slot), 0, 9), true);
    }
    for (let slot = 0; slot < RawMemo.SLOTS; slot++) {
      assert.equal(memo.update(slot, bytes(slot), 0, 9), false, `slot ${slot} kept its bytes`);
    }
    memo.forget(1);
    assert.equal(memo.holds(1, bytes(1), 0, 9), false, 'forgotten');
    assert.equal(memo.holds(2, bytes(2), 0, 9), true, 'the others kept');
    // A slot past the memo's room is never held: every value counts as changed.
    assert.equal(memo.update(RawMemo.SLOTS, bytes(0), 0, 9), true);
    assert.equal(memo.update(RawMemo.SLOTS, bytes(0), 0, 9), true);
  });
});
