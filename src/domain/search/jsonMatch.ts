/**
 * Where a byte match inside one JSONL line sits in the JSON: inside a string value (the
 * text a user can see, decoded), inside a key, or in the structure (numbers, brackets,
 * literals, across a string boundary). A search over raw transcript files matches the
 * JSON text; this turns such a match back into what the transcript shows.
 *
 * Only the bytes before the match are walked (strings skipped by their quotes), so a
 * match near the start of a 10 MB line costs what a short line does.
 */

export type MatchPlace = 'value' | 'key' | 'structure';

export interface LocatedMatch {
  place: MatchPlace;
  /** Keys and array indices from the root down to the string holding the match. */
  path: (string | number)[];
  /** The decoded string value (place 'value' or 'key'); '' for 'structure'. */
  value: string;
  /** Where the match starts in `value`, in UTF-16 code units. */
  start: number;
  /** Where it ends in `value`. */
  end: number;
  /** The matched text as the user reads it (unescaped). */
  text: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

interface Frame {
  array: boolean;
  /** Object: the last key read; array: the index of the current element. */
  key: string | number;
  /** Object: the next string is a key. */
  expectKey: boolean;
}

/**
 * Locates the match [start, end) (byte offsets in `line`, which holds one JSON value
 * without its newline). A line that is not JSON still gets an answer: 'structure', with
 * the raw bytes as text.
 */
export function locateMatch(line: Uint8Array, start: number, end: number): LocatedMatch {
  const stack: Frame[] = [];
  let i = 0;
  const n = line.length;
  while (i < n && i <= start) {
    const c = line[i]!;
    if (c === QUOTE) {
      const close = stringEnd(line, i + 1, n);
      const top = stack[stack.length - 1];
      const isKey = top !== undefined && !top.array && top.expectKey;
      if (start > i && start < close) {
        const path = stack.map((f) => f.key);
        if (isKey) path.pop();
        const inside = decodeRange(line, i + 1, close, start, Math.min(end, close));
        if (end > close) return structure(line, start, end, path);
        return { place: isKey ? 'key' : 'value', path, ...inside };
      }
      if (isKey && top) {
        top.key = decodeString(line, i + 1, close);
        top.expectKey = false;
      }
      i = close + 1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      stack.push({ array: c === 0x5b, key: c === 0x5b ? 0 : '', expectKey: c === 0x7b });
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
    } else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top?.array) top.key = (top.key as number) + 1;
      else if (top) top.expectKey = true;
    }
    i++;
  }
  return structure(
    line,
    start,
    end,
    stack.map((f) => f.key),
  );
}

function structure(
  line: Uint8Array,
  start: number,
  end: number,
  path: (string | number)[],
): LocatedMatch {
  const text = Buffer.from(line.buffer, line.byteOffset + start, Math.max(0, end - start)).toString(
    'utf8',
  );
  return { place: 'structure', path, value: '', start: 0, end: 0, text };
}

/** Index of the closing quote of a string whose content starts at `i` (or `n` if unclosed). */
function stringEnd(line: Uint8Array, i: number, n: number): number {
  while (i < n) {
    const c = line[i]!;
    if (c === QUOTE) return i;
    i += c === BACKSLASH ? 2 : 1;
  }
  return n;
}

function decodeString(line: Uint8Array, from: number, to: number): string {
  const raw = Buffer.from(line.buffer, line.byteOffset + from, to - from).toString('utf8');
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/**
 * The decoded string [from, to) and where the raw match [s, e) falls in it. A match
 * boundary inside an escape sequence (`\n`, `\u00e9`) or a UTF-8 sequence widens to the
 * whole sequence, so the highlighted text is always whole characters.
 */
function decodeRange(
  line: Uint8Array,
  from: number,
  to: number,
  s: number,
  e: number,
): Pick<LocatedMatch, 'value' | 'start' | 'end' | 'text'> {
  let startAt = -1;
  let endAt = -1;
  for (let i = from; i < to;) {
    const width = line[i] === BACKSLASH ? (line[i + 1] === 0x75 ? 6 : 2) : utf8Width(line[i]!);
    if (startAt < 0 && i + width > s) startAt = i;
    if (endAt < 0 && i >= e) endAt = i;
    i += width;
    if (startAt >= 0 && endAt >= 0) break;
  }
  const a = startAt < 0 ? to : startAt;
  const b = endAt < 0 ? to : Math.max(endAt, a);
  const value = decodeString(line, from, to);
  const start = decodeString(line, from, a).length;
  const text = decodeString(line, a, b);
  return { value, start, end: start + text.length, text };
}

function utf8Width(c: number): number {
  if (c < 0x80) return 1;
  if (c >= 0xf0) return 4;
  if (c >= 0xe0) return 3;
  if (c >= 0xc0) return 2;
  return 1; // a stray continuation byte
}

export interface Snippet {
  /** One line of text around the match, whitespace collapsed. */
  text: string;
  /** Where the match is in `text`: [start, end). */
  highlight: [number, number];
}

/**
 * One line of context around value[start, end): up to `before` characters before and
 * `after` after, whitespace collapsed, cut at word edges where that is close.
 */
export function snippetOf(
  value: string,
  start: number,
  end: number,
  before = 40,
  after = 80,
): Snippet {
  const flat = (s: string) => s.replace(/\s+/g, ' ');
  let head = flat(value.slice(Math.max(0, start - before * 2), start));
  const cutHead = start - before * 2 > 0 || head.length > before;
  if (head.length > before) head = head.slice(head.length - before);
  if (cutHead) {
    const space = head.indexOf(' ');
    if (space >= 0 && space < 12) head = head.slice(space + 1);
    head = `…${head}`;
  } else head = head.trimStart();
  const match = flat(value.slice(start, end));
  let tail = flat(value.slice(end, end + after * 2));
  if (tail.length > after || end + after * 2 < value.length) {
    tail = tail.slice(0, after);
    const space = tail.lastIndexOf(' ');
    if (space > after - 12) tail = tail.slice(0, space);
    tail = `${tail}…`;
  } else tail = tail.trimEnd();
  return { text: head + match + tail, highlight: [head.length, head.length + match.length] };
}
