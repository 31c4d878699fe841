/**
 * Rewrites a generated JSONL transcript for the hostile data mode: every text a person,
 * the model or a tool wrote (prompts, replies, thinking, tool inputs and outputs, paths,
 * commands, summaries) gets an injection payload, in place or after the original. Ids,
 * types, times, roles, tool names and numbers stay, so lines still pair and parse as the
 * harness wrote them. Lines that do not parse alone (a pretty-printed entry, a cut last
 * line) are kept byte for byte.
 */

/** Keys whose string values are written text (Claude Code and Codex lines). */
const TEXT_KEYS = new Set([
  'text',
  'thinking',
  'content',
  'description',
  'prompt',
  'message',
  'summary',
  'output',
  'stdout',
  'stderr',
  'result',
  'command',
  'cmd',
  'pattern',
  'file_path',
  'filePath',
  'path',
  'filenames',
  'cwd',
  'gitBranch',
  'old_string',
  'new_string',
  'oldString',
  'newString',
  'lines',
  'url',
  'codeText',
  'activeForm',
  'subagent_type',
  'last_agent_message',
]);

/** Keys whose string value is itself JSON (Codex function-call arguments): rewritten inside. */
const JSON_KEYS = new Set(['arguments', 'input']);

export interface TranscriptPayloads {
  /** The payload for this original text under this key (equal texts get equal payloads). */
  payload(key: string, original: string): string;
  /** When set, the first prompt or reply text becomes this instead (the 1 MB payload). */
  readonly first?: string;
}

export function hostileTranscript(jsonl: string, payloads: TranscriptPayloads): string {
  let first = payloads.first;
  const replace = (key: string, original: string): string => {
    if (first !== undefined && (key === 'text' || key === 'content')) {
      const huge = first;
      first = undefined;
      return huge;
    }
    const payload = payloads.payload(key, original);
    // Half in place of the text, half after it: where a payload sits matters to parsers.
    return original.length % 2 === 0 ? payload : `${original}\n${payload}`;
  };
  const walk = (value: unknown, key: string): unknown => {
    if (typeof value === 'string') {
      if (JSON_KEYS.has(key)) {
        try {
          const parsed = JSON.parse(value) as unknown;
          if (parsed && typeof parsed === 'object') return JSON.stringify(walk(parsed, ''));
        } catch {
          // Not JSON: treated as text below.
        }
      }
      return TEXT_KEYS.has(key) || JSON_KEYS.has(key) ? replace(key, value) : value;
    }
    if (Array.isArray(value)) return value.map((item) => walk(item, key));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = walk(v, k);
      return out;
    }
    return value;
  };
  return jsonl
    .split('\n')
    .map((line) => {
      if (!line.startsWith('{')) return line;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        return line;
      }
      return JSON.stringify(walk(parsed, ''));
    })
    .join('\n');
}
