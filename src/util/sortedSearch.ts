/** Binary searches over ascending arrays of numbers. */

/** The first position p with sorted[p] >= value (sorted.length when there is none). */
export function lowerBound(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first position p with sorted[p] > value (sorted.length when there is none). */
export function upperBound(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether `value` is in `sorted`. */
export function sortedHas(sorted: ArrayLike<number>, value: number): boolean {
  const p = lowerBound(sorted, value);
  return p < sorted.length && sorted[p] === value;
}
