/**
 * A small seeded pseudo-random generator (mulberry32) so that the demo data, the
 * transcripts and every test fixture built from them are identical for one seed.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  bool(probability = 0.5): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick() needs at least one item');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** A version-4-shaped UUID drawn from this generator (not cryptographically random). */
  uuid(): string {
    const hex = (n: number) =>
      Array.from({ length: n }, () => Math.floor(this.next() * 16).toString(16)).join('');
    const variant = ['8', '9', 'a', 'b'][Math.floor(this.next() * 4)];
    return `${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(12)}`;
  }

  /** A child generator whose sequence depends only on this seed and the label. */
  fork(label: string): SeededRandom {
    let h = 2166136261;
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 16777619);
    return new SeededRandom((this.state ^ h) >>> 0);
  }
}

/**
 * Deals the items in rounds: each round is a fresh shuffle, drawn from `rng` when the
 * round starts, so every item comes once before any comes again.
 */
export class ShuffledDeck<T> {
  private readonly rng: SeededRandom;
  private readonly items: readonly T[];
  private order: number[] = [];
  private pos = 0;

  constructor(rng: SeededRandom, items: readonly T[]) {
    this.rng = rng;
    this.items = items;
  }

  next(): T {
    if (this.pos >= this.order.length) {
      const order = this.items.map((_, i) => i);
      for (let i = order.length - 1; i > 0; i--) {
        const j = this.rng.int(0, i);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      this.order = order;
      this.pos = 0;
    }
    return this.items[this.order[this.pos++]!]!;
  }
}
