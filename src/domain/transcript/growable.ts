/**
 * Append-only typed arrays that double when full: an index over millions of lines costs a
 * few bytes per line instead of a JS object (or boxed number) per line.
 *
 * Only two element types are used (Float64 for byte offsets and entry counts, Uint32 for
 * the rest): push() sits on the indexing hot path, and more typed array kinds through one
 * method make its element access megamorphic (measured: ~8% of indexing time).
 */

type TypedArray = Float64Array | Uint32Array;

interface TypedArrayConstructor<T extends TypedArray> {
  new (length: number): T;
}

export class Growable<T extends TypedArray> {
  private data: T;
  private size = 0;
  private readonly ctor: TypedArrayConstructor<T>;

  constructor(ctor: TypedArrayConstructor<T>, initial = 1024) {
    this.ctor = ctor;
    this.data = new ctor(Math.max(16, initial));
  }

  get length(): number {
    return this.size;
  }

  push(value: number): void {
    if (this.size === this.data.length) {
      const next = new this.ctor(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.size++] = value;
  }

  /** Unchecked read: callers stay within [0, length). */
  at(i: number): number {
    return this.data[i]!;
  }

  set(i: number, value: number): void {
    this.data[i] = value;
  }

  /** Drops everything from `length` on (used when a partial record is re-read). */
  truncate(length: number): void {
    this.size = Math.min(this.size, Math.max(0, length));
  }

  clear(): void {
    this.size = 0;
  }

  /** Bytes held (capacity, not length). */
  get byteLength(): number {
    return this.data.byteLength;
  }

  /** Largest i in [0, length) with at(i) <= value, or -1 (values must be non-decreasing). */
  floorIndex(value: number): number {
    let lo = 0;
    let hi = this.size - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.data[mid]! <= value) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }
}
