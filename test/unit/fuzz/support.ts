/**
 * Shared parts of the parser fuzz tests (test/unit/fuzz/*.test.ts): the seed, the run
 * budget, and fast-check arbitraries for hostile JSON values, mutated records and damaged
 * bytes.
 *
 * Every target runs with the same seed: FUZZ_SEED (default below). A failure prints the
 * counterexample with fast-check's `seed` and `path`; replay exactly that case with
 *   FUZZ_SEED=<seed> FUZZ_PATH=<path> node --test --test-name-pattern='<target>' <file>
 * FUZZ_SCALE multiplies every target's run count (e.g. 10 for a longer soak).
 */
import type { TestContext } from 'node:test';
import fc from 'fast-check';

export { fc };

export const DEFAULT_FUZZ_SEED = 190_019;

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`${name} must be an integer, not "${raw}"`);
  return n;
}

export const FUZZ_SEED = envInt('FUZZ_SEED', DEFAULT_FUZZ_SEED);
const SCALE = Number(process.env.FUZZ_SCALE ?? '1');
const PATH = process.env.FUZZ_PATH || undefined;

/**
 * Inputs per target and run of `npm test`: at least 10^5 in all (budget.test.ts checks),
 * in about a minute of the two cores the unit tier gets. Cheap targets carry the count;
 * the file-backed and end-to-end ones cost 5 to 60 ms an input and get fewer.
 */
export const BUDGET = {
  'validate/claude-code': 7_000,
  'validate/codex': 7_000,
  'validate/multi-line': 3_000,
  'skim/fields': 8_000,
  'skim/kernel-vs-js': 8_000,
  'skim/strings': 6_000,
  'localScan/claude/chunks': 4_000,
  'localScan/codex/chunks': 4_000,
  'localScan/claude/deferred-status': 3_000,
  'localScan/codex/deferred-status': 3_000,
  'localScan/claude/after-malformed': 3_000,
  'localScan/codex/after-malformed': 3_000,
  'localScan/claude/usage-only': 3_000,
  'localScan/codex/usage-only': 3_000,
  'jsonlIndex/lines': 400,
  'transcript/claude-code': 400,
  'transcript/codex': 400,
  'transcript/claude-code/after-malformed': 300,
  'transcript/codex/after-malformed': 300,
  'zod/schemas': 12_000,
  'zod/mcp-readers': 8_000,
  'zod/comments-dashboard': 8_000,
  'normalize/itential+rest': 6_000,
  'protocol/validators': 15_000,
  'wire/mcp': 60,
  'wire/rest': 60,
} as const;

export type FuzzTarget = keyof typeof BUDGET;

function params<T>(target: FuzzTarget): fc.Parameters<T> {
  const scale = Number.isFinite(SCALE) && SCALE > 0 ? SCALE : 1;
  return { seed: FUZZ_SEED, numRuns: Math.max(1, Math.round(BUDGET[target] * scale)), path: PATH };
}

/** Logs what ran: read by people reproducing a failure and by the fuzz budget check. */
function report(t: TestContext, target: string, numRuns: number, cpu: NodeJS.CpuUsage): void {
  const ms = Math.round((cpu.user + cpu.system) / 1000);
  t.diagnostic(`fuzz ${target}: seed ${FUZZ_SEED}, ${numRuns} inputs, ${ms} ms CPU`);
}

/** fc.assert of `predicate` over the target's budget of inputs, with the shared seed. */
export function fuzz<T>(
  t: TestContext,
  target: FuzzTarget,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => boolean | void,
): void {
  const p = params<[T]>(target);
  const cpu = process.cpuUsage();
  try {
    fc.assert(fc.property(arbitrary, predicate), p);
  } finally {
    report(t, target, p.numRuns!, process.cpuUsage(cpu));
  }
}

export async function fuzzAsync<T>(
  t: TestContext,
  target: FuzzTarget,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<boolean | void>,
): Promise<void> {
  const p = params<[T]>(target);
  const cpu = process.cpuUsage();
  try {
    await fc.assert(fc.asyncProperty(arbitrary, predicate), p);
  } finally {
    report(t, target, p.numRuns!, process.cpuUsage(cpu));
  }
}

// ── Strings ────────────────────────────────────────────────────────────────────────────

/** Characters that have broken parsers, renderers or escapers somewhere. */
const AWKWARD = [
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\n',
  '\r',
  '\t',
  '"',
  '\\',
  '\\u',
  '\\ud800',
  '/',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\u202e',
  '\u200b',
  '\ufffd',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ud83d\ude00',
  '$(alert)',
  '[x](command:workbench.action.openSettings)',
  '<img src=x onerror=alert(1)>',
  '__proto__',
  'constructor',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  'NaN',
  '1e999',
  '-0',
  '2026-13-45T25:61:61.000Z',
  '2026-08-01T12:00:00.000Z',
];

/** One unit of a hostile string: any code point, a lone surrogate, or an awkward piece. */
export const hostileChar: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 3, arbitrary: fc.constantFrom(...AWKWARD) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  },
);

/** A short hostile string. */
export const shortHostile: fc.Arbitrary<string> = fc.string({ unit: hostileChar, maxLength: 24 });

/** A huge string (64 KiB to 1 MiB of a repeated hostile piece). */
export const hugeString: fc.Arbitrary<string> = fc
  .tuple(
    fc.string({ unit: hostileChar, minLength: 1, maxLength: 4 }),
    fc.integer({ min: 16, max: 20 }),
  )
  .map(([piece, bits]) => piece.repeat(Math.ceil((1 << bits) / piece.length)));

/** Mostly short hostile strings; one in ~400 is huge. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 400, arbitrary: shortHostile },
  { weight: 1, arbitrary: hugeString },
);

/** Strings ids and keys look like: plain, empty, or hostile. */
export const keyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', 'id', 'type', '__proto__', 'constructor', 'toString', 'hasOwnProperty'),
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
  fc.string({ unit: hostileChar, maxLength: 8 }),
);

// ── JSON values ────────────────────────────────────────────────────────────────────────

/** A value nested `depth` levels deep (arrays and objects alternating). */
export function deepValue(depth: number, leaf: unknown = 1): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** Scalars a wrongly typed field might hold (JSON-origin values only). */
const oddScalar: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      false,
      0,
      -1,
      -0,
      1.5,
      1e308,
      -1e308,
      2 ** 53 + 2,
      Number.MIN_VALUE,
      '',
      '0',
      '-1',
      '1e999',
      'null',
      'true',
      [],
      {},
      [null],
      JSON.parse('{"length":3}'),
      JSON.parse('{"__proto__":{"polluted":1}}'),
      JSON.parse('{"toString":"x","valueOf":1}'),
    ),
  },
  { weight: 4, arbitrary: shortHostile },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
);

/**
 * Values a wrongly typed field might hold; one in ~100 is huge, deep or long (rare: they
 * cost a hundred ordinary inputs each, and a thousand of them per run is plenty).
 */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 250, arbitrary: oddScalar },
  { weight: 50, arbitrary: fc.jsonValue({ maxDepth: 2, stringUnit: hostileChar }) },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 2500 }).map((d) => deepValue(d)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(oddScalar, fc.integer({ min: 100, max: 3000 }))
      .map(([v, n]) => Array.from({ length: n }, () => v)),
  },
);

/** Any JSON value, with hostile strings and keys. */
export const jsonish: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3, stringUnit: hostileChar }) },
  {
    weight: 2,
    arbitrary: fc.object({ maxDepth: 2, maxKeys: 6, key: keyString, values: [oddScalar] }),
  },
  { weight: 1, arbitrary: oddValue },
);

// ── Mutating real records ──────────────────────────────────────────────────────────────

type Container = Record<string, unknown> | unknown[];

interface Slot {
  parent: Container;
  key: string | number;
  depth: number;
}

/** Every (container, key) of `value`, breadth first, at most `limit`. */
function slots(value: unknown, limit = 400): Slot[] {
  const out: Slot[] = [];
  const queue: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  for (let q = 0; q < queue.length && out.length < limit; q++) {
    const { v, depth } = queue[q]!;
    if (Array.isArray(v)) {
      v.forEach((child, i) => {
        out.push({ parent: v, key: i, depth });
        queue.push({ v: child, depth: depth + 1 });
      });
    } else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        out.push({ parent: v as Record<string, unknown>, key: k, depth });
        queue.push({ v: child, depth: depth + 1 });
      }
    }
  }
  return out;
}

export interface Mutation {
  /** Which slot (modulo the slot count); even values prefer the first three levels. */
  at: number;
  op: number;
  value: unknown;
  key: string;
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.nat({ max: 9 }),
  value: oddValue,
  key: keyString,
});

/** A deep copy of a JSON value (scalars, strings included, are returned as they are). */
const clone = (v: unknown): unknown =>
  v !== null && typeof v === 'object' ? JSON.parse(JSON.stringify(v)) : v;

/** A copy of `record` with the mutations applied (wrong types, missing keys, odd keys…). */
export function mutate(record: unknown, mutations: readonly Mutation[]): unknown {
  let root = clone(record);
  for (const original of mutations) {
    // A fresh copy each time: a value shared between runs must never become part of a cycle.
    const m = { ...original, value: clone(original.value) };
    const all = slots(root);
    if (all.length === 0) {
      root = m.op % 2 ? m.value : { [m.key]: m.value };
      continue;
    }
    const shallow = all.filter((s) => s.depth < 3);
    const pool = m.at % 2 === 0 && shallow.length ? shallow : all;
    const { parent, key } = pool[Math.floor(m.at / 2) % pool.length]!;
    const obj = parent as Record<string | number, unknown>;
    switch (m.op) {
      case 0: // missing
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else delete obj[key];
        break;
      case 1: // renamed
        if (!Array.isArray(parent)) {
          const v = obj[key];
          delete obj[key];
          obj[m.key] = v;
        }
        break;
      case 2: // an extra member
        if (Array.isArray(parent)) parent.push(m.value);
        else obj[m.key] = m.value;
        break;
      case 3: // wrapped
        obj[key] = [obj[key]];
        break;
      case 4: // a string's text replaced, or a number turned into its text
        obj[key] = typeof obj[key] === 'number' ? String(obj[key]) : m.value;
        break;
      case 5: // duplicated into a sibling array slot / the element repeated many times
        if (Array.isArray(parent))
          parent.push(...Array.from({ length: 50 }, () => clone(obj[key])));
        else obj[key] = m.value;
        break;
      default: // wrong type or value
        obj[key] = m.value;
    }
  }
  return root;
}

// ── Bytes ──────────────────────────────────────────────────────────────────────────────

/** Byte sequences that are not valid UTF-8, and structural bytes. */
const BAD_BYTES: readonly number[][] = [
  [0xff],
  [0xfe],
  [0x80],
  [0xc3],
  [0xc0, 0xaf],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xef, 0xbb, 0xbf],
  [0x00],
  [0x0d],
  [0x0a],
  [0x22],
  [0x5c],
  [0x5c, 0x75],
  [0x7b],
  [0x7d],
  [0x5b],
  [0x5d],
  [0x2c],
  [0x3a],
];

export interface ByteEdit {
  op: number;
  at: number;
  len: number;
  bytes: number[];
}

export const byteEdit: fc.Arbitrary<ByteEdit> = fc.record({
  op: fc.nat({ max: 7 }),
  at: fc.nat(),
  len: fc.nat({ max: 64 }),
  bytes: fc.oneof(fc.constantFrom(...BAD_BYTES), fc.array(fc.nat({ max: 255 }), { maxLength: 6 })),
});

/** `input` with byte-level damage: cut, spliced, flipped, invalid UTF-8, stray newlines. */
export function damage(input: Buffer, edits: readonly ByteEdit[]): Buffer {
  let b = Buffer.from(input);
  for (const e of edits) {
    const at = b.length ? e.at % (b.length + 1) : 0;
    const ins = Buffer.from(e.bytes);
    switch (e.op) {
      case 0: // cut short
        b = b.subarray(0, at);
        break;
      case 1: // bytes deleted
        b = Buffer.concat([b.subarray(0, at), b.subarray(at + Math.max(1, e.len))]);
        break;
      case 2: // a byte flipped
        if (at < b.length) b[at] = (b[at]! ^ (1 << (e.len % 8))) & 0xff;
        break;
      case 3: // a stretch repeated
        b = Buffer.concat([b.subarray(0, at + e.len), b.subarray(at)]);
        break;
      case 4: // a newline inside (the line cut in two)
        b = Buffer.concat([b.subarray(0, at), Buffer.from([0x0a]), b.subarray(at)]);
        break;
      default: // bytes inserted
        b = Buffer.concat([b.subarray(0, at), ins, b.subarray(at)]);
    }
  }
  return b;
}

/** Raw bytes with a bias toward JSON structure characters and newlines. */
export const rawBytes: fc.Arbitrary<Buffer> = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.nat({ max: 255 }) },
      {
        weight: 3,
        arbitrary: fc.constantFrom(0x7b, 0x7d, 0x5b, 0x5d, 0x22, 0x5c, 0x2c, 0x3a, 0x0a, 0x20),
      },
      { weight: 2, arbitrary: fc.integer({ min: 0x61, max: 0x7a }) },
    ),
    { maxLength: 300 },
  )
  .map((a) => Buffer.from(a));

/** Counts of '\n' in `b`. */
export function newlines(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(0x0a); i !== -1; i = b.indexOf(0x0a, i + 1)) n++;
  return n;
}

/**
 * `value` as pretty-printed JSON (a record over many lines, as some writers leave one),
 * or on one line when it nests deeper than 64 levels: indentation grows with the square
 * of the depth (a 2,500-deep value prints as 12 MB of spaces, and costs as much as a
 * thousand ordinary inputs to make and read). Deep values are fuzzed on one line.
 */
export function prettyJson(value: unknown): string {
  const compact = JSON.stringify(value) ?? 'null';
  let depth = 0;
  let inString = false;
  for (let i = 0; i < compact.length; i++) {
    const c = compact.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > 64) return compact;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return JSON.stringify(value, null, 2) ?? 'null';
}
