/**
 * Field-by-field reading of backend rows: a wrongly typed optional field costs that
 * field, not the row. Shared by every source that lists sessions.
 */
import type * as z from 'zod';
import type { Logger } from '../util/logger.ts';

export interface ReadRow<T> {
  data: T;
  /** Dotted paths of fields the server sent but that could not be read (left out of `data`). */
  unreadable: string[];
}

/** Rounds of "take the bad fields out and parse again"; zod reports every bad field per round. */
const MAX_ROUNDS = 4;

/**
 * Validates one row. A field of the wrong type (a number sent as a string or an object,
 * an object where text belongs) is taken out and named in `unreadable`, and the rest of
 * the row is kept. A row that still fails without its bad fields (its id is missing or
 * unreadable) or is not an object is unusable: undefined, for the caller to count.
 */
export function readRow<T>(schema: z.ZodType<T>, item: unknown): ReadRow<T> | undefined {
  let input = item;
  const unreadable: string[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const parsed = schema.safeParse(input);
    if (parsed.success) return { data: parsed.data, unreadable };
    for (const issue of parsed.error.issues) {
      let path = fieldPath(input, issue.path);
      // A required field is missing: a nested one costs its object, a top-level one the row.
      if (path.length > 0 && !hasPath(input, path)) path = path.slice(0, -1);
      // The row itself is wrong (not an object, or without a required field).
      if (path.length === 0) return undefined;
      const name = path.map(String).join('.');
      // The whole object goes: its fields need no separate mention.
      for (let i = unreadable.length - 1; i >= 0; i--)
        if (unreadable[i]!.startsWith(`${name}.`)) unreadable.splice(i, 1);
      if (!unreadable.includes(name)) unreadable.push(name);
      input = withoutPath(input, path);
    }
  }
  return undefined;
}

/**
 * The field an issue is about: its path up to the first list on the way (a bad entry
 * makes its whole list unreadable; lists of rows are read row by row elsewhere).
 */
function fieldPath(input: unknown, path: readonly PropertyKey[]): PropertyKey[] {
  const out: PropertyKey[] = [];
  let value = input;
  for (const key of path) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) break;
    out.push(key);
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return out;
}

function hasPath(value: unknown, path: readonly PropertyKey[]): boolean {
  for (const key of path) {
    if (!value || typeof value !== 'object' || !Object.hasOwn(value, key)) return false;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return true;
}

/** A copy of `value` without the field at `path` (only the objects along the path are copied). */
function withoutPath(value: unknown, path: readonly PropertyKey[]): unknown {
  const [head, ...rest] = path;
  if (head === undefined || !value || typeof value !== 'object' || Array.isArray(value))
    return value;
  const copy: Record<PropertyKey, unknown> = { ...(value as Record<PropertyKey, unknown>) };
  if (rest.length === 0) delete copy[head];
  else copy[head] = withoutPath(copy[head], rest);
  return copy;
}

/** The value of a field as the server sent it, as short text: the raw status of a row. */
export function rawText(value: unknown, max = 200): string {
  if (value === null || value === undefined) return '';
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The field of a row object (undefined when the row is not an object). */
export function fieldOf(item: unknown, name: string): unknown {
  return item && typeof item === 'object' && !Array.isArray(item)
    ? (item as Record<string, unknown>)[name]
    : undefined;
}

/** The Details-tab row that names a session's unreadable fields. */
export function unreadableDetail(fields: readonly string[]): [string, string][] {
  return fields.length ? [['Unreadable fields', fields.join(', ')]] : [];
}

/** Rows whose unreadable fields were logged: a poll repeats the same rows every time. */
const REMEMBERED = 5_000;

/**
 * Logs one line per row with unreadable fields (row id + field names), once per row and
 * set of fields, so polling does not repeat it.
 */
export class UnreadableFieldLog {
  private readonly logged = new Set<string>();
  private readonly log: Logger;
  private readonly where: string;

  constructor(log: Logger, where: string) {
    this.log = log;
    this.where = where;
  }

  note(rowId: string, fields: readonly string[]): void {
    if (fields.length === 0) return;
    const key = `${rowId}\u0000${fields.join(',')}`;
    if (this.logged.has(key)) return;
    if (this.logged.size >= REMEMBERED) this.logged.clear();
    this.logged.add(key);
    this.log.warn(
      `${this.where}: row ${JSON.stringify(rawText(rowId, 120))}: could not read ${fields.join(', ')}; the row is kept without ${fields.length === 1 ? 'it' : 'them'}`,
    );
  }
}

/** Keeps the first row of each id; `dropped` counts the repeats. */
export function firstById<T extends { id: string }>(
  rows: readonly T[],
  known?: ReadonlySet<string>,
): { rows: T[]; dropped: number } {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const row of rows) {
    if (seen.has(row.id) || known?.has(row.id)) continue;
    seen.add(row.id);
    out.push(row);
  }
  return { rows: out, dropped: rows.length - out.length };
}
