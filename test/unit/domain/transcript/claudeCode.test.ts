import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import {
  CLAUDE_CODE_QUIRK_UNKNOWN_TYPE,
  generateClaudeCodeTranscript,
  type GeneratedTranscript,
} from '../../../../src/demo/transcripts/index.ts';
import type {
  SubagentEntry,
  ToolCallEntry,
  TranscriptEntry,
} from '../../../../src/domain/transcript/model.ts';
import type { TranscriptDocument } from '../../../../src/domain/transcript/transcriptDocument.ts';
import { allEntries, countKinds, docOf, openDoc, tempFile } from './fixtures.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw JSONL under test
type Obj = Record<string, any>;

const SESSION = '5b0c7a4e-2f1d-4c3b-9a8e-7d6c5b4a3f21';

/** The records of a JSONL text, joining pretty-printed lines (as a careful reader would). */
function records(text: string): Obj[] {
  const out: Obj[] = [];
  let pending = '';
  for (const line of text.split('\n')) {
    pending = pending ? `${pending}\n${line}` : line;
    try {
      out.push(JSON.parse(pending) as Obj);
      pending = '';
    } catch {
      // keep joining (a pretty-printed record, or the truncated tail)
    }
  }
  return out;
}

describe('Claude Code transcripts (generated, with subagents, compaction and quirks)', () => {
  let generated: GeneratedTranscript;
  let doc: TranscriptDocument;
  let entries: TranscriptEntry[];
  let raw: Obj[];

  before(async () => {
    generated = generateClaudeCodeTranscript({
      seed: 11,
      sessionId: SESSION,
      cwd: '/home/dev/orbit-api',
      model: 'claude-sonnet-4-5-20250929',
      startedAt: '2026-06-30T09:12:00.000Z',
      turns: 12,
      subagents: 3,
      compaction: true,
      quirks: true,
    });
    const path = tempFile(generated.main, `projects/-home-dev-orbit-api/${SESSION}.jsonl`);
    for (const sub of generated.subagents)
      tempFile(
        sub.content,
        `projects/-home-dev-orbit-api/${SESSION}/subagents/${sub.fileId}.jsonl`,
      );
    doc = await openDoc(path, { chunkBytes: 4096 });
    entries = await allEntries(doc);
    raw = records(generated.main);
  });

  it('produces exactly the planned entries, indexed 0..n-1', async () => {
    assert.equal(doc.fitCorrections, 0);
    assert.equal(entries.length, doc.entryCount);
    entries.forEach((e, i) => assert.equal(e.index, i));
    // Window size does not change what a window contains (pairing, usage, boundaries).
    const big = (await doc.getWindow(0, doc.entryCount)).entries;
    assert.deepEqual(big, entries);
  });

  it('shows every content block and folds every tool result into its call', () => {
    const blocks = raw
      .filter((r) => r.type === 'assistant' && Array.isArray(r.message?.content))
      .flatMap((r) => r.message.content as Obj[]);
    const calls = entries.filter((e): e is ToolCallEntry => e.kind === 'tool-call');
    assert.equal(calls.length, blocks.filter((b) => b.type === 'tool_use').length);
    assert.equal(
      entries.filter((e) => e.kind === 'thinking').length,
      blocks.filter((b) => b.type === 'thinking').length,
    );
    assert.equal(
      entries.filter((e) => e.kind === 'assistant').length,
      blocks.filter((b) => b.type === 'text').length,
    );
    const results = new Map<string, Obj>();
    for (const r of raw)
      if (r.type === 'user' && Array.isArray(r.message.content))
        for (const b of r.message.content as Obj[])
          if (b.type === 'tool_result') results.set(b.tool_use_id, b);
    for (const call of calls) {
      const result = results.get(call.callId);
      assert.ok(result, `result for ${call.name}`);
      assert.equal(call.status, result.is_error ? 'error' : 'ok');
      assert.ok(
        call.output !== undefined &&
          call.resultSource &&
          call.resultSource.first > call.source.first,
      );
    }
    assert.equal(entries.filter((e) => e.kind === 'error').length, 0);
  });

  it('links each Task call to its subagent file', () => {
    const links = entries.filter((e): e is SubagentEntry => e.kind === 'subagent');
    assert.deepEqual(
      links.map((l) => l.agentId),
      generated.subagents.map((s) => s.agentId),
    );
    for (const [i, link] of links.entries()) {
      const sub = generated.subagents[i]!;
      assert.equal(link.fileKey, `subagent:${sub.agentId}`);
      assert.ok(link.path?.endsWith(join(SESSION, 'subagents', `${sub.fileId}.jsonl`)), link.path);
      assert.equal(link.callId, sub.meta.toolUseId);
      assert.equal(link.agentType, sub.meta.agentType);
      assert.equal(link.description, sub.meta.description);
      assert.ok(link.text.length > 0, 'the task prompt');
      assert.equal(link.status, 'completed');
      const call = entries.find((e) => e.kind === 'tool-call' && e.callId === sub.meta.toolUseId);
      assert.equal((call as ToolCallEntry).subagent?.agentId, sub.agentId);
      assert.ok(link.index > call!.index);
    }
  });

  it('opens a subagent file on its own (every entry a sidechain)', async () => {
    const links = entries.filter((e): e is SubagentEntry => e.kind === 'subagent');
    const sub = await openDoc(links[0]!.path!);
    const subEntries = await allEntries(sub);
    assert.ok(subEntries.length > 3);
    assert.ok(subEntries.every((e) => e.sidechain === true));
    assert.equal(subEntries[0]!.kind, 'user');
    assert.equal(sub.fitCorrections, 0);
  });

  it('keeps compaction, summary, system lines and the quirks visible', () => {
    const kinds = countKinds(entries);
    assert.equal(kinds.compaction, 1);
    const compaction = entries.find((e) => e.kind === 'compaction')!;
    assert.equal(compaction.kind === 'compaction' && compaction.trigger, 'auto');
    assert.ok(compaction.kind === 'compaction' && (compaction.preTokens ?? 0) > 0);
    const summary = entries[compaction.index + 1]!;
    assert.equal(summary.kind === 'user' && summary.variant, 'compact-summary');
    assert.equal(entries[0]!.kind === 'system' && entries[0]!.subtype, 'summary');
    assert.ok(
      entries.some(
        (e) => e.kind === 'system' && e.subtype === 'turn_duration' && /^Turn took/.test(e.text),
      ),
    );
    // The pretty-printed first prompt is one record over many lines, not an error.
    const prompt = entries.find((e) => e.kind === 'user')!;
    assert.ok(prompt.source.last > prompt.source.first + 5, JSON.stringify(prompt.source));
    // Unknown line types are kept with their raw JSON.
    const unknown = entries.filter((e) => e.kind === 'unknown');
    assert.equal(unknown.length, 1);
    assert.equal(
      unknown[0]!.kind === 'unknown' && unknown[0]!.type,
      CLAUDE_CODE_QUIRK_UNKNOWN_TYPE,
    );
    assert.match(unknown[0]!.kind === 'unknown' ? unknown[0]!.raw : '', /needs-review/);
    // The synthetic API error message.
    assert.ok(entries.some((e) => e.kind === 'assistant' && e.apiError === true));
  });

  it('counts hidden bookkeeping lines and reports the truncated tail as pending', () => {
    const info = doc.info();
    assert.equal(
      info.hidden['file-history-snapshot'],
      raw.filter((r) => r.type === 'file-history-snapshot').length,
    );
    assert.equal(info.hidden.progress, raw.filter((r) => r.type === 'progress').length);
    assert.equal(info.errorCount, 0);
    assert.ok(info.pending, 'the quirks tail is pending');
    assert.equal(info.pending.firstLine, info.lineCount! + 1);
    assert.ok(info.pending.bytes > 100);
  });

  it("puts per-turn usage (max output over the turn's lines) on the turn's last entry", () => {
    const expected = new Map<string, number>();
    for (const r of raw) {
      if (r.type !== 'assistant' || typeof r.message.id !== 'string') continue;
      const out = r.message.usage.output_tokens as number;
      expected.set(r.message.id, Math.max(expected.get(r.message.id) ?? 0, out));
    }
    const withUsage = entries.filter((e) => e.usage);
    assert.equal(withUsage.length, expected.size);
    for (const entry of withUsage) {
      assert.equal(entry.usage!.output, expected.get(entry.turnId!));
      const sameTurn = entries.filter((e) => e.turnId === entry.turnId);
      assert.equal(sameTurn.at(-1), entry, 'usage sits on the last entry of the turn');
    }
  });
});

describe('Claude Code edge cases', () => {
  const base = { sessionId: 's', cwd: '/w', version: '1.0.80', timestamp: '2026-01-01T00:00:00Z' };
  const assistant = (id: string, content: unknown[], extra: object = {}) => ({
    ...base,
    type: 'assistant',
    uuid: `u-${id}-${JSON.stringify(content).length}`,
    message: {
      id,
      role: 'assistant',
      model: 'claude',
      content,
      usage: { input_tokens: 5, output_tokens: 7 },
    },
    ...extra,
  });
  const user = (content: unknown, extra: object = {}) => ({
    ...base,
    type: 'user',
    message: { role: 'user', content },
    ...extra,
  });

  it('keeps 1.0.x inline sidechains in place, flagged, with their own pairing', async () => {
    const doc = await docOf([
      user('Find the bug'),
      assistant('m1', [
        {
          type: 'tool_use',
          id: 't-task',
          name: 'Task',
          input: { description: 'look', prompt: 'go', subagent_type: 'general-purpose' },
        },
      ]),
      user('go', { isSidechain: true }),
      assistant(
        'm2',
        [
          {
            type: 'tool_use',
            id: 't-read',
            name: 'Read',
            input: { file_path: 'src/a.ts', offset: 10, limit: 5 },
          },
        ],
        { isSidechain: true },
      ),
      user([{ type: 'tool_result', tool_use_id: 't-read', content: 'file text' }], {
        isSidechain: true,
      }),
      assistant('m3', [{ type: 'text', text: 'found it' }], { isSidechain: true }),
      user([
        { type: 'tool_result', tool_use_id: 't-task', content: [{ type: 'text', text: 'report' }] },
      ]),
    ]);
    const entries = await allEntries(doc);
    assert.deepEqual(
      entries.map((e) => `${e.kind}${e.sidechain ? '*' : ''}`),
      ['user', 'tool-call', 'user*', 'tool-call*', 'assistant*'],
    );
    const read = entries[3] as ToolCallEntry;
    assert.equal(read.output, 'file text');
    assert.deepEqual(read.files, [{ path: '/w/src/a.ts', line: 10, endLine: 14 }]);
    assert.equal((entries[1] as ToolCallEntry).output, 'report');
    assert.equal((entries[1] as ToolCallEntry).subagent, undefined, 'no agentId: no file to link');
  });

  it('shows orphan and duplicate results on their own, and mixed user content once', async () => {
    const doc = await docOf([
      user([
        {
          type: 'tool_result',
          tool_use_id: 'gone',
          content: 'from before a resume',
          is_error: true,
        },
      ]),
      assistant('m1', [
        { type: 'thinking', thinking: 'hmm', signature: 'x' },
        { type: 'redacted_thinking', data: 'zzz' },
        { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } },
        { type: 'server_tool_use', id: 'srv', name: 'web_search', input: {} },
      ]),
      user([{ type: 'tool_result', tool_use_id: 't1', content: 'a\nb' }]),
      user([{ type: 'tool_result', tool_use_id: 't1', content: 'again' }]),
      user([
        { type: 'text', text: 'look at this' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
      ]),
      user([]),
      { type: 'queue-operation', operation: 'enqueue', content: 'later' },
      { type: 'progress', data: { type: 'bash_progress' } },
      '[1, 2, 3]',
    ]);
    const entries = await allEntries(doc);
    assert.equal(doc.fitCorrections, 0);
    assert.deepEqual(
      entries.map((e) => e.kind),
      [
        'tool-call',
        'thinking',
        'thinking',
        'tool-call',
        'unknown',
        'tool-call',
        'user',
        'user',
        'unknown',
      ],
    );
    const orphan = entries[0] as ToolCallEntry;
    assert.equal(orphan.orphanResult, true);
    assert.equal(orphan.status, 'error');
    assert.equal(orphan.output, 'from before a resume');
    assert.equal(entries[2]!.kind === 'thinking' && entries[2]!.redacted, true);
    assert.equal((entries[3] as ToolCallEntry).output, 'a\nb');
    assert.equal((entries[3] as ToolCallEntry).summary, 'ls');
    assert.equal(entries[4]!.kind === 'unknown' && entries[4]!.type, 'server_tool_use');
    assert.equal((entries[5] as ToolCallEntry).output, 'again');
    assert.equal((entries[5] as ToolCallEntry).orphanResult, true);
    const withImage = entries[6]!;
    assert.equal(withImage.kind === 'user' && withImage.text, 'look at this');
    assert.deepEqual(withImage.kind === 'user' && withImage.attachments, [
      { type: 'image', mediaType: 'image/png', bytes: 3 },
    ]);
    assert.deepEqual(doc.info().hidden, { 'queue-operation': 1, progress: 1 });
  });

  it('a call without a result when a prompt ends its turn is abandoned (as the status reads it)', async () => {
    const doc = await docOf([
      user('Fix it'),
      assistant('m1', [
        { type: 'tool_use', id: 't1', name: 'Bash', input: {} },
        { type: 'tool_use', id: 't2', name: 'Read', input: {} },
        { type: 'tool_use', id: 't3', name: 'Grep', input: {} },
      ]),
      user([{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }]),
      // Sidechain and meta lines are not the user's prompts: they end nothing.
      user('go', { isSidechain: true }),
      user('Caveat: …', { isMeta: true }),
      user('[Request interrupted by user]'),
      // A result that still comes later wins.
      user([{ type: 'tool_result', tool_use_id: 't3', content: 'late' }]),
      assistant('m2', [{ type: 'tool_use', id: 't4', name: 'Edit', input: {} }]),
    ]);
    const calls = (await allEntries(doc)).filter((e) => e.kind === 'tool-call');
    assert.deepEqual(
      calls.map((e) => `${e.name}:${e.status}`),
      ['Bash:ok', 'Read:abandoned', 'Grep:ok', 'Edit:pending'],
    );
  });

  it('shows a line written again (same uuid, a resumed session) once, its usage once', async () => {
    const lines = [
      { ...user('Fix it'), uuid: 'p1' },
      assistant('m1', [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }]),
      { ...user([{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }]), uuid: 'r1' },
      assistant('m2', [{ type: 'text', text: 'Done.' }]),
    ];
    // The same response's lines again with new uuids: shown, but its usage only once.
    const copy = { ...assistant('m2', [{ type: 'text', text: 'Done.' }]), uuid: 'new' };
    const doc = await docOf([...lines, ...lines, user('next'), copy]);
    const entries = await allEntries(doc);
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['user', 'tool-call', 'assistant', 'user', 'assistant'],
    );
    assert.equal(entries.filter((e) => e.usage).length, 2);
    assert.equal((entries[1] as ToolCallEntry).output, 'ok');
    assert.deepEqual(doc.info().hidden, { repeated: 4 });
    assert.equal(doc.fitCorrections, 0);
  });

  it('classifies user lines (meta, command, interrupt) and keeps line numbers per record', async () => {
    const doc = await docOf([
      user('Caveat: the messages below were generated by the user while running local commands.', {
        isMeta: true,
      }),
      user('<command-name>/clear</command-name>\n<command-message>clear</command-message>'),
      user([{ type: 'text', text: '[Request interrupted by user]' }]),
      { type: 'system', subtype: 'informational', content: 'Hook ran', level: 'warning' },
      { type: 'summary', summary: 'Fix the bug', leafUuid: 'x' },
    ]);
    const entries = await allEntries(doc);
    assert.deepEqual(
      entries.map((e) => (e.kind === 'user' ? e.variant : e.kind)),
      ['meta', 'command', 'interrupt', 'system', 'system'],
    );
    assert.equal(entries[1]!.kind === 'user' && entries[1]!.text.includes('<command-name>'), false);
    assert.deepEqual(
      entries.map((e) => e.source.first),
      [1, 2, 3, 4, 5],
    );
    assert.equal(entries[3]!.kind === 'system' && entries[3]!.level, 'warning');
  });
});
