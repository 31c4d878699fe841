import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  CLAUDE_CODE_LINE_TYPES,
  CLAUDE_CODE_QUIRK_UNKNOWN_TYPE,
  generateClaudeCodeTranscript,
  generateCodexTranscript,
  largeClaudeCodeTranscript,
  writeLargeClaudeCodeTranscript,
  type ClaudeCodeTranscriptOptions,
  type CodexTranscriptOptions,
} from '../../../src/demo/transcripts/index.ts';

/** Parsed JSONL entries of many shapes; the assertions below check them field by field. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped JSON under test
type Obj = Record<string, any>;

const BASE: ClaudeCodeTranscriptOptions = {
  seed: 11,
  sessionId: '5b0c7a4e-2f1d-4c3b-9a8e-7d6c5b4a3f21',
  cwd: '/home/dev/orbit-api',
  model: 'claude-sonnet-4-5-20250929',
  startedAt: '2026-06-30T09:12:00.000Z',
  turns: 8,
  subagents: 3,
  compaction: true,
};

const CODEX: CodexTranscriptOptions = {
  seed: 5,
  sessionId: '0199a2b3-1c2d-7e3f-8a9b-0c1d2e3f4a5b',
  cwd: '/home/dev/ledger-service',
  model: 'gpt-5-codex',
  startedAt: '2026-06-30T10:00:00.000Z',
  turns: 8,
  compaction: true,
};

/** Splits '\n'-terminated JSONL and parses every line (throws on any bad line). */
function parseStrict(text: string): Obj[] {
  assert.ok(text.endsWith('\n'), 'text ends with a newline');
  return text
    .slice(0, -1)
    .split('\n')
    .map((line, i) => {
      try {
        return JSON.parse(line) as Obj;
      } catch {
        assert.fail(`line ${i + 1} does not parse: ${line.slice(0, 120)}`);
      }
    });
}

/** A tolerant reader: joins physical lines until they parse; reports what never parses. */
function parseTolerant(text: string): {
  entries: { value: Obj; lines: number }[];
  bad: { index: number; text: string }[];
  physical: number;
} {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const entries: { value: Obj; lines: number }[] = [];
  const bad: { index: number; text: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    let parsed: Obj | undefined;
    let buf = lines[i]!;
    let j = i;
    for (;;) {
      try {
        parsed = JSON.parse(buf) as Obj;
        break;
      } catch {
        // Only a pretty-printed object (a lone "{" line) may continue on the next lines.
        if (lines[i] !== '{' || j + 1 >= lines.length || j - i > 200) break;
        buf += '\n' + lines[++j]!;
      }
    }
    if (parsed) {
      entries.push({ value: parsed, lines: j - i + 1 });
      i = j;
    } else {
      bad.push({ index: i, text: lines[i]! });
    }
  }
  return { entries, bad, physical: lines.length };
}

function contentBlocks(o: Obj): Obj[] {
  const c = o.message?.content;
  return Array.isArray(c) ? c : [];
}

function walkStrings(v: unknown, out: string[]): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) walkStrings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) walkStrings(x, out);
  return out;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function assertToolPairing(entries: Obj[], where: string): number {
  const uses = new Map<string, string>();
  const results = new Map<string, number>();
  for (const e of entries) {
    for (const b of contentBlocks(e)) {
      if (b.type === 'tool_use') {
        assert.ok(!uses.has(b.id), `${where}: duplicate tool_use id ${b.id}`);
        assert.match(b.id, /^toolu_01[A-Za-z0-9]{22}$/);
        uses.set(b.id, b.name);
      }
      if (b.type === 'tool_result') {
        assert.equal(e.type, 'user');
        assert.ok('toolUseResult' in e, `${where}: tool_result line has toolUseResult`);
        results.set(b.tool_use_id, (results.get(b.tool_use_id) ?? 0) + 1);
      }
    }
  }
  for (const id of uses.keys()) assert.equal(results.get(id), 1, `${where}: one result for ${id}`);
  for (const id of results.keys()) assert.ok(uses.has(id), `${where}: result without use ${id}`);
  return uses.size;
}

function assertOutputTokensOnLastLine(entries: Obj[], where: string): void {
  const groups = new Map<string, number[]>();
  for (const e of entries) {
    if (e.type !== 'assistant' || e.message.id === null) continue;
    const key = `${e.message.id}\0${e.requestId}`;
    const list = groups.get(key) ?? [];
    list.push(e.message.usage.output_tokens);
    groups.set(key, list);
  }
  assert.ok(groups.size > 0);
  for (const [key, counts] of groups) {
    const last = counts[counts.length - 1]!;
    assert.equal(last, Math.max(...counts), `${where}: last line has the max for ${key}`);
    for (const c of counts.slice(0, -1)) {
      assert.ok(c < last && c <= 12, `${where}: earlier lines carry a stream-start count`);
    }
  }
}

function assertStrictlyIncreasingTimestamps(entries: Obj[], where: string): void {
  let prev = '';
  for (const e of entries) {
    if (typeof e.timestamp !== 'string') continue;
    assert.ok(e.timestamp > prev, `${where}: ${e.timestamp} after ${prev}`);
    assert.equal(new Date(e.timestamp).toISOString(), e.timestamp);
    prev = e.timestamp;
  }
}

describe('generateClaudeCodeTranscript', () => {
  const t = generateClaudeCodeTranscript(BASE);
  const main = parseStrict(t.main);

  test('every line parses and carries the base fields', () => {
    for (const e of main) {
      assert.ok(CLAUDE_CODE_LINE_TYPES.includes(e.type), `documented type ${e.type}`);
      if (['user', 'assistant', 'system', 'progress'].includes(e.type)) {
        assert.equal(e.isSidechain, false);
        assert.equal(e.userType, 'external');
        assert.equal(e.cwd, BASE.cwd);
        assert.equal(e.sessionId, BASE.sessionId);
        assert.equal(e.version, '2.1.40');
        assert.equal(e.gitBranch, 'main');
        assert.match(
          e.uuid,
          /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        );
        assert.ok('parentUuid' in e);
      }
      if (e.type === 'assistant') {
        assert.match(e.requestId, /^req_/);
        assert.match(e.message.id, /^msg_/);
        assert.equal(e.message.model, BASE.model);
        assert.equal(e.message.type, 'message');
        assert.equal(e.message.role, 'assistant');
        assert.equal(e.message.content.length, 1, 'one content block per line');
        const u = e.message.usage;
        for (const k of [
          'input_tokens',
          'cache_creation_input_tokens',
          'cache_read_input_tokens',
          'output_tokens',
        ]) {
          assert.ok(Number.isInteger(u[k]) && u[k] >= 0, k);
        }
        assert.equal(
          u.cache_creation.ephemeral_5m_input_tokens + u.cache_creation.ephemeral_1h_input_tokens,
          u.cache_creation_input_tokens,
        );
      }
    }
  });

  test('is deterministic per seed', () => {
    assert.deepEqual(generateClaudeCodeTranscript(BASE), t);
    const other = generateClaudeCodeTranscript({ ...BASE, seed: 12 });
    assert.notEqual(other.main, t.main);
  });

  test('every tool_use has exactly one tool_result, some of them errors', () => {
    const n = assertToolPairing(main, 'main');
    assert.ok(n >= 20, `plenty of tool calls (${n})`);
    const errors = main.flatMap(contentBlocks).filter((b) => b.is_error === true);
    assert.ok(errors.length >= 1, 'at least one is_error result');
    for (const s of t.subagents) assertToolPairing(parseStrict(s.content), s.fileId);
  });

  test('blocks of one response come as thinking, text, tool_use lines', () => {
    const order = { thinking: 0, text: 1, tool_use: 2 } as Record<string, number>;
    let prev: Obj | undefined;
    for (const e of main) {
      if (e.type !== 'assistant') continue;
      if (prev && prev.message.id === e.message.id) {
        assert.ok(order[e.message.content[0].type]! >= order[prev.message.content[0].type]!);
      }
      const b = e.message.content[0];
      if (b.type === 'thinking') assert.ok(b.thinking.length > 20 && b.signature.length > 100);
      prev = e;
    }
  });

  test('output_tokens is the maximum on the last line of each response', () => {
    assertOutputTokensOnLastLine(main, 'main');
    for (const s of t.subagents) assertOutputTokensOnLastLine(parseStrict(s.content), s.fileId);
  });

  test('timestamps increase, starting at startedAt', () => {
    assertStrictlyIncreasingTimestamps(main, 'main');
    assert.equal(main.find((e) => e.timestamp)!.timestamp, BASE.startedAt);
    for (const s of t.subagents)
      assertStrictlyIncreasingTimestamps(parseStrict(s.content), s.fileId);
  });

  test('parentUuid forms one chain, restarted by the compact boundary', () => {
    let last: string | null = null;
    for (const e of main) {
      if (!['user', 'assistant', 'system'].includes(e.type)) continue;
      if (e.subtype === 'compact_boundary') {
        assert.equal(e.parentUuid, null);
        assert.equal(e.logicalParentUuid, last);
      } else {
        assert.equal(e.parentUuid, last, `parent of ${e.uuid}`);
      }
      last = e.uuid;
    }
  });

  test('summary, snapshots and system lines are present', () => {
    assert.equal(main[0]!.type, 'summary');
    const uuids = new Set(main.map((e) => e.uuid));
    assert.ok(uuids.has(main[0]!.leafUuid), 'summary leafUuid points into the file');
    const prompts = main.filter(
      (e) => e.type === 'user' && !e.isCompactSummary && !e.toolUseResult,
    );
    assert.equal(prompts.length, BASE.turns);
    const snapshots = main.filter((e) => e.type === 'file-history-snapshot');
    assert.ok(snapshots.some((s) => s.isSnapshotUpdate === false));
    assert.ok(snapshots.some((s) => s.isSnapshotUpdate === true));
    for (const s of snapshots) {
      assert.equal(s.snapshot.messageId, s.messageId);
      assert.ok(uuids.has(s.messageId), 'snapshot refers to a prompt');
    }
    const durations = main.filter((e) => e.subtype === 'turn_duration');
    assert.equal(durations.length, BASE.turns);
    assert.ok(durations.every((d) => d.durationMs > 0));
    assert.ok(main.some((e) => e.subtype === 'local_command'));
  });

  test('compaction writes one boundary followed by the compact summary', () => {
    const at = main.findIndex((e) => e.subtype === 'compact_boundary');
    assert.ok(at > 0);
    assert.equal(main.filter((e) => e.subtype === 'compact_boundary').length, 1);
    const b = main[at]!;
    assert.equal(b.compactMetadata.trigger, 'auto');
    assert.ok(b.compactMetadata.preTokens > 10_000);
    const next = main[at + 1]!;
    assert.equal(next.type, 'user');
    assert.equal(next.isCompactSummary, true);
    assert.equal(next.parentUuid, b.uuid);
    const none = parseStrict(generateClaudeCodeTranscript({ ...BASE, compaction: false }).main);
    assert.ok(!none.some((e) => e.subtype === 'compact_boundary' || e.isCompactSummary));
  });

  test('subagent files link to Task calls in the parent', () => {
    assert.equal(t.subagents.length, BASE.subagents);
    const tasks = new Map<string, Obj>();
    const results = new Map<string, Obj>();
    for (const e of main) {
      for (const b of contentBlocks(e)) {
        if (b.type === 'tool_use' && b.name === 'Task') tasks.set(b.id, b.input);
        if (b.type === 'tool_result') results.set(b.tool_use_id, e);
      }
    }
    assert.equal(tasks.size, BASE.subagents);
    for (const s of t.subagents) {
      assert.equal(s.fileId, `agent-${s.agentId}`);
      const input = tasks.get(s.meta.toolUseId);
      assert.ok(input, 'meta.toolUseId is a Task tool_use id');
      assert.equal(input.description, s.meta.description);
      assert.equal(input.subagent_type, s.meta.agentType);
      assert.ok(input.prompt.length > 40);
      const r = results.get(s.meta.toolUseId)!;
      assert.equal(r.toolUseResult.agentId, s.agentId);
      assert.equal(r.toolUseResult.status, 'completed');
      const lines = parseStrict(s.content);
      assert.equal(lines[0]!.parentUuid, null);
      assert.equal(lines[0]!.message.content, input.prompt);
      for (const l of lines) {
        assert.equal(l.isSidechain, true);
        assert.equal(l.agentId, s.agentId);
        assert.equal(l.sessionId, BASE.sessionId);
      }
    }
  });

  test('agent_progress lines copy subagent responses', () => {
    const progress = main.filter((e) => e.type === 'progress');
    assert.ok(progress.length >= BASE.subagents!);
    const byAgent = new Map(t.subagents.map((s) => [s.agentId, parseStrict(s.content)]));
    for (const p of progress) {
      assert.equal(p.data.type, 'agent_progress');
      const lines = byAgent.get(p.data.agentId);
      assert.ok(lines, 'progress names a subagent');
      const copy = p.data.message;
      const original = lines.find((l) => l.uuid === copy.uuid)!;
      assert.equal(original.requestId, copy.requestId);
      assert.deepEqual(original.message, copy.message);
      const sub = t.subagents.find((s) => s.agentId === p.data.agentId)!;
      assert.equal(p.parentToolUseID, sub.meta.toolUseId);
    }
    for (const s of t.subagents) {
      assert.ok(
        progress.some((p) => p.data.agentId === s.agentId),
        'every subagent is copied',
      );
    }
  });

  test('uses realistic tools and inputs', () => {
    const names = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const g = generateClaudeCodeTranscript({ ...BASE, seed, turns: 10, subagents: 1 });
      for (const e of parseStrict(g.main)) {
        for (const b of contentBlocks(e)) {
          if (b.type !== 'tool_use') continue;
          names.add(b.name);
          if (['Read', 'Edit', 'Write'].includes(b.name)) {
            assert.ok(b.input.file_path.startsWith(BASE.cwd + '/'), 'paths under cwd');
          }
          if (b.name === 'Bash') assert.ok(b.input.command.length > 3);
          if (b.name === 'Grep' || b.name === 'Glob') assert.ok(b.input.pattern);
        }
      }
    }
    for (const n of [
      'Read',
      'Edit',
      'Bash',
      'Grep',
      'Glob',
      'Write',
      'TodoWrite',
      'WebFetch',
      'Task',
    ]) {
      assert.ok(names.has(n), `tool ${n} appears`);
    }
  });

  test('subagents > turns puts several Task calls in one response', () => {
    const g = generateClaudeCodeTranscript({ ...BASE, turns: 1, subagents: 3, compaction: false });
    assert.equal(g.subagents.length, 3);
    assert.equal(new Set(g.subagents.map((s) => s.agentId)).size, 3);
    assertToolPairing(parseStrict(g.main), 'main');
  });
});

describe('generateClaudeCodeTranscript quirks', () => {
  const opts = { ...BASE, quirks: true };
  const text = generateClaudeCodeTranscript(opts).main;
  const { entries, bad, physical } = parseTolerant(text);
  const values = entries.map((e) => e.value);

  test('exactly one unparsable line: the truncated last line', () => {
    assert.equal(bad.length, 1);
    assert.equal(bad[0]!.index, physical - 1);
    assert.ok(!text.endsWith('\n'), 'no newline after the truncated line');
    assert.ok(bad[0]!.text.startsWith('{"parentUuid":'));
  });

  test('exactly one pretty-printed multi-line entry', () => {
    const multi = entries.filter((e) => e.lines > 1);
    assert.equal(multi.length, 1);
    assert.equal(multi[0]!.value.type, 'user');
  });

  test('exactly one "id": null, on a synthetic API error message', () => {
    assert.equal(text.split('"id":null').length - 1, 1);
    const hits = values.filter((v) => v.message && v.message.id === null);
    assert.equal(hits.length, 1);
    assert.equal(hits[0]!.isApiErrorMessage, true);
    assert.equal(hits[0]!.message.model, '<synthetic>');
  });

  test('exactly one lone surrogate, in a text block', () => {
    const strings = values.flatMap((v) => walkStrings(v, []));
    const lone = strings.filter((s) => LONE_SURROGATE.test(s));
    assert.equal(lone.length, 1);
    const blocks = values.flatMap(contentBlocks).filter((b) => b.type === 'text');
    assert.ok(blocks.some((b) => LONE_SURROGATE.test(b.text)));
  });

  test('exactly one line of an unknown type', () => {
    const unknown = values.filter((v) => !CLAUDE_CODE_LINE_TYPES.includes(v.type));
    assert.equal(unknown.length, 1);
    assert.equal(unknown[0]!.type, CLAUDE_CODE_QUIRK_UNKNOWN_TYPE);
  });

  test('the rest stays well-formed', () => {
    assertToolPairing(values, 'quirks');
    assertStrictlyIncreasingTimestamps(values, 'quirks');
    const plain = generateClaudeCodeTranscript(BASE).main;
    assert.ok(!plain.includes('"id":null'));
    assert.ok(!walkStrings(parseStrict(plain), []).some((s) => LONE_SURROGATE.test(s)));
  });
});

describe('generateCodexTranscript', () => {
  const text = generateCodexTranscript(CODEX);
  const lines = parseStrict(text);

  test('starts with session_meta and uses the envelope everywhere', () => {
    const meta = lines[0]!;
    assert.equal(meta.type, 'session_meta');
    assert.equal(meta.timestamp, CODEX.startedAt);
    assert.equal(meta.payload.id, CODEX.sessionId);
    assert.equal(meta.payload.cwd, CODEX.cwd);
    assert.equal(meta.payload.originator, 'codex_cli_rs');
    assert.equal(meta.payload.cli_version, '0.98.0');
    assert.match(meta.payload.git.commit_hash, /^[0-9a-f]{40}$/);
    assert.equal(meta.payload.git.branch, 'main');
    const types = new Set([
      'session_meta',
      'turn_context',
      'response_item',
      'event_msg',
      'compacted',
    ]);
    let prev = '';
    for (const l of lines) {
      assert.deepEqual(Object.keys(l), ['timestamp', 'type', 'payload']);
      assert.ok(types.has(l.type), l.type);
      assert.ok(l.timestamp >= prev, 'timestamps never go back');
      prev = l.timestamp;
    }
    const contexts = lines.filter((l) => l.type === 'turn_context');
    assert.equal(contexts.length, CODEX.turns);
    assert.ok(contexts.every((c) => c.payload.model === CODEX.model && c.payload.approval_policy));
    assert.equal(lines.filter((l) => l.payload.type === 'user_message').length, CODEX.turns);
  });

  test('token_count lines come in identical pairs with cumulative totals', () => {
    const counts: { index: number; raw: string; value: Obj }[] = [];
    const raw = text.slice(0, -1).split('\n');
    lines.forEach((l, index) => {
      if (l.type === 'event_msg' && l.payload.type === 'token_count')
        counts.push({ index, raw: raw[index]!, value: l });
    });
    assert.ok(counts.length >= 20 && counts.length % 2 === 0);
    for (let i = 0; i < counts.length; i += 2) {
      assert.equal(counts[i + 1]!.index, counts[i]!.index + 1, 'written twice in a row');
      assert.equal(counts[i + 1]!.raw, counts[i]!.raw);
    }
    assert.equal(counts[0]!.value.payload.info, null, 'first token_count has info null');
    let prevTotal = 0;
    let sumLast = 0;
    for (let i = 2; i < counts.length; i += 2) {
      const info = counts[i]!.value.payload.info;
      const total = info.total_token_usage;
      const last = info.last_token_usage;
      assert.ok(total.total_tokens >= prevTotal, 'cumulative total never decreases');
      assert.equal(total.total_tokens, total.input_tokens + total.output_tokens);
      assert.ok(last.cached_input_tokens <= last.input_tokens);
      assert.ok(last.reasoning_output_tokens <= last.output_tokens);
      assert.equal(info.model_context_window, 272_000);
      sumLast += last.total_tokens;
      assert.equal(total.total_tokens, sumLast, 'totals are the sum of distinct requests');
      prevTotal = total.total_tokens;
    }
  });

  test('function calls pair with outputs by call_id', () => {
    const calls = new Map<string, Obj>();
    const outputs = new Map<string, number>();
    let failures = 0;
    for (const l of lines) {
      const p = l.payload;
      if (l.type !== 'response_item') continue;
      if (p.type === 'function_call') {
        assert.ok(['shell', 'apply_patch', 'update_plan'].includes(p.name));
        const args = JSON.parse(p.arguments);
        if (p.name === 'shell') assert.equal(args.command[0], 'bash');
        if (p.name === 'apply_patch') assert.match(args.input, /^\*\*\* Begin Patch\n/);
        calls.set(p.call_id, p);
      }
      if (p.type === 'function_call_output') {
        outputs.set(p.call_id, (outputs.get(p.call_id) ?? 0) + 1);
        if (calls.get(p.call_id)?.name !== 'update_plan') {
          const out = JSON.parse(p.output);
          assert.equal(typeof out.output, 'string');
          assert.equal(typeof out.metadata.exit_code, 'number');
          assert.equal(typeof out.metadata.duration_seconds, 'number');
          if (out.metadata.exit_code !== 0) failures++;
        }
      }
      if (p.type === 'message') {
        assert.ok(['user', 'assistant', 'developer'].includes(p.role));
        for (const c of p.content)
          assert.equal(c.type, p.role === 'assistant' ? 'output_text' : 'input_text');
      }
      if (p.type === 'reasoning') {
        assert.equal(p.summary[0].type, 'summary_text');
        assert.match(p.encrypted_content, /^gAAAAAB/);
      }
    }
    assert.ok(calls.size >= 10);
    assert.ok(lines.some((l) => l.payload.type === 'message' && l.payload.role === 'developer'));
    for (const id of calls.keys()) assert.equal(outputs.get(id), 1);
    for (const id of outputs.keys()) assert.ok(calls.has(id));
    assert.ok(failures >= 1, 'some commands fail');
  });

  test('compaction writes one compacted line', () => {
    const compacted = lines.filter((l) => l.type === 'compacted');
    assert.equal(compacted.length, 1);
    assert.ok(compacted[0]!.payload.message.length > 50);
    assert.ok(Array.isArray(compacted[0]!.payload.replacement_history));
    const plain = parseStrict(generateCodexTranscript({ ...CODEX, compaction: false }));
    assert.ok(!plain.some((l) => l.type === 'compacted'));
  });

  test('is deterministic per seed', () => {
    assert.equal(generateCodexTranscript(CODEX), text);
    assert.notEqual(generateCodexTranscript({ ...CODEX, seed: 6 }), text);
  });

  test('legacy files have no envelope and no token counts', () => {
    const legacy = generateCodexTranscript({ ...CODEX, legacy: true });
    assert.ok(!legacy.includes('token_count'));
    const ll = parseStrict(legacy);
    assert.deepEqual(Object.keys(ll[0]!), ['id', 'timestamp', 'instructions']);
    assert.equal(ll[0]!.id, CODEX.sessionId);
    assert.equal(ll[0]!.timestamp, CODEX.startedAt);
    const itemTypes = new Set(['message', 'reasoning', 'function_call', 'function_call_output']);
    for (const l of ll.slice(1)) {
      assert.ok(!('payload' in l), 'no envelope');
      if ('record_type' in l) assert.equal(l.record_type, 'state');
      else assert.ok(itemTypes.has(l.type), l.type);
    }
    assert.ok(ll.some((l) => l.type === 'function_call'));
  });
});

describe('largeClaudeCodeTranscript', () => {
  const opts = {
    ...BASE,
    seed: 77,
    targetBytes: 20 * 1024 * 1024,
    subagents: 6,
    compaction: true,
  };

  test('yields whole lines, at least targetBytes, identical to writeLarge…', async () => {
    const hash = createHash('sha256');
    let size = 0;
    let tail = '';
    let tasks = 0;
    let progress = 0;
    let boundaries = 0;
    for await (const chunk of largeClaudeCodeTranscript(opts)) {
      assert.ok(Buffer.isBuffer(chunk));
      assert.equal(chunk[chunk.length - 1], 0x0a, 'chunk ends at a line end');
      hash.update(chunk);
      size += chunk.length;
      const text = chunk.toString('utf8');
      for (const line of text.slice(0, -1).split('\n')) {
        // JSON.parse of every line: whole lines only, no split across chunks.
        const e = JSON.parse(line) as Obj;
        if (e.type === 'progress') progress++;
        if (e.subtype === 'compact_boundary') boundaries++;
        if (e.type === 'assistant' && e.message.content[0].name === 'Task') tasks++;
      }
      tail = text.slice(-200);
    }
    assert.ok(size >= opts.targetBytes, `${size} >= ${opts.targetBytes}`);
    assert.ok(size < opts.targetBytes + 2 * 1024 * 1024, 'does not overshoot much');
    assert.ok(tail.endsWith('\n'));
    assert.equal(tasks, opts.subagents, 'all Task calls are placed');
    assert.ok(progress >= opts.subagents);
    assert.ok(boundaries >= 1, 'long sessions auto-compact');

    const dir = await mkdtemp(join(tmpdir(), 'transcripts-'));
    try {
      const file = join(dir, 'large.jsonl');
      const written = await writeLargeClaudeCodeTranscript(file, opts);
      const bytes = await readFile(file);
      assert.equal(written.byteSize, bytes.length);
      assert.equal(written.sha256, createHash('sha256').update(bytes).digest('hex'));
      assert.equal(written.byteSize, size);
      assert.equal(written.sha256, hash.digest('hex'), 'identical bytes for identical options');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('with quirks, ends with the truncated line', async () => {
    const chunks: Buffer[] = [];
    for await (const c of largeClaudeCodeTranscript({
      ...opts,
      targetBytes: 300_000,
      quirks: true,
    }))
      chunks.push(c);
    const text = Buffer.concat(chunks).toString('utf8');
    const { bad, physical, entries } = parseTolerant(text);
    assert.equal(bad.length, 1);
    assert.equal(bad[0]!.index, physical - 1);
    assert.equal(entries.filter((e) => e.lines > 1).length, 1);
    assert.ok(Buffer.byteLength(text) >= 300_000);
  });
});
