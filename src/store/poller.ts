/**
 * Refreshes on an interval while active, backing off after failures (×2 up to 10 minutes)
 * and back to normal after a success. The extension runs two: full refreshes while the
 * view is visible, waiting counts only while it is hidden.
 */
export class Poller {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private running = false;
  private readonly tick: () => Promise<boolean>;
  private readonly intervalMs: () => number;

  /** `tick` resolves true when every refresh succeeded. */
  constructor(tick: () => Promise<boolean>, intervalMs: () => number) {
    this.tick = tick;
    this.intervalMs = intervalMs;
  }

  /** `firstDelayMs`: when the first tick comes after activation (default: one interval). */
  setActive(active: boolean, firstDelayMs?: number): void {
    if (active === this.running) return;
    this.running = active;
    if (active) this.schedule(firstDelayMs ?? this.intervalMs());
    else this.stop();
  }

  /** Schedules the next tick one (current) interval from now, if active. */
  restart(): void {
    if (this.running) this.schedule(this.nextDelay());
  }

  /** The delay before the next tick, given the failures so far. */
  nextDelay(): number {
    const base = this.intervalMs();
    return Math.min(base * 2 ** this.failures, Math.max(base, 600_000));
  }

  dispose(): void {
    this.running = false;
    this.stop();
  }

  private schedule(delay = this.intervalMs()): void {
    this.stop();
    if (!this.running || this.intervalMs() <= 0) return;
    this.timer = setTimeout(async () => {
      const ok = await this.tick().catch(() => false);
      this.failures = ok ? 0 : Math.min(this.failures + 1, 10);
      if (this.running) this.schedule(this.nextDelay());
    }, delay);
  }

  private stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
