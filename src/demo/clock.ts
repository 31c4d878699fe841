/**
 * Time as the demo backend sees it. The data set is laid out relative to a fixed
 * "now" so derived values (waiting, stale, ages) are stable for one seed; mutations
 * made while the server runs advance from there with the wall clock so their
 * timestamps still sort after the generated ones.
 */
export class DemoClock {
  readonly epoch: Date;
  private readonly bootWallMs = Date.now();

  constructor(epoch: Date) {
    this.epoch = new Date(epoch.getTime());
  }

  nowMs(): number {
    return this.epoch.getTime() + (Date.now() - this.bootWallMs);
  }

  nowIso(): string {
    return new Date(this.nowMs()).toISOString();
  }
}

/** The default epoch: the real current time rounded down to the minute. */
export function defaultEpoch(): Date {
  const ms = Date.now();
  return new Date(ms - (ms % 60_000));
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}
