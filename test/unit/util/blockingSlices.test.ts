import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BlockingSlices } from '../../../src/util/blockingSlices.ts';

// A budget of -1 ms makes a call slow whatever it took; Infinity makes it quick.
const SLOW = () => -1;
const QUICK = () => Infinity;

test('calls turn slow after two slow calls in a row, not after slow ones apart', () => {
  const slices = new BlockingSlices();
  assert.equal(
    slices.run(() => 7, SLOW),
    7,
  );
  slices.run(() => 0, QUICK);
  slices.run(() => 0, SLOW);
  assert.equal(slices.slow, false);
  slices.run(() => 0, SLOW);
  assert.equal(slices.slow, true);
  slices.run(() => 0, QUICK);
  assert.equal(slices.slow, true, 'once slow, the rest stays promise calls');
});

test('the budget is given the call result', () => {
  const slices = new BlockingSlices();
  const seen: number[] = [];
  slices.run(
    () => 42,
    (n) => (seen.push(n), Infinity),
  );
  assert.deepEqual(seen, [42]);
});

test('pause gives the event loop a turn only once a slice has run its time', async () => {
  const slices = new BlockingSlices();
  let turns = 0;
  const count = () => setImmediate(() => turns++);
  count();
  await slices.pause();
  assert.equal(turns, 0, 'a fresh slice does not yield');
  const until = performance.now() + 10;
  while (performance.now() < until);
  await slices.pause();
  assert.equal(turns, 1, 'a slice past its time yields');
  count();
  await slices.pause();
  assert.equal(turns, 1, 'and a new slice starts');
});
