import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lowerBound, sortedHas, upperBound } from '../../../src/util/sortedSearch.ts';

test('lowerBound, upperBound and sortedHas agree with a linear search, duplicates and ends included', () => {
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 200; round++) {
    const sorted = Array.from({ length: Math.floor(random() * 20) }, () =>
      Math.floor(random() * 30),
    ).sort((a, b) => a - b);
    const typed = Uint32Array.from(sorted);
    for (let value = -1; value <= 31; value++) {
      const expected = sorted.findIndex((x) => x >= value);
      assert.equal(lowerBound(sorted, value), expected === -1 ? sorted.length : expected);
      assert.equal(lowerBound(typed, value), lowerBound(sorted, value));
      assert.equal(sortedHas(typed, value), sorted.includes(value));
      const above = sorted.findIndex((x) => x > value);
      assert.equal(upperBound(typed, value), above === -1 ? sorted.length : above);
    }
  }
});
