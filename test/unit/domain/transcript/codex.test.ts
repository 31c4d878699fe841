import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateCodexTranscript } from '../../../../src/demo/transcripts/index.ts';
import type { ToolCallEntry } from '../../../../src/domain/transcript/model.ts';
import { CodexScanner } from '../../../../src/sources/local/codexScan.ts';
import { allEntries, countKinds, docOf, openDoc, tempFile } from './fixtures.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw JSONL under test
type Obj = Record<string, any>;

const OPTIONS = {
  seed: 5,
  sessionId: '0199a2b3-1c2d-7e3f-8a9b-0c1d2e3f4a5b',
  cwd: '/home/dev/ledger-service',
  model: 'gpt-5-codex',
  startedAt: '2026-06-30T10:00:00.000Z',
  turns: 10,
  compaction: true,
};

const parse = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Obj);

describe('Codex transcripts', () => {
  it('reads the current format: meta, messages, reasoning, paired calls, compaction', async () => {
    const text = generateCodexTranscript(OPTIONS);
    const raw = parse(text);
    const doc = await openDoc(tempFile(text), { format: 'auto' });
    assert.equal(doc.format, 'codex');
    const entries = await allEntries(doc, 13);
    assert.equal(doc.fitCorrections, 0);
    const items = raw.filter((r) => r.type === 'response_item').map((r) => r.payload as Obj);
    const kinds = countKinds(entries);
    assert.equal(kinds['tool-call'], items.filter((p) => p.type === 'function_call').length);
    assert.equal(kinds.thinking, items.filter((p) => p.type === 'reasoning').length);
    assert.equal(kinds.compaction, 1);
    assert.equal(entries[0]!.kind === 'system' && entries[0]!.subtype, 'session_meta');
    assert.match(
      entries[0]!.kind === 'system' ? entries[0]!.text : '',
      /\/home\/dev\/ledger-service/,
    );
    const outputs = new Map(
      items.filter((p) => p.type === 'function_call_output').map((p) => [p.call_id, p.output]),
    );
    for (const call of entries.filter((e): e is ToolCallEntry => e.kind === 'tool-call')) {
      assert.ok(outputs.has(call.callId));
      const written = outputs.get(call.callId) as string;
      if (!written.startsWith('{')) {
        assert.equal(call.output, written); // plain text ("Plan updated")
        continue;
      }
      const output = JSON.parse(written) as Obj;
      assert.equal(call.output, output.output);
      assert.equal(call.status, output.metadata.exit_code === 0 ? 'ok' : 'error');
    }
    // Harness-injected context is "meta"; the typed prompts are "prompt".
    const users = entries.filter((e) => e.kind === 'user');
    assert.ok(users.slice(0, 3).every((u) => u.kind === 'user' && u.variant === 'meta'));
    assert.equal(
      users.filter((u) => u.kind === 'user' && u.variant === 'prompt').length,
      raw.filter((r) => r.type === 'event_msg' && r.payload.type === 'user_message').length,
    );
    // Duplicated event copies and bookkeeping are hidden, and counted.
    const hidden = doc.info().hidden;
    assert.equal(
      hidden['event_msg:token_count'],
      raw.filter((r) => r.payload?.type === 'token_count').length,
    );
    assert.equal(hidden.turn_context, OPTIONS.turns);
  });

  it('turns cumulative token counts (written twice) into per-turn deltas', async () => {
    const text = generateCodexTranscript(OPTIONS);
    const raw = parse(text);
    const doc = await openDoc(tempFile(text));
    const entries = await allEntries(doc, 29);
    const last = raw.filter((r) => r.payload?.type === 'token_count' && r.payload.info).at(-1)!;
    const total = last.payload.info.total_token_usage as Obj;
    const turns = entries.filter((e) => e.usage);
    const distinct = new Set(
      raw
        .filter((r) => r.payload?.type === 'token_count' && r.payload.info)
        .map((r) => r.payload.info.total_token_usage.total_tokens),
    );
    assert.equal(turns.length, distinct.size, 'one usage per model request');
    const sum = (k: 'total' | 'output' | 'reasoning') =>
      turns.reduce((n, e) => n + (e.usage![k] ?? 0), 0);
    assert.equal(sum('total'), total.total_tokens);
    assert.equal(sum('output'), total.output_tokens);
    assert.equal(sum('reasoning'), total.reasoning_output_tokens);
    for (const e of turns) assert.ok(e.kind === 'tool-call' || e.kind === 'assistant', e.kind);
  });

  it('reads the legacy format (no envelope, no token counts)', async () => {
    const text = generateCodexTranscript({ ...OPTIONS, legacy: true });
    const doc = await openDoc(tempFile(text));
    assert.equal(doc.format, 'codex');
    const entries = await allEntries(doc);
    assert.equal(doc.fitCorrections, 0);
    assert.equal(entries[0]!.kind === 'system' && entries[0]!.subtype, 'session_meta');
    const calls = entries.filter((e): e is ToolCallEntry => e.kind === 'tool-call');
    assert.ok(calls.length > 10);
    assert.ok(calls.every((c) => c.status !== 'pending'));
    assert.ok(entries.every((e) => !e.usage));
    assert.equal(doc.info().hidden.record_type, OPTIONS.turns + 1);
    // apply_patch through the shell names the patched file.
    const patch = calls.find((c) => c.input.includes('apply_patch'));
    assert.ok(patch?.files.some((f) => f.path.startsWith('/home/dev/ledger-service/')));
  });

  it('legacy rollouts: a call before a new prompt is abandoned, as the status drops it', async () => {
    // Legacy files have no event_msg lines: the bare user message item is the new prompt.
    const lines = [
      { id: 'legacy-1', timestamp: '2025-08-01T10:00:00Z', instructions: '' },
      { record_type: 'state' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'list files' }] },
      { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'c1' },
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: '<environment_context>cwd</environment_context>' }],
      },
      { type: 'function_call', name: 'shell', arguments: '{"command":["pwd"]}', call_id: 'c2' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'never mind' }] },
      { type: 'function_call', name: 'shell', arguments: '{"command":["id"]}', call_id: 'c3' },
    ];
    const text = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
    const doc = await openDoc(tempFile(text), { format: 'codex' });
    const calls = (await allEntries(doc)).filter((e): e is ToolCallEntry => e.kind === 'tool-call');
    // Injected context is not a prompt (c1 stays open past it); the real prompt closes both.
    assert.deepEqual(
      calls.map((c) => `${c.callId}:${c.status}`),
      ['c1:abandoned', 'c2:abandoned', 'c3:pending'],
    );
    const scanner = new CodexScanner('/legacy/rollout.jsonl');
    scanner.feed(Buffer.from(text));
    scanner.finish();
    assert.deepEqual(scanner.summary().last.pendingTools, ['shell'], 'the status: only c3 open');
  });

  it('marks a call abandoned when a new prompt or the end of the turn comes first', async () => {
    const event = (type: string, extra: Obj = {}) => ({
      timestamp: '2026-01-01T00:00:00Z',
      type: 'event_msg',
      payload: { type, ...extra },
    });
    const call = (id: string) => ({
      timestamp: '2026-01-01T00:00:00Z',
      type: 'response_item',
      payload: { type: 'function_call', name: 'shell', arguments: '{}', call_id: id },
    });
    const output = (id: string) => ({
      timestamp: '2026-01-01T00:00:00Z',
      type: 'response_item',
      payload: { type: 'function_call_output', call_id: id, output: 'ok' },
    });
    const doc = await docOf([
      call('a'),
      event('task_complete'),
      call('b'),
      event('user_message', { message: 'stop that' }),
      // An output that still comes later wins.
      output('b'),
      call('c'),
      event('turn_aborted', { reason: 'interrupted' }),
      call('d'),
    ]);
    const calls = (await allEntries(doc)).filter((e) => e.kind === 'tool-call');
    assert.deepEqual(
      calls.map((e) => (e as ToolCallEntry).status),
      ['abandoned', 'ok', 'abandoned', 'pending'],
    );
  });

  it('keeps unknown items and events, orphan outputs and custom tools', async () => {
    const ts = '2026-01-01T00:00:00Z';
    const doc = await docOf(
      [
        {
          timestamp: ts,
          type: 'session_meta',
          payload: { id: 'x', cwd: '/repo', cli_version: '0.99.0' },
        },
        {
          timestamp: ts,
          type: 'response_item',
          payload: {
            type: 'custom_tool_call',
            call_id: 'c1',
            name: 'apply_patch',
            input: '*** Begin Patch\n*** Add File: src/new.ts\n+x\n*** End Patch',
          },
        },
        {
          timestamp: ts,
          type: 'response_item',
          payload: { type: 'ghost_snapshot', commit: 'abc' },
        },
        {
          timestamp: ts,
          type: 'event_msg',
          payload: { type: 'turn_aborted', reason: 'interrupted' },
        },
        {
          timestamp: ts,
          type: 'response_item',
          payload: { type: 'function_call_output', call_id: 'nope', output: 'Exit code: 2\nboom' },
        },
        {
          timestamp: ts,
          type: 'response_item',
          payload: { type: 'custom_tool_call_output', call_id: 'c1', output: 'Success.' },
        },
        {
          timestamp: ts,
          type: 'response_item',
          payload: { type: 'reasoning', summary: [], encrypted_content: 'gAAA' },
        },
        { timestamp: ts, type: 'brand_new_line', payload: {} },
      ],
      { format: 'codex' },
    );
    const entries = await allEntries(doc);
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['system', 'tool-call', 'unknown', 'system', 'tool-call', 'thinking', 'unknown'],
    );
    const patch = entries[1] as ToolCallEntry;
    assert.equal(patch.output, 'Success.');
    assert.deepEqual(patch.files, [{ path: '/repo/src/new.ts' }]);
    assert.equal(entries[3]!.kind === 'system' && entries[3]!.level, 'warning');
    const orphan = entries[4] as ToolCallEntry;
    assert.equal(orphan.orphanResult, true);
    assert.equal(orphan.status, 'error');
    assert.equal(entries[5]!.kind === 'thinking' && entries[5]!.redacted, true);
    assert.equal(entries[6]!.kind === 'unknown' && entries[6]!.type, 'brand_new_line');
  });
});
