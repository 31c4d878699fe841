/** The text of a message's `content`, as Claude Code and Codex write it. */

/** The first text of a message `content` (a string, or blocks of text / input_text / output_text). */
export function firstText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  for (const block of content) {
    if (block && typeof block === 'object') {
      const b = block as { type?: unknown; text?: unknown };
      const t = b.type;
      if (
        (t === 'text' || t === 'input_text' || t === 'output_text') &&
        typeof b.text === 'string'
      ) {
        return b.text;
      }
    }
  }
  return undefined;
}
