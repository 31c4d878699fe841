/**
 * The integration tier's token-leak scan: tokens as UTF-8 and UTF-16LE text, by pattern,
 * and inside Snappy-compressed LevelDB blocks (browser storage), where the compressed
 * bytes need not hold a token that the stored value does.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import {
  levelDbBlocks,
  scanForSecrets,
  snappyDecompress,
  type Secret,
} from '../../integration/tokenLeak.ts';

const TOKEN = 'sk_live_test_token';
const secrets: Secret[] = [
  { name: 'token', value: TOKEN },
  { name: 'demo', value: /sk_live_demo_[A-Za-z0-9_-]{24}/ },
];

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/**
 * Snappy bytes of `prefix + TOKEN`, where `prefix` holds the token's two halves apart:
 * the token itself is written as two back-references, so it is not in these bytes.
 */
function compressedWithToken(prefix: string): { bytes: Buffer; plain: string } {
  const plain = prefix + TOKEN;
  const first = prefix.indexOf('sk_live_');
  const second = prefix.indexOf('test_token');
  const copy = (length: number, from: number, at: number) => {
    const offset = at - from;
    return [((length - 1) << 2) | 2, offset & 0xff, offset >> 8];
  };
  const literal = Buffer.from(prefix);
  return {
    plain,
    bytes: Buffer.from([
      ...varint(plain.length),
      (literal.length - 1) << 2,
      ...literal,
      ...copy(8, first, prefix.length),
      ...copy(10, second, prefix.length + 8),
    ]),
  };
}

/** A LevelDB table of one Snappy-compressed data block holding `block` (as the browser writes). */
function table(block: Buffer): Buffer {
  const trailer = (type: number) => Buffer.from([type, 0, 0, 0, 0]);
  const restarts = Buffer.from([0, 0, 0, 0, 1, 0, 0, 0]);
  const data = Buffer.concat([block, trailer(1)]);
  const handle = [...varint(0), ...varint(block.length)];
  const index = Buffer.concat([Buffer.from([0, 1, handle.length, 0x7a, ...handle]), restarts]);
  const indexAt = data.length;
  const meta = restarts;
  const metaAt = indexAt + index.length + 5;
  const footer = Buffer.alloc(48);
  Buffer.from([
    ...varint(metaAt),
    ...varint(meta.length),
    ...varint(indexAt),
    ...varint(index.length),
  ]).copy(footer);
  Buffer.from([0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb]).copy(footer, 40);
  return Buffer.concat([data, index, trailer(0), meta, trailer(0), footer]);
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'asi-leak-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('token-leak scan', () => {
  test('Snappy: literals and back-references decompress to the stored text', () => {
    const { bytes, plain } = compressedWithToken('key=sk_live_; other=test_token; value=');
    assert.equal(bytes.includes(TOKEN), false, 'the token is not in the compressed bytes');
    assert.equal(snappyDecompress(bytes).toString(), plain);
  });

  test('a token only a LevelDB block holds is found there, not in the raw bytes', () => {
    const { bytes } = compressedWithToken('key=sk_live_; other=test_token; value=');
    const root = path.join(dir, 'leveldb');
    mkdirSync(root);
    writeFileSync(path.join(root, '000005.ldb'), table(bytes));
    assert.equal(levelDbBlocks(table(bytes)).length, 1);
    const report = scanForSecrets([root], secrets);
    assert.equal(report.tables, 1);
    assert.deepEqual(
      report.findings.map((f) => [path.basename(f.file), f.secret, f.form]),
      [['000005.ldb', 'token', 'leveldb block, utf-8']],
    );
    // The same bytes in a file that is not a table: nothing to decompress, nothing found.
    const other = path.join(dir, 'not-a-table');
    mkdirSync(other);
    writeFileSync(path.join(other, 'x.log'), table(bytes));
    assert.deepEqual(scanForSecrets([other], secrets).findings, []);
  });

  test('UTF-8, UTF-16LE (either alignment) and a demo token by pattern', () => {
    const root = path.join(dir, 'text');
    mkdirSync(path.join(root, 'logs'), { recursive: true });
    writeFileSync(path.join(root, 'logs', 'a.log'), `header ${TOKEN} trailer`);
    writeFileSync(
      path.join(root, 'b.bin'),
      Buffer.concat([Buffer.from([1]), Buffer.from(TOKEN, 'utf16le')]),
    );
    writeFileSync(path.join(root, 'c.json'), `{"t":"sk_live_demo_${'A1_-'.repeat(6)}"}`);
    writeFileSync(
      path.join(root, 'd.bin'),
      Buffer.from(`x sk_live_demo_${'b'.repeat(24)}`, 'utf16le'),
    );
    writeFileSync(path.join(root, 'clean.txt'), 'sk_live_test_toke sk_live_demo_short');
    const report = scanForSecrets([root], secrets);
    assert.equal(report.files, 5);
    assert.deepEqual(
      report.findings.map((f) => [path.relative(root, f.file), f.secret, f.form]),
      [
        ['b.bin', 'token', 'utf-16le'],
        ['c.json', 'demo', 'utf-8'],
        ['d.bin', 'demo', 'utf-16le'],
        [path.join('logs', 'a.log'), 'token', 'utf-8'],
      ],
    );
  });
});
