/**
 * Real-file conformance, transcripts: every real file in test/fixtures/real (SOURCES.md)
 * opened as the session panel opens it. For each file: the entries by kind, how its tool
 * calls pair with their results, the records hidden as bookkeeping, the subagents it links
 * to, and the per-turn usage, which must add up to the tokens the local scanner counts for
 * the same lines.
 *
 * The expected counts were checked against an independent count of the raw lines (a short
 * Python reading of each line with json.loads: one entry per user line with a text, per
 * assistant content block, per system/summary line, per Task result with an agentId; a
 * tool_use block is a call, a tool_result its result) and agree with it on every file.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import type { TranscriptEntry } from '../../../src/domain/transcript/model.ts';
import { TranscriptDocument } from '../../../src/domain/transcript/transcriptDocument.ts';
import { ClaudeCodeScanner } from '../../../src/sources/local/claudeCodeScan.ts';
import { CodexScanner } from '../../../src/sources/local/codexScan.ts';
import { fixturePath, readFixture } from './realFiles.ts';

interface Expected {
  /** Entries by kind. */
  entries: Record<string, number>;
  /** Tool calls by status (`orphan`: a result without its call). */
  calls: Record<string, number>;
  /** Records not shown, by type (TranscriptInfo.hidden). */
  hidden: Record<string, number>;
  /** Subagent entries (`agentId:agentType`) and whether the linked file is there. */
  subagents?: { ref: string; file: 'present' | 'absent' }[];
  /**
   * The last line has no newline (Entire's stored copies): the transcript leaves it
   * pending, as for a live session mid-write, until a newline follows.
   */
  pendingLine?: number;
}

const C = 'claude/';
const CASES: Record<string, Expected> = {
  // Claude Code 1.0.17: streamed lines of one response share message.id.
  [`${C}sniffly/-Users-chip-dev-ai-music/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl`]: {
    entries: { user: 6, assistant: 10, 'tool-call': 30 },
    calls: { ok: 30 },
    hidden: {},
  },
  // 1.0.17, continued session: starts with a summary line (a system entry).
  [`${C}sniffly/-Users-chip-dev-ai-music/fed8ce56-bc79-401f-a83e-af084253362f.jsonl`]: {
    entries: { system: 1, user: 3, assistant: 3, 'tool-call': 7 },
    calls: { ok: 5, error: 2 },
    hidden: {},
  },
  [`${C}sniffly/-Users-chip-dev-ai-music/ff71dbed-a4f2-4284-a4fc-fe2fb90de929.jsonl`]: {
    entries: { system: 1 },
    calls: {},
    hidden: {},
  },
  // 1.0.98 and 1.0.108 (inline isSidechain lines stay in place).
  [`${C}claude-code-viewer/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl`]: {
    entries: { user: 2, assistant: 3, 'tool-call': 12 },
    calls: { ok: 11, error: 1 },
    hidden: {},
  },
  [`${C}claude-code-viewer/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl`]: {
    entries: { user: 4, assistant: 7, 'tool-call': 21 },
    calls: { ok: 18, error: 3 },
    hidden: {},
  },
  [`${C}git-ai/example-claude-code.jsonl`]: {
    entries: { user: 2, assistant: 10, 'tool-call': 13 },
    calls: { ok: 13 },
    hidden: {},
  },
  // 2.0.69: thinking blocks, summary, file-history snapshots.
  [`${C}git-ai/claude-code-with-thinking.jsonl`]: {
    entries: { system: 1, user: 1, thinking: 2, assistant: 2, 'tool-call': 1 },
    calls: { ok: 1 },
    hidden: { 'file-history-snapshot': 2 },
  },
  // 2.0.76: compact_boundary, stop_hook_summary, <synthetic> "No response requested.".
  [`${C}entire-checkpoints/a6/e4c2a0fbd1/0/full.jsonl`]: {
    entries: { system: 2, user: 6, assistant: 9, thinking: 12, 'tool-call': 10, compaction: 1 },
    calls: { ok: 10 },
    hidden: { 'file-history-snapshot': 3 },
    pendingLine: 54,
  },
  // 2.1.5: compaction.
  [`${C}entire-checkpoints/ca/fca7ea73ac/0/full.jsonl`]: {
    entries: { system: 2, user: 2, thinking: 20, assistant: 10, 'tool-call': 23, compaction: 1 },
    calls: { ok: 23 },
    hidden: { 'file-history-snapshot': 3 },
    pendingLine: 85,
  },
  // 2.1.17: stop hooks, hook and bash progress, <synthetic>.
  [`${C}entire-checkpoints/b1/5d3b4e29e9/0/full.jsonl`]: {
    entries: { user: 11, thinking: 18, assistant: 9, 'tool-call': 15, system: 5 },
    calls: { ok: 13, error: 2 },
    hidden: { 'file-history-snapshot': 7, progress: 21 },
  },
  // 2.1.17 across UTC midnight, two summary lines.
  [`${C}entire-checkpoints/89/7eb280e769/20/full.jsonl`]: {
    entries: { user: 5, thinking: 32, assistant: 13, 'tool-call': 49, system: 6 },
    calls: { ok: 49 },
    hidden: { 'file-history-snapshot': 7, progress: 9 },
  },
  // 2.1.34: agent_progress copies of a subagent whose file is not in the repository.
  [`${C}entire-checkpoints/60/fd31fcf44f/0/full.jsonl`]: {
    entries: { user: 5, assistant: 10, 'tool-call': 15, subagent: 1, thinking: 1, system: 2 },
    calls: { ok: 14, error: 1 },
    hidden: { 'file-history-snapshot': 4, progress: 64 },
    subagents: [{ ref: 'a1f8104:Explore', file: 'absent' }],
    pendingLine: 117,
  },
  // 2.1.38: 1-hour cache writes.
  [`${C}entire-checkpoints/68/e0ff0d6706/0/full.jsonl`]: {
    entries: { user: 4, assistant: 4, 'tool-call': 5, thinking: 2, system: 1 },
    calls: { ok: 5 },
    hidden: { 'file-history-snapshot': 3, progress: 9 },
    pendingLine: 34,
  },
  [`${C}spotter/transcripts/short.jsonl`]: {
    entries: { user: 2, assistant: 2, thinking: 1, 'tool-call': 2, system: 2 },
    calls: { error: 2 },
    hidden: { 'file-history-snapshot': 1, progress: 3 },
  },
  [`${C}spotter/transcripts/tool_heavy.jsonl`]: {
    entries: { user: 7, 'tool-call': 6, assistant: 2, system: 2, thinking: 1 },
    calls: { ok: 6 },
    hidden: { 'file-history-snapshot': 3, progress: 10, 'queue-operation': 2 },
  },
  // 2.1.38 parent of a Task subagent (its file is not in the repository).
  [`${C}spotter/transcripts/subagent.jsonl`]: {
    entries: { user: 4, assistant: 8, thinking: 4, 'tool-call': 16, subagent: 1, system: 1 },
    calls: { ok: 16 },
    hidden: { 'file-history-snapshot': 3, progress: 44 },
    subagents: [{ ref: 'afb92ff:Plan', file: 'absent' }],
  },
  // 2.1.39 parent (2.76 MB): compaction, agent_progress, queued prompts.
  [`${C}spotter/transcripts/258c7280-ae70-4798-800f-63464d01a85d.jsonl`]: {
    entries: {
      user: 6,
      assistant: 94,
      thinking: 19,
      'tool-call': 186,
      compaction: 1,
      subagent: 1,
      system: 4,
    },
    calls: { ok: 179, error: 7 },
    hidden: { 'file-history-snapshot': 28, progress: 1333, 'queue-operation': 6 },
    subagents: [{ ref: 'a881341:claude-code-guide', file: 'present' }],
  },
  [`${C}spotter/transcripts/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-a881341.jsonl`]: {
    entries: { user: 1, assistant: 3, 'tool-call': 2 },
    calls: { ok: 2 },
    hidden: { progress: 2 },
  },
  [`${C}spotter/transcripts/258c7280-ae70-4798-800f-63464d01a85d/subagents/agent-acompact-fffbd0.jsonl`]:
    {
      entries: { user: 3, assistant: 1 },
      calls: {},
      hidden: {},
    },
  // Codex 0.104: compaction, across midnight, custom tools, web search (all calls paired).
  'codex/localpush/sessions/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl':
    {
      entries: {
        system: 68,
        user: 91,
        thinking: 219,
        assistant: 255,
        'tool-call': 372,
        compaction: 1,
      },
      calls: { ok: 372 },
      hidden: {
        'event_msg:user_message': 38,
        turn_context: 286,
        'event_msg:token_count': 573,
        'event_msg:agent_reasoning': 199,
        'event_msg:agent_message': 255,
      },
    },
  // The file ends with a call and no output, nothing after it: still pending.
  'codex/localpush/sessions/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl':
    {
      entries: { system: 2, user: 8, thinking: 1, assistant: 1, 'tool-call': 1 },
      calls: { pending: 1 },
      hidden: {
        'event_msg:user_message': 1,
        turn_context: 1,
        'event_msg:token_count': 2,
        'event_msg:agent_reasoning': 1,
        'event_msg:agent_message': 1,
      },
    },
  'codex/localpush/sessions/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl':
    {
      entries: { system: 3, user: 7, thinking: 6, assistant: 6, 'tool-call': 5 },
      calls: { ok: 5 },
      hidden: {
        'event_msg:user_message': 1,
        turn_context: 6,
        'event_msg:token_count': 12,
        'event_msg:agent_reasoning': 6,
        'event_msg:agent_message': 6,
      },
    },
};

const open: TranscriptDocument[] = [];
after(() => Promise.all(open.map((d) => d.close())));

async function read(
  fixture: string,
): Promise<{ doc: TranscriptDocument; entries: TranscriptEntry[] }> {
  const format = fixture.startsWith('codex/') ? 'codex' : 'claude-code';
  const doc = await TranscriptDocument.open(fixturePath(fixture), { format });
  open.push(doc);
  await doc.whenIndexed();
  const entries: TranscriptEntry[] = [];
  for (let start = 0; start < doc.entryCount; start += 250) {
    entries.push(...(await doc.getWindow(start, 250)).entries);
  }
  return { doc, entries };
}

function tally(values: Iterable<string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

type Tokens = { input: number; output: number; cacheRead: number; cacheWrite: number };

/** What the local scanner counts for the file's complete lines (its own responses). */
async function scannerTokens(fixture: string): Promise<Tokens> {
  let bytes = await readFixture(fixture);
  // Only complete lines: a last line without its newline is pending in the transcript.
  bytes = bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1);
  const path = fixturePath(fixture);
  const scanner = fixture.startsWith('codex/')
    ? new CodexScanner(path)
    : new ClaudeCodeScanner(path, {
        role: fixture.includes('/subagents/') ? 'subagent' : 'session',
      });
  scanner.feed(bytes);
  scanner.finish();
  const t: Tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const r of scanner.summary().usage.values()) {
    t.input += r.input;
    t.output += r.output;
    t.cacheRead += r.cacheRead;
    t.cacheWrite += r.cacheWrite;
  }
  return t;
}

describe('real files: transcripts', () => {
  for (const [fixture, expected] of Object.entries(CASES)) {
    test(fixture, async () => {
      const { doc, entries } = await read(fixture);
      assert.deepEqual(tally(entries.map((e) => e.kind)), expected.entries, 'entries by kind');
      assert.deepEqual(
        tally(
          entries.flatMap((e) =>
            e.kind === 'tool-call' ? [e.orphanResult ? 'orphan' : e.status] : [],
          ),
        ),
        expected.calls,
        'tool calls by status',
      );
      const info = doc.info();
      assert.deepEqual(info.hidden, expected.hidden, 'hidden records');
      assert.equal(info.errorCount, 0, 'no line is invalid JSON');
      assert.deepEqual(
        info.pending,
        expected.pendingLine === undefined
          ? null
          : { firstLine: expected.pendingLine, bytes: info.pending?.bytes },
        'pending last line',
      );
      assert.equal(doc.fitCorrections, 0, 'every record gave the entries its plan said');

      const subagents = entries.flatMap((e) =>
        e.kind === 'subagent'
          ? [
              {
                ref: `${e.agentId}:${e.agentType ?? ''}`,
                file: e.path && existsSync(e.path) ? ('present' as const) : ('absent' as const),
              },
            ]
          : [],
      );
      assert.deepEqual(subagents, expected.subagents ?? [], 'subagent links');
      // The Task call that ran the subagent links to it too.
      for (const s of subagents) {
        const agentId = s.ref.slice(0, s.ref.indexOf(':'));
        assert.ok(
          entries.some((e) => e.kind === 'tool-call' && e.subagent?.agentId === agentId),
          `the call of subagent ${agentId}`,
        );
      }

      // Per-turn usage adds up to the session's tokens: each response once.
      const turns: Tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
      for (const e of entries) {
        turns.input += e.usage?.input ?? 0;
        turns.output += e.usage?.output ?? 0;
        turns.cacheRead += e.usage?.cacheRead ?? 0;
        turns.cacheWrite += e.usage?.cacheWrite ?? 0;
      }
      assert.deepEqual(turns, await scannerTokens(fixture), 'per-turn usage = scanned tokens');
    });
  }
});
