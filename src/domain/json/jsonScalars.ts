/**
 * JSON's scalar grammar, byte by byte: numbers and the literals true, false and null,
 * shared by the validator and the skim's number reading. Number() alone does not decide
 * what JSON.parse accepts as a number (it takes `0100`, `1.`, `0x10` and `-Infinity`,
 * JSON.parse none of them).
 */

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');

/**
 * The end of the literal starting at `i` (before `end`), chosen by its first byte (t, f
 * or n, which the caller has seen), or -1 when the bytes are not that literal.
 */
export function literalEnd(buf: Buffer, i: number, end: number): number {
  const c = buf[i];
  const bytes = c === 0x74 ? TRUE : c === 0x66 ? FALSE : NULL;
  if (i + bytes.length > end) return -1;
  for (let k = 1; k < bytes.length; k++) if (buf[i + k] !== bytes[k]) return -1;
  return i + bytes.length;
}

/** The end of the JSON number starting at `i` (before `end`), or -1 when none starts there. */
export function numberEnd(buf: Buffer, i: number, end: number): number {
  let j = i;
  if (buf[j] === 0x2d) j++;
  if (j >= end) return -1;
  if (buf[j] === 0x30) {
    j++;
  } else if (isDigit(buf[j]!)) {
    while (j < end && isDigit(buf[j]!)) j++;
  } else {
    return -1;
  }
  if (j < end && buf[j] === 0x2e) {
    j++;
    if (j >= end || !isDigit(buf[j]!)) return -1;
    while (j < end && isDigit(buf[j]!)) j++;
  }
  if (j < end && (buf[j] === 0x65 || buf[j] === 0x45)) {
    j++;
    if (j < end && (buf[j] === 0x2b || buf[j] === 0x2d)) j++;
    if (j >= end || !isDigit(buf[j]!)) return -1;
    while (j < end && isDigit(buf[j]!)) j++;
  }
  return j;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** The value of the JSON number spanning exactly [start, end); NaN when it is no JSON number. */
export function jsonNumber(buf: Buffer, start: number, end: number): number {
  return numberEnd(buf, start, end) === end ? Number(buf.toString('latin1', start, end)) : NaN;
}
