/**
 * Blocking file-system calls in slices of a few milliseconds, with a turn of the event
 * loop between slices: many small calls (a listing, small files) then cost one
 * thread-pool round trip per slice instead of one per call, and the thread still takes
 * its other work. Once calls are slow (not the page cache: a network disk), the caller
 * switches to promise calls, so a slow disk never holds the thread for long.
 */

import { setImmediate as nextTurn } from 'node:timers/promises';

/** A slice ends after this long. */
const SLICE_MS = 4;
/** Slow calls in a row (one may just have lost the CPU) that make the rest promise calls. */
const SLOW_STREAK = 2;

export class BlockingSlices {
  /** Whether calls were slow: the caller uses promise calls from now on. */
  slow = false;
  private sliceStart = performance.now();
  private slowInARow = 0;

  /** Waits for a turn of the event loop once the current slice has run its time. */
  async pause(): Promise<void> {
    if (performance.now() - this.sliceStart < SLICE_MS) return;
    await nextTurn();
    this.sliceStart = performance.now();
  }

  /** `call`'s result; it counts as slow when it took longer than `budgetMs(result)`. */
  run<T>(call: () => T, budgetMs: (result: T) => number): T {
    const started = performance.now();
    const result = call();
    this.slowInARow = performance.now() - started > budgetMs(result) ? this.slowInARow + 1 : 0;
    if (this.slowInARow >= SLOW_STREAK) this.slow = true;
    return result;
  }
}
