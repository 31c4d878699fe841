import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SessionSummary } from '../../../../src/domain/session.ts';
import {
  parsePlatformRows,
  unwrapList,
  withManualTasks,
} from '../../../../src/sources/mcp/platformRows.ts';

const row = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
  session_id: id,
  agent_name: 'network-config-agent',
  status,
  started_at: '2026-08-01T10:00:00.000Z',
  end_time: null,
  duration_ms: null,
  total_input_tokens: 1200,
  total_output_tokens: 300,
  ...extra,
});

describe('unwrapList', () => {
  it('takes a bare array as is', () => {
    const list = [1, 2];
    assert.equal(unwrapList(list), list);
  });

  it('unwraps FastMCP structured output {result: [...]}', () => {
    assert.deepEqual(unwrapList({ result: [{ a: 1 }] }), [{ a: 1 }]);
    assert.deepEqual(unwrapList({ result: [] }), []);
  });

  it('anything else is not a list', () => {
    for (const payload of [undefined, null, 'text', 42, {}, { result: 'x' }, { items: [] }]) {
      assert.equal(unwrapList(payload), undefined, JSON.stringify(payload));
    }
  });
});

describe('parsePlatformRows', () => {
  it('turns rows into summaries with the platform status derived and the raw value kept', () => {
    const parsed = parsePlatformRows(
      {
        result: [
          row('0123456789abcdef01234567', 'RUNNING'),
          row('fedcba9876543210fedcba98', 'CANCELED', {
            end_time: '2026-08-01T10:30:00.000Z',
            agent_name: null,
          }),
        ],
      },
      'conn',
    );
    assert.ok(parsed);
    assert.equal(parsed.invalidRows, 0);
    const [running, canceled] = parsed.sessions;
    assert.deepEqual(running, {
      id: '0123456789abcdef01234567',
      connectionId: 'conn',
      label: 'network-config-agent · 01234567',
      status: { status: 'active', raw: 'RUNNING' },
      harness: 'network-config-agent',
      startedAt: '2026-08-01T10:00:00.000Z',
      lastActivityAt: '2026-08-01T10:00:00.000Z',
      endedAt: undefined,
      inputTokens: 1200,
      outputTokens: 300,
      details: [['Agent', 'network-config-agent']],
    });
    assert.deepEqual(canceled?.status, {
      status: 'finished',
      outcome: 'canceled',
      raw: 'CANCELED',
    });
    assert.equal(canceled?.label, 'agent · fedcba98', 'no agent name: a generic label');
    assert.equal(canceled?.harness, undefined);
    assert.equal(
      canceled?.lastActivityAt,
      '2026-08-01T10:30:00.000Z',
      'the end is the last activity',
    );
    assert.equal(canceled?.endedAt, '2026-08-01T10:30:00.000Z');
  });

  it('counts rows that fail validation and keeps the rest', () => {
    const parsed = parsePlatformRows(
      [
        row('a'.repeat(24), 'COMPLETE'),
        { agent_name: 'no id', status: 'RUNNING' },
        { session_id: 42, status: 'RUNNING' },
        'not an object',
        null,
        row('b'.repeat(24), 'FAILED', { started_at: 17 }),
        row('c'.repeat(24), 'PAUSED'),
      ],
      'conn',
    );
    assert.ok(parsed);
    assert.equal(
      parsed.invalidRows,
      4,
      'rows without a readable id, and rows that are not objects',
    );
    assert.deepEqual(
      parsed.sessions.map((s) => s.status.raw),
      ['COMPLETE', 'FAILED', 'PAUSED'],
    );
    const failed = parsed.sessions[1]!;
    assert.deepEqual(failed.unreadableFields, ['started_at'], 'a bad start time costs the field');
    assert.equal(failed.startedAt, undefined);
    assert.deepEqual(failed.status, { status: 'error', raw: 'FAILED' });
  });

  it('a wrongly typed status is "unknown" with what the server sent as its raw value', () => {
    const parsed = parsePlatformRows(
      [row('g'.repeat(24), 'x', { status: 4 }), row('h'.repeat(24), 'x', { status: ['RUNNING'] })],
      'conn',
    );
    assert.deepEqual(
      parsed?.sessions.map((s) => [s.status, s.unreadableFields]),
      [
        [{ status: 'unknown', raw: '4' }, ['status']],
        [{ status: 'unknown', raw: '["RUNNING"]' }, ['status']],
      ],
    );
  });

  it('the same session twice keeps its first row', () => {
    const parsed = parsePlatformRows(
      [row('i'.repeat(24), 'RUNNING'), row('i'.repeat(24), 'COMPLETE')],
      'conn',
    );
    assert.deepEqual(
      parsed?.sessions.map((s) => s.status.raw),
      ['RUNNING'],
    );
  });

  it('tolerates bad token counts (they become unknown) and unknown extra fields', () => {
    const parsed = parsePlatformRows(
      [row('d'.repeat(24), 'COMPLETE', { total_input_tokens: '12', somethingNew: { x: 1 } })],
      'conn',
    );
    assert.equal(parsed?.invalidRows, 0);
    assert.equal(parsed?.sessions[0]?.inputTokens, undefined);
    assert.equal(parsed?.sessions[0]?.outputTokens, 300);
  });

  it('an unknown or missing status is "unknown", raw kept', () => {
    const parsed = parsePlatformRows(
      [row('e'.repeat(24), 'ARCHIVED'), row('f'.repeat(24), 'x', { status: null })],
      'conn',
    );
    assert.deepEqual(
      parsed?.sessions.map((s) => s.status),
      [
        { status: 'unknown', raw: 'ARCHIVED' },
        { status: 'unknown', raw: '' },
      ],
    );
  });

  it('a payload that is not a list is undefined, not an empty page', () => {
    assert.equal(parsePlatformRows({ error: 'nope' }, 'conn'), undefined);
  });
});

describe('withManualTasks', () => {
  const running: SessionSummary = {
    id: 's1',
    connectionId: 'conn',
    label: 'agent · s1',
    status: { status: 'active', raw: 'RUNNING' },
  };
  const task = (id: string, extra: Record<string, unknown> = {}) => ({
    work_item_id: id,
    title: `Task ${id}`,
    view_type: 'ViewData',
    waiting_age_seconds: 60,
    completion_supported: true,
    ...extra,
  });

  it('null pending_manual_tasks (lookup failed) → waiting unknown, status unchanged', () => {
    const out = withManualTasks(running, {
      session_id: 's1',
      status: 'RUNNING',
      pending_manual_tasks: null,
    });
    assert.equal(out.waitingUnknown, true);
    assert.deepEqual(out.status, { status: 'active', raw: 'RUNNING' });
    assert.equal(out.pendingTasks, undefined);
  });

  it('absent pending_manual_tasks (older servers) → waiting unknown', () => {
    const out = withManualTasks(running, { session_id: 's1', status: 'RUNNING' });
    assert.equal(out.waitingUnknown, true);
    assert.deepEqual(out.status, running.status);
  });

  it('an unreadable answer → waiting unknown', () => {
    assert.equal(withManualTasks(running, { status: 'RUNNING' }).waitingUnknown, true);
    assert.equal(withManualTasks(running, 'text').waitingUnknown, true);
    assert.equal(
      withManualTasks(running, { session_id: 's1', pending_manual_tasks: 'none' }).waitingUnknown,
      true,
    );
  });

  it('[] → known not waiting: status stays active, no tasks, no waitingSince', () => {
    const out = withManualTasks(running, {
      session_id: 's1',
      status: 'RUNNING',
      pending_manual_tasks: [],
    });
    assert.equal(out.waitingUnknown, undefined);
    assert.deepEqual(out.status, { status: 'active', raw: 'RUNNING' });
    assert.deepEqual(out.pendingTasks, []);
    assert.equal(out.waitingSince, undefined);
  });

  it('tasks → waiting, with the tasks and waitingSince from the oldest one', () => {
    const before = Date.now();
    const out = withManualTasks(running, {
      session_id: 's1',
      status: 'RUNNING',
      pending_manual_tasks: [
        task('t1', { waiting_age_seconds: 120 }),
        task('t2', {
          title: null,
          view_type: 'RenderJsonSchema',
          waiting_age_seconds: 3600,
          completion_supported: false,
        }),
        task('t3', { waiting_age_seconds: null, completion_supported: undefined }),
      ],
    });
    const after = Date.now();
    assert.deepEqual(out.status, { status: 'waiting', raw: 'RUNNING' });
    assert.equal(out.waitingUnknown, undefined);
    assert.deepEqual(out.pendingTasks, [
      {
        id: 't1',
        title: 'Task t1',
        viewType: 'ViewData',
        waitingAgeSeconds: 120,
        completionSupported: true,
      },
      {
        id: 't2',
        title: undefined,
        viewType: 'RenderJsonSchema',
        waitingAgeSeconds: 3600,
        completionSupported: false,
      },
      {
        id: 't3',
        title: 'Task t3',
        viewType: 'ViewData',
        waitingAgeSeconds: undefined,
        completionSupported: false,
      },
    ]);
    const since = Date.parse(out.waitingSince ?? '');
    assert.ok(
      since >= before - 3_600_000 && since <= after - 3_600_000,
      `waitingSince is an hour ago (${out.waitingSince})`,
    );
  });

  it('tasks without an age: waiting since now', () => {
    const before = Date.now();
    const out = withManualTasks(running, {
      session_id: 's1',
      status: 'RUNNING',
      pending_manual_tasks: [task('t1', { waiting_age_seconds: null })],
    });
    assert.equal(out.status.status, 'waiting');
    assert.ok(Date.parse(out.waitingSince ?? '') >= before);
  });

  it('tasks reported but none readable → waiting unknown, never "not waiting"', () => {
    const out = withManualTasks(running, {
      session_id: 's1',
      status: 'RUNNING',
      pending_manual_tasks: [{ title: 'no id' }, 17],
    });
    assert.equal(out.waitingUnknown, true);
    assert.deepEqual(out.status, { status: 'active', raw: 'RUNNING' });
  });

  it('malformed task entries are skipped when readable ones remain', () => {
    const mixed = withManualTasks(running, {
      session_id: 's1',
      status: 'RUNNING',
      pending_manual_tasks: [{ title: 'no id' }, task('ok')],
    });
    assert.deepEqual(
      mixed.pendingTasks?.map((t) => t.id),
      ['ok'],
    );
    assert.equal(mixed.status.status, 'waiting');
  });

  it("the described status wins over the row's; a PAUSED session with tasks waits too", () => {
    const out = withManualTasks(running, {
      session_id: 's1',
      status: 'PAUSED',
      pending_manual_tasks: [task('t1')],
    });
    assert.deepEqual(out.status, { status: 'waiting', raw: 'PAUSED' });
    const completed = withManualTasks(running, {
      session_id: 's1',
      status: 'COMPLETE',
      pending_manual_tasks: [task('t1')],
    });
    assert.deepEqual(
      completed.status,
      { status: 'finished', outcome: 'completed', raw: 'COMPLETE' },
      'a finished session never waits, whatever task records say',
    );
  });

  it("without a described status, the row's raw status is used", () => {
    const out = withManualTasks(running, {
      session_id: 's1',
      pending_manual_tasks: [task('t1')],
    });
    assert.deepEqual(out.status, { status: 'waiting', raw: 'RUNNING' });
  });

  it('keeps the rest of the summary', () => {
    const out = withManualTasks(
      { ...running, harness: 'agent', inputTokens: 5 },
      { session_id: 's1', status: 'RUNNING', pending_manual_tasks: [] },
    );
    assert.equal(out.harness, 'agent');
    assert.equal(out.inputTokens, 5);
    assert.equal(out.id, 's1');
  });
});
