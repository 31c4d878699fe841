/**
 * The scanner's validating mode against JSON.parse, in both of its walks: the WebAssembly
 * kernel (bytes loaded into its buffer) and the JS loop (any other buffer).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileKernel } from '../../../../scripts/build-wasm.ts';
import { SeededRandom } from '../../../../src/demo/random.ts';
import { kernel } from '../../../../src/domain/json/skimKernel.ts';
import {
  JSON_DONE,
  JSON_INVALID,
  JSON_MORE,
  JsonValidator,
  validatesInKernel,
} from '../../../../src/domain/json/validate.ts';
import { VALIDATE_KERNEL_WASM } from '../../../../src/domain/json/validateKernelWasm.ts';

const walks = [
  { name: 'JS', bytes: (text: string) => Buffer.from(text, 'utf8') },
  ...(kernel
    ? [{ name: 'kernel', bytes: (text: string) => kernel!.load(Buffer.from(text, 'utf8')) }]
    : []),
];

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const CASES = [
  '{}',
  '[]',
  '{"a":1}',
  '{"a":[1,2,{"b":null}],"c":"x\\"y","d":true,"e":false}',
  '  {"a" : -0.5e+10 }  ',
  '"just a string"',
  '42',
  '-0',
  '1E5',
  '{"a":"\\u00e9\\n\\t\\/"}',
  '{"a":"\\uD83D\\uDE00 a long string that takes the 16-byte loop \\\\ twice over"}',
  '{"a":1,}',
  '{"a":01}',
  '{"a":1.}',
  '{"a":.5}',
  '{"a":tru}',
  '{"a":fals}',
  '{"a":nul}',
  '{"a":"unterminated}',
  '{"a":"bad \\x escape"}',
  '{"a":"tab\there and then some more bytes to reach the wide loop"}',
  '{"a":1}{"b":2}',
  '{"a":1]',
  '[1,2}',
  '{"a" 1}',
  '{,}',
  '[,1]',
  '{"a":-}',
  '{"a":"\\u12g4"}',
  '{"a":1e}',
  '{"a":1e+}',
  '{"a":nulls}',
  '{"a":truefalse}',
  '{1:2}',
  '[1 2]',
  '}',
  'x',
];

describe('JsonValidator', () => {
  it('validates in WebAssembly here (Node has WebAssembly SIMD)', () => {
    assert.ok(validatesInKernel(), 'the transcript index would silently run the slower JS loop');
  });

  it('the committed module is what validateKernel.wat compiles to (`npm run build:wasm`)', async () => {
    const compiled = Buffer.from(await compileKernel('validateKernel'));
    assert.equal(VALIDATE_KERNEL_WASM, compiled.toString('base64'));
  });

  for (const walk of walks) {
    it(`${walk.name}: agrees with JSON.parse on valid and invalid one-line values`, () => {
      const v = new JsonValidator();
      for (const text of CASES) {
        v.reset();
        const buf = walk.bytes(text);
        const status = v.feed(buf, 0, buf.length);
        assert.equal(status === JSON_DONE, parses(text), `${text}: ${status} ${v.error}`);
      }
    });

    it(`${walk.name}: agrees with JSON.parse on randomly damaged records`, () => {
      const rng = new SeededRandom(7);
      const record = JSON.stringify({
        type: 'assistant',
        message: {
          id: 'msg_1',
          content: [
            { type: 'text', text: 'He said "hi" \\ there\n, and \u0001 é\u2028 then left' },
          ],
        },
        n: [1, -2.5, 3e8, true, false, null, 0.25e-3],
      });
      const v = new JsonValidator();
      for (let i = 0; i < 3000; i++) {
        const chars = [...record];
        for (let e = rng.int(1, 3); e > 0; e--) {
          const at = rng.int(0, chars.length - 1);
          const op = rng.int(0, 2);
          const pick = ['{', '}', '[', ']', '"', ',', ':', '\\', 'x', '1', ' ', '\t', 'u', 'e'];
          if (op === 0) chars.splice(at, 1);
          else if (op === 1) chars.splice(at, 0, rng.pick(pick));
          else chars[at] = rng.pick(['{', '}', '"', ',', '0', 'e', '-', '.', '\u0007']);
        }
        const text = chars.join('');
        v.reset();
        const buf = walk.bytes(text);
        const status = v.feed(buf, 0, buf.length);
        // JSON_MORE means "may continue on the next line", which JSON.parse also rejects.
        assert.equal(status === JSON_DONE, parses(text), text);
      }
    });

    it(`${walk.name}: continues a pretty-printed value across lines`, () => {
      const v = new JsonValidator();
      const lines = JSON.stringify({ a: [1, { b: 'x' }], c: 'y' }, null, 2).split('\n');
      const statuses = lines.map((line) => {
        const buf = walk.bytes(line);
        return v.feed(buf, 0, buf.length);
      });
      assert.deepEqual(statuses.slice(0, -1), new Array(lines.length - 1).fill(JSON_MORE));
      assert.equal(statuses.at(-1), JSON_DONE);
    });

    it(`${walk.name}: rejects a string that runs to the end of the line, and nesting past 1000`, () => {
      const v = new JsonValidator();
      let buf = walk.bytes('{"a":"no end');
      assert.equal(v.feed(buf, 0, buf.length), JSON_INVALID);
      assert.match(v.error, /unterminated/);
      v.reset();
      buf = walk.bytes(`${'['.repeat(1001)}1${']'.repeat(1001)}`);
      assert.equal(v.feed(buf, 0, buf.length), JSON_INVALID);
      assert.equal(v.error, 'nesting too deep');
      v.reset();
      buf = walk.bytes(`${'['.repeat(1000)}1${']'.repeat(1000)}`);
      assert.equal(v.feed(buf, 0, buf.length), JSON_DONE);
    });
  }

  it('a value spanning lines keeps its open containers while another validator runs', () => {
    const a = new JsonValidator();
    const b = new JsonValidator();
    const lines = ['{"a": [', '  [{"b": 1}', '  ]', ']}'];
    for (const [i, line] of lines.entries()) {
      // Every line through the kernel when there is one, with another value in between.
      const buf = walks.at(-1)!.bytes(line);
      const status = a.feed(buf, 0, buf.length);
      assert.equal(status, i === lines.length - 1 ? JSON_DONE : JSON_MORE, line);
      b.reset();
      const other = walks.at(-1)!.bytes('[[{"x":[{}]}]');
      assert.equal(b.feed(other, 0, other.length), JSON_MORE);
    }
    // The same lines alternating between the two walks.
    a.reset();
    for (const [i, line] of lines.entries()) {
      const buf = walks[i % walks.length]!.bytes(line);
      assert.equal(a.feed(buf, 0, buf.length), i === lines.length - 1 ? JSON_DONE : JSON_MORE);
    }
  });
});
