/** Small text helpers the scanners share: titles, questions, numbers from untrusted JSON. */
import { TITLE_MAX } from './types.ts';

export { firstText } from '../../domain/formats/messageText.ts';

/** Whitespace collapsed, lone surrogates repaired, cut to `max` characters. */
export function cleanTitle(text: string, max = TITLE_MAX): string | undefined {
  const flat = wellFormed(titlePrefix(text, max)).replace(/\s+/g, ' ').trim();
  if (!flat) return undefined;
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

/**
 * The start of `text` that decides its title: once a few more than `max` characters are
 * counted (a run of whitespace as one), the rest cannot change what is kept, and a pasted
 * log of megabytes is not collapsed and copied whole for 160 characters.
 */
function titlePrefix(text: string, max: number): string {
  if (text.length <= 2 * max) return text;
  let counted = 0;
  let inSpace = false;
  for (let i = 0; i < text.length; i++) {
    const space = WHITESPACE.test(text[i]!);
    if (!space || !inSpace) counted++;
    inSpace = space;
    // Past max + 3: the leading and trailing runs trimmed, the prefix still gets cut,
    // and its last characters (a run or half a surrogate pair) are not among those kept.
    if (counted > max + 3) return text.slice(0, i + 1);
  }
  return text;
}
const WHITESPACE = /\s/;

/** Lone UTF-16 surrogates replaced by U+FFFD (String#toWellFormed is ES2024). */
export function wellFormed(text: string): string {
  return text.replace(
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '\uFFFD',
  );
}

/**
 * Whether a turn-ending assistant text asks the user something: after trailing
 * whitespace and closing markdown (`*`, `_`, `` ` ``, `)`, `"`), it ends with `?` or `？`.
 * Deliberately narrow: a question in the middle of a report is not "waiting".
 */
export function asksUser(text: string | undefined): boolean {
  if (!text) return false;
  // From the end (a regex anchored at $ would try every run of spaces in a long text).
  let i = text.length - 1;
  while (i >= 0 && TRAILING.test(text[i]!)) i--;
  return i >= 0 && (text[i] === '?' || text[i] === '？');
}
const TRAILING = /[\s*_`)"'»]/;

/** A timestamp's text: as written when kept, else rebuilt from the ms of a canonical one. */
export function timeText(ms: number, text: string | undefined): string | undefined {
  return text ?? (Number.isFinite(ms) ? new Date(ms).toISOString() : undefined);
}

/** A non-negative finite number, else 0 (usage fields can be null, strings, negative). */
export function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** `owner/name` from a git remote URL (https, ssh or scp-like); the URL when unknown. */
export function repositoryFromRemote(url: string): string {
  const m = /[:/]([^/:]+\/[^/]+?)(?:\.git)?\/?$/.exec(url.trim());
  return m?.[1] ?? url;
}

/** The last path segment of a POSIX or Windows path. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}
