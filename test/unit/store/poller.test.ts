import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { Poller } from '../../../src/store/poller.ts';

/** Lets the awaited tick and the rescheduling after it run (setImmediate is not mocked). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A tick whose outcomes are scripted; past the script it keeps answering the last one. */
function scriptedTick(outcomes: (boolean | Error)[]) {
  const calls: number[] = [];
  let elapsed = 0;
  const tick = async () => {
    calls.push(elapsed);
    const outcome = outcomes[Math.min(calls.length - 1, outcomes.length - 1)];
    if (outcome instanceof Error) throw outcome;
    return outcome ?? true;
  };
  return {
    tick,
    calls,
    /** Advances the mocked clock and lets the tick settle. */
    async advance(ms: number) {
      elapsed += ms;
      mock.timers.tick(ms);
      await settle();
    },
  };
}

/**
 * Advances until the next tick and returns how long that took; fails if it took
 * longer than `limit` ms. Checks one ms before the expected moment too.
 */
async function expectNextTickAfter(
  t: ReturnType<typeof scriptedTick>,
  delay: number,
): Promise<void> {
  const before = t.calls.length;
  await t.advance(delay - 1);
  assert.equal(t.calls.length, before, `no tick 1 ms before ${delay} ms`);
  await t.advance(1);
  assert.equal(t.calls.length, before + 1, `a tick at ${delay} ms`);
}

beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
afterEach(() => mock.timers.reset());

describe('Poller', () => {
  it('never ticks while inactive', async () => {
    const t = scriptedTick([true]);
    const poller = new Poller(t.tick, () => 1000);
    await t.advance(3_600_000);
    assert.equal(t.calls.length, 0);
    poller.dispose();
  });

  it('ticks at the interval while active, starting one interval after activation', async () => {
    const t = scriptedTick([true]);
    const poller = new Poller(t.tick, () => 1000);
    poller.setActive(true);
    await expectNextTickAfter(t, 1000);
    await expectNextTickAfter(t, 1000);
    await expectNextTickAfter(t, 1000);
    assert.deepEqual(t.calls, [1000, 2000, 3000]);
    poller.dispose();
  });

  it('activating twice does not schedule twice', async () => {
    const t = scriptedTick([true]);
    const poller = new Poller(t.tick, () => 1000);
    poller.setActive(true);
    poller.setActive(true);
    await t.advance(1000);
    assert.equal(t.calls.length, 1);
    await t.advance(999);
    assert.equal(t.calls.length, 1);
    poller.dispose();
  });

  it('doubles the delay after each failure', async () => {
    const t = scriptedTick([false]);
    const poller = new Poller(t.tick, () => 1000);
    poller.setActive(true);
    await expectNextTickAfter(t, 1000);
    await expectNextTickAfter(t, 2000);
    await expectNextTickAfter(t, 4000);
    await expectNextTickAfter(t, 8000);
    await expectNextTickAfter(t, 16000);
    poller.dispose();
  });

  it('a tick that throws counts as a failure', async () => {
    const t = scriptedTick([new Error('boom')]);
    const poller = new Poller(t.tick, () => 1000);
    poller.setActive(true);
    await expectNextTickAfter(t, 1000);
    await expectNextTickAfter(t, 2000);
    await expectNextTickAfter(t, 4000);
    poller.dispose();
  });

  it('caps the backoff at 10 minutes', async () => {
    const t = scriptedTick([false]);
    const poller = new Poller(t.tick, () => 100_000);
    poller.setActive(true);
    await expectNextTickAfter(t, 100_000);
    await expectNextTickAfter(t, 200_000);
    await expectNextTickAfter(t, 400_000);
    await expectNextTickAfter(t, 600_000);
    await expectNextTickAfter(t, 600_000);
    assert.equal(poller.nextDelay(), 600_000);
    poller.dispose();
  });

  it('stays at the cap after many failures (no overflow)', async () => {
    const t = scriptedTick([false]);
    const poller = new Poller(t.tick, () => 60_000);
    poller.setActive(true);
    await t.advance(60_000);
    for (let i = 0; i < 20; i++) await t.advance(600_000);
    assert.equal(t.calls.length, 21);
    assert.equal(poller.nextDelay(), 600_000);
    await expectNextTickAfter(t, 600_000);
    poller.dispose();
  });

  it('with an interval above 10 minutes, backoff keeps the interval', async () => {
    const t = scriptedTick([false]);
    const poller = new Poller(t.tick, () => 900_000);
    poller.setActive(true);
    await expectNextTickAfter(t, 900_000);
    await expectNextTickAfter(t, 900_000);
    await expectNextTickAfter(t, 900_000);
    poller.dispose();
  });

  it('a success resets the delay to the interval', async () => {
    const t = scriptedTick([false, false, false, true, false]);
    const poller = new Poller(t.tick, () => 1000);
    poller.setActive(true);
    await expectNextTickAfter(t, 1000); // fails
    await expectNextTickAfter(t, 2000); // fails
    await expectNextTickAfter(t, 4000); // fails
    await expectNextTickAfter(t, 8000); // succeeds
    await expectNextTickAfter(t, 1000); // back to normal; fails
    await expectNextTickAfter(t, 2000);
    poller.dispose();
  });

  it('an interval of 0 means no polling', async () => {
    const t = scriptedTick([true]);
    const poller = new Poller(t.tick, () => 0);
    poller.setActive(true);
    await t.advance(3_600_000);
    assert.equal(t.calls.length, 0);
    poller.dispose();
  });

  it('an interval changed to 0 while polling stops after the current tick', async () => {
    let interval = 1000;
    const t = scriptedTick([true]);
    const poller = new Poller(t.tick, () => interval);
    poller.setActive(true);
    await t.advance(1000);
    assert.equal(t.calls.length, 1);
    interval = 0;
    await t.advance(1000);
    assert.equal(t.calls.length, 2, 'the tick already scheduled still runs');
    await t.advance(3_600_000);
    assert.equal(t.calls.length, 2);
    poller.dispose();
  });

  it('setActive(false) stops polling; setActive(true) starts again at the interval', async () => {
    const t = scriptedTick([true]);
    const poller = new Poller(t.tick, () => 1000);
    poller.setActive(true);
    await t.advance(1000);
    await t.advance(500);
    poller.setActive(false);
    await t.advance(3_600_000);
    assert.equal(t.calls.length, 1);
    poller.setActive(true);
    await expectNextTickAfter(t, 1000);
    poller.dispose();
  });

  it('setActive(false) during a tick in flight: nothing is scheduled after it', async () => {
    let release: (ok: boolean) => void = () => undefined;
    let calls = 0;
    const poller = new Poller(
      () => {
        calls++;
        return new Promise<boolean>((resolve) => (release = resolve));
      },
      () => 1000,
    );
    poller.setActive(true);
    mock.timers.tick(1000);
    await settle();
    assert.equal(calls, 1);
    poller.setActive(false);
    release(true);
    await settle();
    mock.timers.tick(3_600_000);
    await settle();
    assert.equal(calls, 1);
    poller.dispose();
  });

  it('dispose stops polling', async () => {
    const t = scriptedTick([true]);
    const poller = new Poller(t.tick, () => 1000);
    poller.setActive(true);
    poller.dispose();
    await t.advance(3_600_000);
    assert.equal(t.calls.length, 0);
  });
});

describe('Poller first delay and restart', () => {
  it('a first delay replaces the first interval only', async () => {
    const t = scriptedTick([true]);
    const poller = new Poller(t.tick, () => 180_000);
    poller.setActive(true, 2_000);
    await expectNextTickAfter(t, 2_000);
    await expectNextTickAfter(t, 180_000);
    poller.dispose();
  });

  it('restart applies a changed interval now', async () => {
    let interval = 180_000;
    const t = scriptedTick([true]);
    const poller = new Poller(t.tick, () => interval);
    poller.setActive(true);
    await t.advance(1_000);
    interval = 1_000;
    poller.restart();
    await expectNextTickAfter(t, 1_000);
    await expectNextTickAfter(t, 1_000);
    poller.dispose();
  });

  it('restart does nothing while inactive', async () => {
    const t = scriptedTick([true]);
    const poller = new Poller(t.tick, () => 1_000);
    poller.restart();
    await t.advance(10_000);
    assert.equal(t.calls.length, 0);
    poller.dispose();
  });
});
