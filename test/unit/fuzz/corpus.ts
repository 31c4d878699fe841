/**
 * Well-formed starting lines for the fuzz tests: real transcript lines from
 * test/fixtures (whatever is there), and lines of the demo generators (every record
 * type they write, quirks included). Sampled deterministically: a few lines per record
 * type per file, so rare types are as likely as the common ones.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  generateClaudeCodeTranscript,
  generateCodexTranscript,
} from '../../../src/demo/transcripts/index.ts';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');
/** Longer lines are left out of the mutation pool (they slow every run, teach little). */
const MAX_LINE_CHARS = 24_000;
const PER_TYPE_PER_FILE = 3;

export interface FormatCorpus {
  /** Raw lines (no newline), valid JSON or not (pretty-printed fragments, a cut tail). */
  lines: string[];
  /** The lines that parse, parsed. */
  records: unknown[];
  /** Where the lines came from, for the log. */
  sources: string[];
}

export interface Corpus {
  claude: FormatCorpus;
  codex: FormatCorpus;
}

function jsonlFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...jsonlFiles(path));
    else if (name.endsWith('.jsonl')) out.push(path);
  }
  return out;
}

function typeOf(value: unknown): string {
  if (!value || typeof value !== 'object') return typeof value;
  const v = value as {
    type?: unknown;
    subtype?: unknown;
    payload?: { type?: unknown };
    message?: { content?: { type?: unknown }[] };
  };
  const block = Array.isArray(v.message?.content) ? v.message.content[0]?.type : undefined;
  return [v.type, v.payload?.type, v.subtype, block].map(String).join('/');
}

function sample(target: FormatCorpus, text: string, source: string): void {
  const perType = new Map<string, number>();
  let taken = 0;
  for (const line of text.split('\n')) {
    if (line.length > MAX_LINE_CHARS || line.trim() === '') continue;
    let value: unknown;
    let parsed = true;
    try {
      value = JSON.parse(line);
    } catch {
      parsed = false;
    }
    const type = parsed ? typeOf(value) : 'unparsed';
    const n = perType.get(type) ?? 0;
    if (n >= PER_TYPE_PER_FILE) continue;
    perType.set(type, n + 1);
    target.lines.push(line);
    if (parsed) target.records.push(value);
    taken++;
  }
  if (taken) target.sources.push(`${source} (${taken})`);
}

let cached: Corpus | undefined;

export function corpus(): Corpus {
  if (cached) return cached;
  const empty = (): FormatCorpus => ({ lines: [], records: [], sources: [] });
  const c: Corpus = { claude: empty(), codex: empty() };
  for (const file of jsonlFiles(FIXTURES)) {
    const rel = relative(FIXTURES, file);
    sample(/(^|\/)codex\//.test(rel) ? c.codex : c.claude, readFileSync(file, 'utf8'), rel);
  }
  const common = {
    cwd: '/home/dev/fuzz',
    model: 'claude-sonnet-4-5-20250929',
    startedAt: '2026-07-01T10:00:00.000Z',
  };
  for (const seed of [1, 2]) {
    const t = generateClaudeCodeTranscript({
      ...common,
      seed,
      sessionId: `fuzz-${seed}`,
      turns: 6,
      subagents: 2,
      compaction: seed === 1,
      quirks: true,
    });
    sample(c.claude, t.main, `demo claude ${seed}`);
    for (const s of t.subagents) sample(c.claude, s.content, `demo claude ${seed} ${s.fileId}`);
  }
  for (const legacy of [false, true]) {
    const text = generateCodexTranscript({
      ...common,
      model: 'gpt-5-codex',
      seed: 3,
      sessionId: 'fuzz-codex',
      turns: 5,
      compaction: !legacy,
      legacy,
    });
    sample(c.codex, text, `demo codex${legacy ? ' legacy' : ''}`);
  }
  cached = c;
  return c;
}

/** The lines that are whole JSON values on their own (not fragments of a pretty-printed one). */
export function validLines(c: FormatCorpus): string[] {
  return c.lines.filter((line) => {
    try {
      JSON.parse(line);
      return true;
    } catch {
      return false;
    }
  });
}
