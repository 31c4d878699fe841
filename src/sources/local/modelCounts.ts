/**
 * The models a transcript used, in the order they first appeared, with how many responses
 * each gave: both scanners keep one, save it with their state and name the main model
 * from it.
 */
export class ModelCounts {
  private readonly order: string[] = [];
  private readonly counts = new Map<string, number>();

  /** A model announced (Codex turn_context) before any of its responses. */
  see(model: string): void {
    if (this.counts.has(model)) return;
    this.counts.set(model, 0);
    this.order.push(model);
  }

  /** One response of `model`. */
  count(model: string): void {
    const n = this.counts.get(model);
    if (n === undefined) this.order.push(model);
    this.counts.set(model, (n ?? 0) + 1);
  }

  /** The model with the most responses (the first of equals), else `fallback`. */
  main(fallback?: string): string | undefined {
    let main = fallback;
    let best = 0;
    for (const m of this.order) {
      const n = this.counts.get(m) ?? 0;
      if (n > best) {
        best = n;
        main = m;
      }
    }
    return main;
  }

  /** Every model, in first-seen order. */
  list(): string[] {
    return this.order.slice();
  }

  /** As saved in a scanner's state. */
  save(): [string, number][] {
    return this.order.map((m) => [m, this.counts.get(m) ?? 0]);
  }

  restore(saved: readonly (readonly [string, number])[]): void {
    for (const [model, n] of saved) {
      this.order.push(model);
      this.counts.set(model, n);
    }
  }
}
