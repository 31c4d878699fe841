import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CODE_ELEM,
  JsonScanner,
  K_ARRAY,
  K_STRING,
  SCAN_DONE,
  SCAN_ERROR,
  SCAN_MORE,
  decodeString,
} from '../../../../src/domain/transcript/jsonScanner.ts';
import { SeededRandom } from '../../../../src/demo/random.ts';

const noop = { value() {} };

function scan(text: string): number {
  const s = new JsonScanner([]);
  const buf = Buffer.from(text, 'utf8');
  return s.feed(buf, 0, buf.length, noop);
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe('JsonScanner', () => {
  it('agrees with JSON.parse on valid and invalid one-line values', () => {
    const cases = [
      '{}',
      '[]',
      '{"a":1}',
      '{"a":[1,2,{"b":null}],"c":"x\\"y","d":true,"e":false}',
      '  {"a" : -0.5e+10 }  ',
      '"just a string"',
      '42',
      '{"a":"\\u00e9\\n\\t\\/"}',
      '{"a":1,}',
      '{"a":01}',
      '{"a":1.}',
      '{"a":.5}',
      '{"a":tru}',
      '{"a":"unterminated}',
      '{"a":"bad \\x escape"}',
      '{"a":"tab\there"}',
      '{"a":1}{"b":2}',
      '{"a":1]',
      '[1,2}',
      '{"a" 1}',
      '{,}',
      '[,1]',
      '{"a":-}',
      '{"a":"\\u12g4"}',
      '{"a":1e}',
      '{"a":nulls}',
    ];
    for (const text of cases) {
      const status = scan(text);
      assert.equal(status === SCAN_DONE, parses(text), `${text}: scanner ${status}`);
    }
  });

  it('agrees with JSON.parse on randomly damaged records', () => {
    const rng = new SeededRandom(7);
    const record = JSON.stringify({
      type: 'assistant',
      message: { id: 'msg_1', content: [{ type: 'text', text: 'He said "hi" \\ there\n' }] },
      n: [1, -2.5, 3e8, true, false, null],
    });
    for (let i = 0; i < 2000; i++) {
      const chars = [...record];
      const edits = rng.int(1, 3);
      for (let e = 0; e < edits; e++) {
        const at = rng.int(0, chars.length - 1);
        const op = rng.int(0, 2);
        if (op === 0) chars.splice(at, 1);
        else if (op === 1)
          chars.splice(at, 0, rng.pick(['{', '}', '[', ']', '"', ',', ':', '\\', 'x', '1', ' ']));
        else chars[at] = rng.pick(['{', '}', '"', ',', '0', 'e', '-', '.']);
      }
      const text = chars.join('');
      const status = scan(text);
      // A damaged record either scans complete (then it must parse) or it does not parse;
      // SCAN_MORE means "may continue on the next line", which JSON.parse also rejects alone.
      assert.equal(status === SCAN_DONE, parses(text), text);
    }
  });

  it('continues a pretty-printed value across lines', () => {
    const s = new JsonScanner([]);
    const lines = JSON.stringify({ a: [1, { b: 'x' }], c: 'y' }, null, 2).split('\n');
    const statuses = lines.map((line) => {
      const buf = Buffer.from(line);
      return s.feed(buf, 0, buf.length, noop);
    });
    assert.deepEqual(statuses.slice(0, -1), new Array(lines.length - 1).fill(SCAN_MORE));
    assert.equal(statuses.at(-1), SCAN_DONE);
  });

  it('rejects a string that runs to the end of the line', () => {
    const s = new JsonScanner([]);
    const buf = Buffer.from('{"a":"no end');
    assert.equal(s.feed(buf, 0, buf.length, noop), SCAN_ERROR);
    assert.match(s.error, /unterminated/);
  });

  it('reports values under interesting keys with their path', () => {
    const seen: string[] = [];
    const s = new JsonScanner(['type', 'content']);
    const visitor = {
      value(sc: JsonScanner, depth: number, kind: number, buf: Buffer, start: number, end: number) {
        const path = Array.from(sc.codes.subarray(1, depth + 1)).join('/');
        const what =
          kind === K_STRING
            ? decodeString(sc, buf, start, end)
            : kind === K_ARRAY
              ? '[]'
              : String(kind);
        const element = sc.codes[depth] === CODE_ELEM ? `#${sc.idx[depth]}` : '';
        seen.push(`${depth}:${path}${element}=${what}`);
      },
    };
    const buf = Buffer.from(
      JSON.stringify({
        type: 'a\u00e9"',
        other: { type: 'nested' },
        content: ['x', { type: 't' }],
      }),
    );
    assert.equal(s.feed(buf, 0, buf.length, visitor), SCAN_DONE);
    assert.deepEqual(seen, [
      '1:0=aé"',
      '2:-1/0=nested',
      '1:1=[]',
      '2:1/-2#0=x',
      '2:1/-2#1=6',
      '3:1/-2/0=t',
    ]);
  });
});
