/**
 * Tells Claude Code from Codex JSONL by the first records: Codex lines are
 * `{timestamp, type, payload}` envelopes (or, legacy, bare response items after an
 * `{id, timestamp, instructions}` header); Claude Code lines carry sessionId/parentUuid.
 */
import type { FileFormat } from './model.ts';
import { isObject } from './normalize/text.ts';
import { CODEX_ENVELOPES, CODEX_ITEM_TYPES as CODEX_ITEMS } from '../formats/codex.ts';

/** Claude Code line types no Codex line has (user and assistant lines count less). */
const CLAUDE_TYPES = new Set(['summary', 'file-history-snapshot', 'queue-operation']);

/** The format the lines look like, or undefined when none of them says. */
export function detectFormat(lines: readonly string[]): FileFormat | undefined {
  let claude = 0;
  let codex = 0;
  for (const line of lines) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue; // a pretty-printed or broken line says nothing
    }
    if (!isObject(value)) continue;
    const type = typeof value.type === 'string' ? value.type : undefined;
    if (type !== undefined && 'payload' in value && CODEX_ENVELOPES.has(type)) codex += 2;
    else if (
      'record_type' in value ||
      (type === undefined && 'instructions' in value && 'id' in value)
    )
      codex += 2;
    else if ('parentUuid' in value || 'sessionId' in value || (type && CLAUDE_TYPES.has(type)))
      claude += 2;
    else if (type !== undefined && CODEX_ITEMS.has(type)) codex += 1;
    else if (type === 'user' || type === 'assistant') claude += 1;
    if (claude >= 6 || codex >= 6) break;
  }
  if (claude === 0 && codex === 0) return undefined;
  return codex > claude ? 'codex' : 'claude-code';
}
