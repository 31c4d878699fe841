/** The structural skim agrees with JSON.parse on every field, including awkward strings. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SeededRandom } from '../../../../src/demo/random.ts';
import { Fields, escapes, skimObject, type Nested } from '../../../../src/domain/json/skim.ts';

const AWKWARD = [
  '',
  '"',
  '\\',
  '\\"',
  'a\\\\',
  '}{][',
  ',:',
  'ünï©ødé ✓',
  '\n\t',
  '\ud83d\ude00',
  '"}',
];

function value(rng: SeededRandom, depth: number): unknown {
  const r = rng.next();
  if (depth > 2 || r < 0.3) return rng.pick([...AWKWARD, 'plain']) + rng.pick(AWKWARD);
  if (r < 0.45) return rng.int(-5, 1_000_000);
  if (r < 0.5) return rng.pick([true, false, null, 1.5e-3]);
  if (r < 0.75) return Array.from({ length: rng.int(0, 3) }, () => value(rng, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = rng.int(0, 4); i > 0; i--) o[`k${rng.pick(AWKWARD)}${i}`] = value(rng, depth + 1);
  return o;
}

describe('skimObject', () => {
  test('every field of 500 random objects matches JSON.parse (compact and pretty)', () => {
    const rng = new SeededRandom(3);
    const f = new Fields();
    for (let n = 0; n < 500; n++) {
      const obj: Record<string, unknown> = {};
      for (let i = rng.int(1, 6); i > 0; i--) obj[`key${i}`] = value(rng, 0);
      for (const text of [JSON.stringify(obj), JSON.stringify(obj, null, 2)]) {
        const buf = Buffer.from(`  ${text} `);
        assert.ok(skimObject(buf, 0, buf.length, f), text);
        assert.equal(f.size, Object.keys(obj).length);
        for (const [k, v] of Object.entries(obj)) {
          assert.deepEqual(f.parse(k), v, `${k} in ${text}`);
          if (typeof v === 'string') assert.equal(f.str(k), v);
          if (typeof v === 'number' && Number.isInteger(v) && v >= 0) assert.equal(f.num(k), v);
        }
      }
    }
  });

  test('long strings (the native search): escaped quotes and backslash runs at every offset', () => {
    const rng = new SeededRandom(11);
    const f = new Fields();
    for (let n = 0; n < 400; n++) {
      // Past 48 bytes the skim switches from its byte loop to Buffer.indexOf: put the
      // awkward pieces before, across and after that point.
      let long = 'x'.repeat(rng.int(0, 60));
      while (long.length < rng.int(50, 400)) long += rng.pick(AWKWARD) + 'y'.repeat(rng.int(0, 9));
      const obj = { a: long, b: [long, { c: long }], d: 1 };
      const buf = Buffer.from(JSON.stringify(obj));
      assert.ok(skimObject(buf, 0, buf.length, f), JSON.stringify(long));
      assert.equal(f.str('a'), long);
      assert.deepEqual(f.parse('b'), obj.b);
      assert.equal(f.num('d'), 1);
    }
  });

  test('a \\uD escape in a long string is flagged; an escaped backslash before "ud" is not', () => {
    const f = new Fields();
    const pad = 'p'.repeat(80);
    const lone = Buffer.from(`{"a":"${pad}\\ud800${pad}"}`);
    escapes.surrogate = false;
    assert.ok(skimObject(lone, 0, lone.length, f));
    assert.equal(escapes.surrogate, true);
    const literal = Buffer.from(`{"a":"${pad}\\\\ud800${pad}"}`);
    escapes.surrogate = false;
    assert.ok(skimObject(literal, 0, literal.length, f));
    assert.equal(f.str('a'), `${pad}\\ud800${pad}`);
    assert.equal(escapes.surrogate, false);
  });

  test('not exactly one object: false', () => {
    const f = new Fields();
    for (const text of [
      '',
      '[]',
      '{"a":1',
      '{"a":1}}',
      '{"a":1} x',
      '{"a" 1}',
      '{"a":"x}',
      '{a:1}',
    ]) {
      assert.equal(skimObject(Buffer.from(text), 0, text.length, f), false, text);
    }
  });

  test('duplicate keys: the last wins; array elements with the fields of the objects', () => {
    const f = new Fields();
    const whole = Buffer.from('{"a":1,"m":{"b":[1,{"c":"]"},"x"]},"a":2}');
    const m: Nested = {
      key: 'm',
      out: new Fields(),
      elementsOf: 'b',
      elements: [],
      elementFields: [],
    };
    assert.ok(skimObject(whole, 0, whole.length, f, m));
    assert.equal(f.num('a'), 2);
    const parts: string[] = [];
    for (let i = 0; i < m.elementCount! * 2; i += 2) {
      parts.push(whole.toString('utf8', m.elements![i], m.elements![i + 1]));
    }
    assert.deepEqual(parts, ['1', '{"c":"]"}', '"x"']);
    assert.deepEqual(
      m.elementFields!.slice(0, 3).map((e) => e.ok),
      [false, true, false],
    );
    assert.equal(m.elementFields![1]!.str('c'), ']');
    assert.equal(f.num('m'), undefined, 'not a number');
    assert.equal(m.out.str('b'), undefined, 'not a string');

    // The same Nested for the next line: its own elements count, not the last line's.
    const next = Buffer.from('{"m":{"b":[{"c":"y"}]}}');
    assert.ok(skimObject(next, 0, next.length, f, m));
    assert.equal(m.elementCount, 1);
    assert.equal(m.elementFields![0]!.str('c'), 'y');
    const none = Buffer.from('{"m":{}}');
    assert.ok(skimObject(none, 0, none.length, f, m));
    assert.equal(m.elementCount, 0, 'no array: no elements');
  });
});
