/** Reading JSON whose shape nobody promised (tool inputs, stored values). */

/** The parsed value, or undefined when the text is not JSON (for example an input cut short). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A plain object (not null, not an array), whose fields can be read one by one. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
