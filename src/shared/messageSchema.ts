/**
 * A message list written once: each message's fields as small run-time checks, from which
 * both its TypeScript type and the host's validator are derived. A protocol (protocol.ts,
 * dashboardProtocol.ts) declares `const X_MESSAGES = { type: { field: check } }`; adding a
 * message is one entry there and one handler in the panel (the compiler asks for it).
 * Plain functions rather than zod: the protocol is imported by the webview bundle and by
 * the extension's activation bundle, where zod is not loaded.
 */

/** A run-time check of one field that also carries the field's type. */
export type Check<T> = (value: unknown) => value is T;

/** A field that may be absent (`undefined`), else passes `check`. */
export interface OptionalField<T> {
  optional: Check<T>;
}

export type Field = Check<unknown> | OptionalField<unknown>;
/** A message's fields besides `type`. */
export type Shape = Readonly<Record<string, Field>>;
/** A protocol direction: message type → its fields. */
export type MessageSchema = Readonly<Record<string, Shape>>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type Required<S extends Shape> = {
  [K in keyof S as S[K] extends OptionalField<unknown> ? never : K]: S[K] extends Check<infer T>
    ? T
    : never;
};
type Optional<S extends Shape> = {
  [K in keyof S as S[K] extends OptionalField<unknown> ? K : never]?: S[K] extends OptionalField<
    infer T
  >
    ? T
    : never;
};

/** The union of messages a schema describes: `{ type: K } & fields` for each key K. */
export type MessageOf<S extends MessageSchema> = {
  [K in keyof S & string]: Simplify<{ type: K } & Required<S[K]> & Optional<S[K]>>;
}[keyof S & string];

export const str: Check<string> = (v): v is string => typeof v === 'string';
export const bool: Check<boolean> = (v): v is boolean => typeof v === 'boolean';
/** A non-negative integer: indexes, counts, request ids, line numbers. */
export const int: Check<number> = (v): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0;
/** One of these literal values. */
export function oneOf<const T extends readonly (string | number | boolean | null)[]>(
  ...values: T
): Check<T[number]> {
  return (v): v is T[number] => values.includes(v as T[number]);
}
export function optional<T>(check: Check<T>): OptionalField<T> {
  return { optional: check };
}

function fieldOk(field: Field, value: unknown): boolean {
  return typeof field === 'function' ? field(value) : value === undefined || field.optional(value);
}

/**
 * The validator of a schema: an object whose own `type` names a message of the schema
 * and whose fields pass their checks. Fields the schema does not name are left alone.
 * Own keys only, so `__proto__` or `toString` cannot find Object.prototype's members.
 */
export function messageGuard<S extends MessageSchema>(
  schema: S,
): (value: unknown) => value is MessageOf<S> {
  return (value: unknown): value is MessageOf<S> => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
    const message = value as Record<string, unknown>;
    const type = message.type;
    if (typeof type !== 'string' || !Object.hasOwn(schema, type)) return false;
    const shape = schema[type]!;
    return Object.keys(shape).every((key) =>
      fieldOk(shape[key]!, Object.hasOwn(message, key) ? message[key] : undefined),
    );
  };
}

/** The message types of a schema, e.g. for a log line or a test. */
export function messageTypes<S extends MessageSchema>(schema: S): (keyof S & string)[] {
  return Object.keys(schema);
}
