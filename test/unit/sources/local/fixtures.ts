/** Hand-written transcript lines for the local scanner tests: small and readable. */
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ClaudeCodeScanner } from '../../../../src/sources/local/claudeCodeScan.ts';
import { CodexScanner } from '../../../../src/sources/local/codexScan.ts';
import type { FileSummary, UsageRecord } from '../../../../src/sources/local/types.ts';

type Obj = Record<string, unknown>;

export const T0 = Date.parse('2026-07-01T10:00:00.000Z');
export const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString();

export function jsonl(...entries: (Obj | string)[]): string {
  return entries.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)) + '\n').join('');
}

const common = (sessionId = 'S1'): Obj => ({
  parentUuid: null,
  isSidechain: false,
  userType: 'external',
  cwd: '/home/dev/orbit-api',
  sessionId,
  version: '2.1.40',
  gitBranch: 'main',
});

export function usage(input: number, output: number, cacheRead = 0, cacheWrite = 0): Obj {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheWrite,
    cache_creation: { ephemeral_5m_input_tokens: cacheWrite, ephemeral_1h_input_tokens: 0 },
  };
}

export interface AssistantOptions {
  id?: string | null;
  requestId?: string;
  model?: string | null;
  usage?: Obj;
  content?: Obj[];
  stop?: string | null;
  seconds?: number;
  sessionId?: string;
  extra?: Obj;
}

export function assistant(o: AssistantOptions = {}): Obj {
  return {
    ...common(o.sessionId),
    type: 'assistant',
    message: {
      model: o.model === undefined ? 'claude-sonnet-4-5-20250929' : o.model,
      id: o.id === undefined ? 'msg_1' : o.id,
      type: 'message',
      role: 'assistant',
      content: o.content ?? [{ type: 'text', text: 'Done.' }],
      stop_reason: o.stop === undefined ? 'end_turn' : o.stop,
      usage: o.usage ?? usage(10, 20),
    },
    requestId: o.requestId ?? 'req_1',
    uuid: `a-${Math.random()}`,
    timestamp: at(o.seconds ?? 10),
    ...o.extra,
  };
}

export function prompt(text: string, seconds = 0, extra: Obj = {}): Obj {
  return {
    ...common(),
    type: 'user',
    message: { role: 'user', content: text },
    uuid: `u-${seconds}`,
    timestamp: at(seconds),
    ...extra,
  };
}

export function toolUse(id: string, name = 'Bash'): Obj {
  return { type: 'tool_use', id, name, input: { command: 'npm test' } };
}

export function toolResult(id: string, seconds: number, isError = false, extra: Obj = {}): Obj {
  const block: Obj = { tool_use_id: id, type: 'tool_result', content: 'ok' };
  if (isError) block.is_error = true;
  return {
    ...common(),
    type: 'user',
    message: { role: 'user', content: [block] },
    uuid: `r-${seconds}`,
    timestamp: at(seconds),
    toolUseResult: { stdout: 'ok' },
    ...extra,
  };
}

export function system(subtype: string, seconds: number, extra: Obj = {}): Obj {
  return {
    ...common(),
    type: 'system',
    subtype,
    uuid: `s-${seconds}`,
    timestamp: at(seconds),
    ...extra,
  };
}

/** An agent_progress copy of a subagent's assistant line, as the parent file holds it. */
export function progressCopy(agentId: string, line: Obj, seconds: number): Obj {
  return {
    ...common(),
    type: 'progress',
    data: {
      type: 'agent_progress',
      message: {
        type: 'assistant',
        message: line.message,
        requestId: line.requestId,
        uuid: line.uuid,
        timestamp: line.timestamp,
      },
      normalizedMessages: [],
      prompt: 'Look around',
      agentId,
    },
    toolUseID: 'agent_msg_1',
    parentToolUseID: 'toolu_task',
    uuid: `p-${seconds}`,
    timestamp: at(seconds),
  };
}

// ---------------------------------------------------------------- Codex

export function codex(type: string, payload: Obj, seconds = 0): Obj {
  return { timestamp: at(seconds), type, payload };
}

export function codexMeta(id = '0199a2b3-1c2d-7e3f-8a9b-0c1d2e3f4a5b'): Obj {
  return codex('session_meta', {
    id,
    timestamp: at(0),
    cwd: '/home/dev/ledger',
    originator: 'codex_cli_rs',
    cli_version: '0.98.0',
    git: { branch: 'feature/x', repository_url: 'git@github.com:acme/ledger.git' },
  });
}

export function turnContext(model: string, seconds = 1, approvalPolicy = 'on-request'): Obj {
  return codex(
    'turn_context',
    { cwd: '/home/dev/ledger', model, approval_policy: approvalPolicy },
    seconds,
  );
}

export interface Totals {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

export function tokenCount(total: Totals | null, seconds: number, last?: Totals): Obj {
  const u = (t: Totals) => ({
    input_tokens: t.input,
    cached_input_tokens: t.cached,
    output_tokens: t.output,
    reasoning_output_tokens: t.reasoning,
    total_tokens: t.input + t.output,
  });
  return codex(
    'event_msg',
    {
      type: 'token_count',
      info: total ? { total_token_usage: u(total), last_token_usage: u(last ?? total) } : null,
    },
    seconds,
  );
}

// ---------------------------------------------------------------- scanning

export function scanClaude(
  text: string | Buffer,
  role: 'session' | 'subagent' = 'session',
  chunk = 0,
): FileSummary {
  const s = new ClaudeCodeScanner('/t/S1.jsonl', { role, sessionId: 'S1' });
  feedAll(s, text, chunk);
  return s.summary();
}

export function scanCodex(text: string | Buffer, chunk = 0): FileSummary {
  const s = new CodexScanner('/t/rollout.jsonl');
  feedAll(s, text, chunk);
  return s.summary();
}

function feedAll(
  s: { feed(b: Buffer): void; finish(): void },
  text: string | Buffer,
  chunk: number,
) {
  const buf = typeof text === 'string' ? Buffer.from(text) : text;
  if (chunk <= 0) s.feed(buf);
  else for (let i = 0; i < buf.length; i += chunk) s.feed(buf.subarray(i, i + chunk));
  s.finish();
}

export function sum(records: Iterable<UsageRecord>): Omit<UsageRecord, 'model' | 'ms'> {
  const t = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0 };
  for (const r of records) {
    t.input += r.input;
    t.output += r.output;
    t.cacheRead += r.cacheRead;
    t.cacheWrite += r.cacheWrite;
    t.cacheWrite1h += r.cacheWrite1h;
    t.reasoning += r.reasoning;
  }
  return t;
}

// ---------------------------------------------------------------- temp trees

export async function tempDir(
  prefix = 'asi-local-',
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes a file (creating folders) and sets its mtime (epoch ms) when given. */
export async function writeAt(
  path: string,
  content: string | Buffer,
  mtimeMs?: number,
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
  if (mtimeMs !== undefined) await utimes(path, mtimeMs / 1000, mtimeMs / 1000);
}
