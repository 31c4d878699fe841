/**
 * Fuzzing the byte-level JSON scanner (src/domain/json): its validating mode, which the
 * transcript index runs before each format's collector reads the skimmed record, the
 * structural skim both the index and the local scanners use, and its WebAssembly kernel
 * against the JS walk, in both modes.
 * Inputs: generated JSON values, real transcript lines (mutated records and damaged
 * bytes), raw bytes. Properties: nothing throws; the scanner's verdict is JSON.parse's;
 * the skim's fields are JSON.parse's on valid objects; kernel and JS walk agree.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  JSON_DONE,
  JSON_INVALID,
  JSON_MORE,
  JsonValidator,
} from '../../../src/domain/json/validate.ts';
import { claudeCodeFormat } from '../../../src/domain/transcript/normalize/claudeCode.ts';
import { RecordIndex } from '../../../src/domain/transcript/recordIndex.ts';
import { codexFormat } from '../../../src/domain/transcript/normalize/codex.ts';
import {
  Fields,
  RawMemo,
  StringMemo,
  escapes,
  skimObject,
  stringEnd,
  type KeyCheck,
  type Nested,
  type NestedCounts,
} from '../../../src/domain/json/skim.ts';
import { USAGE_COUNT_NAMES } from '../../../src/sources/local/claudeCodeScan.ts';
import { TOTAL_COUNT_NAMES } from '../../../src/sources/local/codexScan.ts';
import { kernel } from '../../../src/domain/json/skimKernel.ts';
import { corpus } from './corpus.ts';
import {
  byteEdit,
  damage,
  fc,
  fuzz,
  hostileString,
  jsonish,
  mutate,
  mutation,
  prettyJson,
  rawBytes,
} from './support.ts';

const { claude, codex } = corpus();
const allLines = [...claude.lines, ...codex.lines];
const allRecords = [...claude.records, ...codex.records];

/** One line of bytes (no newline): valid JSON, a mutated record, damaged or raw bytes. */
const lineBytes: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 2, arbitrary: jsonish.map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom(...allRecords), fc.array(mutation, { minLength: 1, maxLength: 3 }))
      .map(([r, m]) => Buffer.from(JSON.stringify(mutate(r, m)) ?? 'null')),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom(...allLines), fc.array(byteEdit, { minLength: 1, maxLength: 3 }))
      .map(([line, edits]) => damage(Buffer.from(line), edits)),
  },
  { weight: 1, arbitrary: rawBytes },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.nat({ max: 3000 }), fc.constantFrom('[', '{"a":'), fc.boolean())
      .map(([depth, open, closed]) => {
        const close = open === '[' ? ']' : '}';
        return Buffer.from(open.repeat(depth) + '1' + (closed ? close.repeat(depth) : ''));
      }),
  },
);

/**
 * Lines whose strings are dense with escapes (as Codex output is), a bare quote or
 * backslash put in now and then: backslashes at every offset of the kernel's 16-byte
 * steps, escaped quotes before real ones, `\\uD…` escapes, unterminated strings.
 */
const escapeDenseLine: fc.Arbitrary<Buffer> = fc
  .tuple(
    fc.array(
      fc.constantFrom(
        '\\\\',
        '\\"',
        '\\n',
        '\\/',
        '\\u00e9',
        '\\uD83D',
        '\\ud83d',
        '\\uDE00',
        'a',
        'abc',
        'é',
        ' ',
      ),
      { maxLength: 80 },
    ),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom('"', '\\')), { maxLength: 2 }),
  )
  .map(([tokens, bare]) => {
    let text = tokens.join('');
    for (const [at, c] of bare) {
      const i = at % (text.length + 1);
      text = text.slice(0, i) + c + text.slice(i);
    }
    return Buffer.from(
      `{"type":"response_item","payload":{"type":"message","text":"${text}"},` +
        `"message":{"content":[{"type":"text","text":"${text}"}]},"tail":"${text}"}`,
    );
  });

function parses(buf: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(buf.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

describe('fuzz: JSON validation (transcript index)', () => {
  for (const adapter of [claudeCodeFormat, codexFormat]) {
    test(`validation + ${adapter.format} record index: JSON.parse's verdict, never a throw`, (t) => {
      const validator = new JsonValidator();
      fuzz(t, `validate/${adapter.format}`, lineBytes, (buf) => {
        validator.reset();
        const status = validator.feed(buf, 0, buf.length);
        const expected = parses(buf);
        if (status === JSON_DONE) {
          assert.ok(expected.ok, 'the validator accepted what JSON.parse rejects');
        } else if (validator.error !== 'nesting too deep') {
          assert.ok(
            !expected.ok,
            `the validator said ${status} (${validator.error}) to valid JSON`,
          );
        }
        // The kernel's walk gives the same verdict.
        if (kernel) {
          const inKernel = new JsonValidator();
          const loaded = kernel.load(buf);
          assert.equal(inKernel.feed(loaded, 0, loaded.length), status, 'kernel and JS disagree');
          assert.equal(inKernel.error, validator.error);
        }
        // The same line through the record index: the format's collector plans it.
        const index = new RecordIndex(adapter);
        index.line(buf, 0, buf.length, 0);
        if (status === JSON_DONE) {
          assert.equal(index.recordCount, 1);
          assert.equal(index.errorRecords.length, 0);
          const rows = index.rows.at(0);
          assert.ok(Number.isInteger(rows) && rows >= 0, `rows ${rows}`);
        } else if (status === JSON_INVALID) {
          assert.equal(index.errorRecords.length, 1);
        } else {
          assert.equal(index.recordCount, 0);
        }
      });
    });
  }

  test('a value pretty-printed over many lines scans like the one-line form', (t) => {
    const validator = new JsonValidator();
    fuzz(
      t,
      'validate/multi-line',
      fc.oneof(
        jsonish,
        fc
          .tuple(fc.constantFrom(...allRecords), fc.array(mutation, { maxLength: 2 }))
          .map(([r, m]) => mutate(r, m)),
      ),
      (value) => {
        if (value === undefined) return;
        const text = prettyJson(value);
        validator.reset();
        const index = new RecordIndex(claudeCodeFormat);
        const lines = text.split('\n');
        let status = JSON_MORE;
        for (const [i, line] of lines.entries()) {
          assert.equal(status, JSON_MORE, `done before line ${i + 1} of ${lines.length}`);
          const buf = Buffer.from(line);
          status = validator.feed(buf, 0, buf.length);
          index.line(buf, 0, buf.length, i);
          if (validator.error === 'nesting too deep') return;
        }
        assert.equal(status, JSON_DONE, validator.error);
        // The record index reads the same lines as one record, planned as the one-line form.
        assert.equal(index.recordCount, 1);
        assert.equal(index.errorRecords.length, 0);
        assert.equal(index.lastLine.at(0), lines.length - 1);
        const oneLine = new RecordIndex(claudeCodeFormat);
        const compact = Buffer.from(JSON.stringify(value));
        oneLine.line(compact, 0, compact.length, 0);
        assert.deepEqual(
          [index.kinds.at(0), index.rows.at(0), index.groups.at(0)],
          [oneLine.kinds.at(0), oneLine.rows.at(0), oneLine.groups.at(0)],
        );
      },
    );
  });
});

// ── The skim (local scanners) ────────────────────────────────────────────────────────

const PLAIN_KEY = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

function claudeDescent(): Nested {
  const counts: NestedCounts = {
    names: USAGE_COUNT_NAMES,
    read: false,
    inner: false,
    values: [0, 0, 0, 0, 0, 0, 0, 0],
  };
  const keyCheck: KeyCheck = { field: 'toolUseResult', key: 'agentId', answer: undefined };
  return {
    key: 'message',
    out: new Fields(),
    elementsOf: 'content',
    elements: [],
    elementFields: [],
    counts,
    keyCheck,
  };
}

function codexDescent(): Nested {
  const counts: NestedCounts = {
    names: TOTAL_COUNT_NAMES,
    read: false,
    inner: false,
    values: [0, 0, 0, 0, 0, 0, 0, 0],
  };
  return { key: 'payload', out: new Fields(), counts };
}

/** Everything a skim found, in plain numbers (for comparing the two walks). */
function outcome(buf: Buffer, nested: Nested | undefined) {
  const out = new Fields();
  escapes.surrogate = false;
  const ok = skimObject(buf, 0, buf.length, out, nested);
  if (!ok) return { ok };
  return {
    ok,
    surrogate: escapes.surrogate,
    fields: out.quads(),
    range: [out.start, out.end],
    nested: nested?.out.ok ? [...nested.out.quads(), nested.out.start, nested.out.end] : [],
    elements: nested?.elements?.slice(0, (nested.elementCount ?? 0) * 2) ?? [],
    elementFields: (nested?.elementFields ?? [])
      .slice(0, nested?.elementCount ?? 0)
      .map((f) => (f.ok ? [...f.quads(), f.start, f.end] : [])),
  };
}

/**
 * Each string of `buf` (from each of its first 40 quotes) ends where the JS loop ends it,
 * with the same surrogate flag, up to the end of the bytes and up to a bound inside them.
 */
function sameStringEnds(buf: Buffer): void {
  const k = kernel;
  if (!k || buf !== k.buf) return;
  for (let i = buf.indexOf(0x22), n = 0; i >= 0 && n < 40; i = buf.indexOf(0x22, i + 1), n++) {
    for (const end of [buf.length, i + ((buf.length - i) >> 1)]) {
      escapes.surrogate = false;
      const expected = stringEnd(buf, i, end);
      const flagged = escapes.surrogate;
      k.takeSurrogate();
      assert.equal(k.stringEnd(i, end), expected, `string at ${i} to ${end}`);
      assert.equal(k.takeSurrogate(), flagged, `surrogate flag of the string at ${i} to ${end}`);
    }
  }
}

/** Every accessor of Fields on every key: none may throw but parse (SyntaxError only). */
function readAll(f: Fields, keys: Iterable<string>): void {
  const raw = new RawMemo();
  const memo = new StringMemo();
  for (const key of keys) {
    f.has(key);
    f.range(key);
    f.str(key);
    f.strMemo(key, memo);
    f.isoMs(key);
    f.bool(key);
    f.num(key);
    f.changed(key, raw, 0);
    try {
      f.parse(key);
    } catch (error) {
      assert.ok(error instanceof SyntaxError, String(error));
    }
  }
  f.numbers([...keys].slice(0, 8), []);
  try {
    f.parseAll();
  } catch (error) {
    assert.ok(error instanceof SyntaxError, String(error));
  }
}

const KEYS_READ = [
  'type',
  'timestamp',
  'message',
  'content',
  'usage',
  'id',
  'payload',
  'input_tokens',
  'a',
  '',
];

describe('fuzz: structural skim (local scanners, transcript index)', () => {
  test('on valid objects the skim reports exactly JSON.parse’s fields; never a throw', (t) => {
    const f = new Fields();
    fuzz(
      t,
      'skim/fields',
      fc.oneof(
        lineBytes,
        lineBytes.map((b) => Buffer.concat([Buffer.from(' \t'), b, Buffer.from('\r ')])),
      ),
      (buf) => {
        const ok = skimObject(buf, 0, buf.length, f);
        const expected = parses(buf);
        const value = expected.ok ? expected.value : undefined;
        const isObject = !!value && typeof value === 'object' && !Array.isArray(value);
        if (isObject) assert.ok(ok, 'the skim rejected a valid object');
        if (!ok) return;
        const keys = new Set([...KEYS_READ, ...(isObject ? Object.keys(value) : [])]);
        readAll(f, keys);
        if (!isObject) return;
        for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
          // The skim matches keys byte for byte: plain ASCII keys only (real keys are).
          if (!PLAIN_KEY.test(key) || !buf.includes(`"${key}"`)) continue;
          // Compared as text: deepEqual recurses too deep for the deeply nested values.
          assert.equal(JSON.stringify(f.parse(key)), JSON.stringify(v), `field ${key}`);
          if (typeof v === 'string') assert.equal(f.str(key), v);
        }
      },
    );
  });

  test('WebAssembly kernel and JS walk: same verdict, fields, nesting and elements', (t) => {
    t.diagnostic(kernel ? 'kernel loaded' : 'no kernel here: JS walk compared with itself');
    fuzz(
      t,
      'skim/kernel-vs-js',
      fc.tuple(
        fc.oneof({ weight: 3, arbitrary: lineBytes }, { weight: 1, arbitrary: escapeDenseLine }),
        fc.constantFrom('none', 'claude', 'codex'),
      ),
      ([bytes, descent]) => {
        const make = () =>
          descent === 'claude' ? claudeDescent() : descent === 'codex' ? codexDescent() : undefined;
        const js = outcome(Buffer.from(bytes), make());
        // Zeros past the bytes first: what the kernel reads past them is then no stale byte.
        kernel?.load(Buffer.alloc(bytes.length + 32));
        const loaded = kernel ? kernel.load(bytes) : Buffer.from(bytes);
        const nested = make();
        const wasm = outcome(loaded, nested);
        assert.deepEqual(wasm, js);
        sameStringEnds(loaded);
        if (wasm.ok) {
          const f = new Fields();
          skimObject(loaded, 0, loaded.length, f, make());
          readAll(f, KEYS_READ);
        }
      },
    );
  });

  test('strings of hostile text decode as JSON.parse decodes them', (t) => {
    const f = new Fields();
    fuzz(
      t,
      'skim/strings',
      hostileString.filter((s) => s.length < 70_000),
      (s) => {
        const buf = Buffer.from(JSON.stringify({ a: s, b: [s], c: 1 }));
        for (const b of [buf, kernel ? kernel.load(buf) : buf]) {
          assert.ok(skimObject(b, 0, b.length, f));
          assert.equal(f.str('a'), JSON.parse(JSON.stringify(s)));
          assert.deepEqual(f.parse('b'), [JSON.parse(JSON.stringify(s))]);
          assert.equal(f.num('c'), 1);
        }
      },
    );
  });
});
