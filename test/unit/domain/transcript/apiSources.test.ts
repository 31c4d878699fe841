import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildAgents } from '../../../../src/demo/data/agents.ts';
import { buildItential } from '../../../../src/demo/data/itential.ts';
import type { ToolContext } from '../../../../src/demo/mcpTools/context.ts';
import { describeSession } from '../../../../src/demo/mcpTools/itentialSessions.ts';
import { SeededRandom } from '../../../../src/demo/random.ts';
import { MemoryTranscript } from '../../../../src/domain/transcript/memoryTranscript.ts';
import { PREVIEW_CHARS, type ToolCallEntry } from '../../../../src/domain/transcript/model.ts';
import { normalizeItentialSession } from '../../../../src/domain/transcript/normalize/itential.ts';
import { normalizeRestEvents } from '../../../../src/domain/transcript/normalize/restEvents.ts';
import { allEntries, countKinds } from './fixtures.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');

/** describe_session as the reference backend answers it, in either shape. */
function itentialResponses(legacy: boolean) {
  const data = buildItential(new SeededRandom(21), NOW);
  const ctx = {
    dataset: { itential: data },
    state: { legacyItentialShape: legacy },
    clock: { nowMs: () => NOW },
  } as unknown as ToolContext;
  return data.sessions.map((s) => ({ session: s, response: describeSession(ctx, s) }));
}

describe('Itential describe_session', () => {
  it('reads reasoning_events as assistant entries, with per-turn usage by sequence number', async () => {
    const all = itentialResponses(false);
    const { session, response } = all.find(
      (r) => (r.response.reasoning_events as unknown[]).length > 1,
    )!;
    const usage = { turns: session.turns };
    const source = MemoryTranscript.fromItential(response, usage);
    const entries = await allEntries(source);
    const events = response.reasoning_events as { text: string | null; event_id: string }[];
    const assistants = entries.filter((e) => e.kind === 'assistant');
    assert.equal(assistants.length, events.length);
    assistants.forEach((e, i) => {
      assert.equal(e.kind === 'assistant' && e.text, events[i]!.text ?? '');
      assert.equal(e.id, events[i]!.event_id);
      assert.deepEqual(e.source, { first: i + 1, last: i + 1 });
    });
    assert.equal(source.info().format, 'itential');
    const sequences = new Set(session.turns.map((t) => t.sequence_number));
    const withUsage = assistants.filter((e) => e.usage);
    assert.ok(withUsage.length > 0);
    assert.equal(
      withUsage.length,
      (response.reasoning_events as { sequence_number: number }[]).filter((e) =>
        sequences.has(e.sequence_number),
      ).length,
    );
  });

  it('adds waiting manual tasks at the end', () => {
    const withTasks = itentialResponses(false).find(
      (r) =>
        Array.isArray(r.response.pending_manual_tasks) &&
        (r.response.pending_manual_tasks as unknown[]).length > 0,
    )!;
    const entries = normalizeItentialSession(withTasks.response);
    const last = entries.at(-1)!;
    assert.equal(last.kind === 'system' && last.subtype, 'manual-task');
    assert.equal(last.kind === 'system' && last.level, 'warning');
    entries.forEach((e, i) => assert.equal(e.index, i));
  });

  it('reads the legacy messages[] shape', async () => {
    const responses = itentialResponses(true);
    const kinds: Record<string, number> = {};
    for (const { response } of responses) {
      const entries = normalizeItentialSession(response);
      assert.equal(entries.length, (response.messages as unknown[]).length);
      for (const [k, n] of Object.entries(countKinds(entries))) kinds[k] = (kinds[k] ?? 0) + n;
    }
    assert.ok(
      kinds.assistant && kinds.thinking && kinds['tool-call'] && kinds.system,
      JSON.stringify(kinds),
    );
    assert.equal(kinds.unknown, undefined);
    const tool = responses
      .flatMap((r) => normalizeItentialSession(r.response))
      .find((e): e is ToolCallEntry => e.kind === 'tool-call')!;
    assert.notEqual(tool.name, 'tool');
    assert.equal(tool.status, 'ok');
  });

  it('keeps unknown message types and tolerates junk', () => {
    const entries = normalizeItentialSession({
      messages: [{ type: 'brand-new', text: 'x' }, 42, { type: 'tool-result', text: 'not json' }],
    });
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['unknown', 'unknown', 'tool-call'],
    );
    assert.equal(entries[2]!.kind === 'tool-call' && entries[2]!.output, 'not json');
    assert.deepEqual(normalizeItentialSession(null), []);
    assert.deepEqual(normalizeItentialSession({ session_id: 'x' }), []);
  });
});

describe('REST agent events', () => {
  it('reads every event type of the showcase session', async () => {
    const data = buildAgents(new SeededRandom(9), NOW);
    const ref = data.fixtures.showcase;
    const events = data.events.get(`${ref.agentKey}/${ref.sessionKey}`)!.map((e) => e.event);
    const source = MemoryTranscript.fromRestEvents(events);
    const entries = await allEntries(source);
    const kinds = countKinds(entries);
    for (const kind of ['user', 'thinking', 'assistant', 'compaction', 'system'])
      assert.ok(kinds[kind], `${kind} in ${JSON.stringify(kinds)}`);
    const subtypes = new Set(entries.flatMap((e) => (e.kind === 'system' ? [e.subtype] : [])));
    for (const t of [
      'step_transition',
      'session_interrupted',
      'context_limit_exceeded',
      'image_read',
      'artifact_upload',
      'skill_load',
    ])
      assert.ok(subtypes.has(t), t);
    const structured = entries.find((e) => e.kind === 'assistant' && e.json);
    assert.ok(structured);
    const pending = entries.filter(
      (e): e is ToolCallEntry => e.kind === 'tool-call' && e.client === true,
    );
    assert.ok(pending.length >= 1);
    assert.ok(pending.every((p) => p.status === 'pending'));
    const calls = entries.filter((e): e is ToolCallEntry => e.kind === 'tool-call' && !e.client);
    assert.equal(calls.length, events.filter((e) => e.type === 'tool_input').length);
    assert.ok(calls.every((c) => c.status !== 'pending'));
    assert.equal(
      entries.length,
      events.length - events.filter((e) => e.type === 'tool_output').length,
    );
  });

  it('pairs by tool_call_id, keeps orphans and unknown types, and caps long texts in windows', async () => {
    const long = 'L'.repeat(PREVIEW_CHARS * 2);
    const events = [
      {
        id: 'e1',
        type: 'input_message',
        created_at: '2026-01-01T00:00:00Z',
        messages: [
          { type: 'text', content: 'hi' },
          { type: 'image', file_name: 'a.png' },
        ],
      },
      {
        id: 'e2',
        type: 'tool_input',
        tool_call_id: 'c1',
        tool_name: 'search',
        tool_input: { query: 'x', path: 'docs/a.md' },
      },
      { id: 'e3', type: 'tool_output', tool_call_id: 'c2', tool_output: null, error: 'nope' },
      { id: 'e4', type: 'agent_output', content: long },
      { id: 'e5', type: 'tool_output', tool_call_id: 'c1', tool_output: { hits: 3 }, error: null },
      { id: 'e6', type: 'mystery', payload: 1 },
      {
        id: 'e7',
        type: 'client_tool_pending',
        pending_calls: [{ tool_call_id: 'c3', tool_name: 'confirm', tool_input: {} }],
      },
      { id: 'e8', type: 'tool_output', tool_call_id: 'c3', tool_output: 'yes' },
    ];
    const entries = normalizeRestEvents(events);
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['user', 'tool-call', 'tool-call', 'assistant', 'unknown', 'tool-call'],
    );
    const [user, search, orphan, , unknown, client] = entries;
    assert.deepEqual(user!.kind === 'user' && user!.attachments, [
      { type: 'image', name: 'a.png' },
    ]);
    assert.equal((search as ToolCallEntry).output, '{\n  "hits": 3\n}');
    assert.deepEqual((search as ToolCallEntry).resultSource, { first: 5, last: 5 });
    assert.equal((orphan as ToolCallEntry).orphanResult, true);
    assert.equal((orphan as ToolCallEntry).status, 'error');
    assert.equal((orphan as ToolCallEntry).output, 'nope');
    assert.equal(unknown!.kind === 'unknown' && unknown!.type, 'mystery');
    assert.equal((client as ToolCallEntry).status, 'ok');
    assert.equal((client as ToolCallEntry).client, true);

    const source = new MemoryTranscript('rest-events', entries);
    const [, , , capped] = (await source.getWindow(0, 10)).entries;
    assert.equal(capped!.kind === 'assistant' && capped!.text.length, PREVIEW_CHARS);
    assert.equal(capped!.truncated, true);
    assert.equal(await source.fullText(3), long);
    assert.equal(entries[3]!.truncated, false, 'the stored entry stays whole');
    assert.equal((await source.search('hits')).index, 1);
    assert.equal((await source.search('HI', { caseSensitive: true })).total, 0);
    assert.equal((await source.search('hi')).total, 2);
    assert.equal(source.nextError(0), null);
  });
});
