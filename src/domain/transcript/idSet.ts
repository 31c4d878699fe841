/**
 * A set of record-id hashes (integers below 2⁵³, see idHash) in one Float64Array with open
 * addressing: at most 32 bytes a record (16 once the table has just grown), where a Set of
 * numbers costs about 55 (each number above 2³¹ is a heap object). A transcript's index
 * remembers every line's uuid this way (Pairing.seen).
 */
const FIRST_SLOTS = 1024;

export class IdSet {
  /** hash + 1 per slot; 0 is an empty slot. */
  private slots = new Float64Array(FIRST_SLOTS);
  private count = 0;

  get size(): number {
    return this.count;
  }

  has(hash: number): boolean {
    const slots = this.slots;
    const mask = slots.length - 1;
    const stored = hash + 1;
    for (let i = (hash >>> 0) & mask; ; i = (i + 1) & mask) {
      const v = slots[i]!;
      if (v === stored) return true;
      if (v === 0) return false;
    }
  }

  add(hash: number): void {
    if ((this.count + 1) * 2 > this.slots.length) this.grow();
    if (this.put(this.slots, hash + 1)) this.count++;
  }

  clear(): void {
    this.slots = new Float64Array(FIRST_SLOTS);
    this.count = 0;
  }

  /** Puts a stored value in `slots`; false when it was there. */
  private put(slots: Float64Array, stored: number): boolean {
    const mask = slots.length - 1;
    for (let i = ((stored - 1) >>> 0) & mask; ; i = (i + 1) & mask) {
      const v = slots[i]!;
      if (v === stored) return false;
      if (v === 0) {
        slots[i] = stored;
        return true;
      }
    }
  }

  private grow(): void {
    const old = this.slots;
    const slots = new Float64Array(old.length * 2);
    for (const v of old) if (v !== 0) this.put(slots, v);
    this.slots = slots;
  }
}

/**
 * A 53-bit hash of a record id (two FNV-style passes), for Pairing.seen: ids are kept as
 * numbers, not strings, so a long transcript's index stays small. Two different ids of one
 * file share a hash with a probability of about n²/2⁵⁴ (1 in 10⁶ for 100,000 records).
 */
export function idHash(id: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ id.length;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) >>> 11);
}

/** idHash of the bytes [start, end) as they are (an ASCII id: the same as idHash's). */
export function idHashOfBytes(buf: Buffer, start: number, end: number): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ (end - start);
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) >>> 11);
}
