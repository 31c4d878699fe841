/**
 * Titles: cleanTitle reads only the start of a long text; it must give what collapsing
 * and cutting the whole text gives, wherever whitespace runs and surrogate pairs fall.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanTitle } from '../../../../src/sources/local/text.ts';

/** cleanTitle as it was: the whole text repaired and collapsed, then cut. */
function wholeText(text: string, max: number): string | undefined {
  const flat = text
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/\s+/g, ' ')
    .trim();
  if (!flat) return undefined;
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

const PIECES = [
  'a',
  'word ',
  ' ',
  '   ',
  '\n\n',
  '\t',
  '\u00a0',
  '\u2028',
  '😀',
  '\uD83D',
  '\uDE00',
  'é',
];

/** A reproducible pseudo-random text of `n` pieces. */
function randomText(seed: number, n: number): string {
  let x = seed;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out += PIECES[x % PIECES.length];
  }
  return out;
}

test('a long text gets the title its whole text gives', () => {
  for (const max of [1, 2, 5, 20, 160]) {
    for (let seed = 1; seed <= 300; seed++) {
      const text = randomText(seed, 40 + (seed % 7) * max);
      assert.equal(cleanTitle(text, max), wholeText(text, max), `max ${max}, seed ${seed}`);
    }
  }
});

test('whitespace runs and pairs at the edge of what is read, leading whitespace', () => {
  const max = 10;
  for (let k = 0; k < 40; k++) {
    const lead = ' '.repeat(k);
    const text = `${lead}${'x'.repeat(max + (k % 5))}${' '.repeat(k)}😀${'y'.repeat(3 * max)}`;
    assert.equal(cleanTitle(text, max), wholeText(text, max), `k ${k}`);
  }
  // All whitespace, and a short title after a long run.
  assert.equal(cleanTitle(' '.repeat(1000), max), undefined);
  assert.equal(cleanTitle(`${' \n'.repeat(500)}short`, max), 'short');
  assert.equal(cleanTitle(`${'\uD83D'.repeat(50)}`, max), wholeText('\uD83D'.repeat(50), max));
});
