import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { ReferenceBackend } from '../../../src/demo/server.ts';
import { callTool, connectMcp, startTestBackend, type LooseJson } from '../../support/backend.ts';

let backend: ReferenceBackend;
let client: Client;

const describeSession = async (sessionId: string, c: Client = client) =>
  (await callTool(c, 'describe_session', { session_id: sessionId })).json;

before(async () => {
  backend = await startTestBackend();
  client = await connectMcp(backend, { url: backend.mcpUrls.itential });
});
after(async () => {
  await client.close();
  await backend.close();
});

describe('Itential sessions', () => {
  it('lists sessions in all eight platform statuses, with token totals', async () => {
    const result = await callTool(client, 'get_sessions');
    assert.equal(result.isError, false);
    const rows: LooseJson[] = result.json;
    assert.deepEqual((result.structured as LooseJson).result, rows);
    assert.deepEqual(
      new Set(rows.map((r) => r.status)),
      new Set([
        'PENDING',
        'RUNNING',
        'PAUSING',
        'PAUSED',
        'COMPLETE',
        'FAILED',
        'CANCELING',
        'CANCELED',
      ]),
    );
    for (const row of rows) {
      assert.equal(typeof row.total_input_tokens, 'number');
      assert.equal(row.end_time === null, !['COMPLETE', 'FAILED', 'CANCELED'].includes(row.status));
    }
    const agent = rows[0].agent_name;
    const filtered = (await callTool(client, 'get_sessions', { agent_name: agent }))
      .json as LooseJson[];
    assert.ok(filtered.length > 0 && filtered.every((r) => r.agent_name === agent));
  });

  it('keeps only end_turn reasoning events and takes the output from the last kept one', async () => {
    const trailing = await describeSession(backend.fixtures.itential.completeTrailingToolUse);
    assert.equal(trailing.status, 'COMPLETE');
    assert.ok(trailing.reasoning_events.length >= 1);
    for (const event of trailing.reasoning_events) {
      assert.equal(typeof event.text, 'string');
      assert.ok(
        !/Calling |optional follow-up|cut off/.test(event.text),
        `a non-end_turn event leaked: ${event.text}`,
      );
    }
    // The last raw reasoning event is a tool_use step; output must skip it.
    assert.equal(trailing.output, trailing.reasoning_events.at(-1).text);
    assert.match(trailing.output, /^Finished:/);
    const sequence = trailing.reasoning_events.map((e: LooseJson) => e.sequence_number);
    assert.deepEqual(
      sequence,
      [...sequence].sort((a, b) => a - b),
    );

    const none = await describeSession(backend.fixtures.itential.completeNoEndTurn);
    assert.deepEqual(none.reasoning_events, []);
    assert.equal(none.output, null);
  });

  it('reports pending manual tasks as a tri-state', async () => {
    const f = backend.fixtures.itential;
    for (const [viewType, sessionId] of Object.entries(f.runningWithTasks)) {
      const tasks = (await describeSession(sessionId)).pending_manual_tasks;
      assert.equal(tasks.length, 1, viewType);
      assert.equal(tasks[0].view_type, viewType);
      assert.equal(tasks[0].completion_supported, viewType !== 'RenderJsonSchema');
      assert.ok(tasks[0].waiting_age_seconds > 0);
    }
    assert.equal((await describeSession(f.runningLookupFails)).pending_manual_tasks, null);
    assert.deepEqual((await describeSession(f.runningNoTasks)).pending_manual_tasks, []);
    // Not RUNNING: the lookup does not run, so [] even though a task record exists.
    assert.deepEqual((await describeSession(f.pausedWithTaskRecord)).pending_manual_tasks, []);
    const unknown = (await describeSession(f.runningUnknownViewType)).pending_manual_tasks[0];
    assert.equal(unknown.completion_supported, false);
    assert.equal(unknown.waiting_age_seconds, null);
  });

  it('reports token usage per turn with a consistent summary', async () => {
    const rows = (await callTool(client, 'get_sessions')).json as LooseJson[];
    const failed = rows.find((r) => r.status === 'FAILED');
    const { json } = await callTool(client, 'describe_session_token_usage', {
      session_id: failed.session_id,
    });
    assert.equal(json.summary.turn_count, json.turns.length);
    assert.equal(
      json.summary.total_input_tokens,
      json.turns.reduce((n: number, t: LooseJson) => n + t.token_usage.input_tokens, 0),
    );
    assert.equal(json.summary.total_input_tokens, failed.total_input_tokens);
    assert.ok(
      json.turns.some((t: LooseJson) => t.event_type === 'failed' && typeof t.error === 'string'),
    );
  });

  it('answers unknown ids with a tool error', async () => {
    for (const [name, args] of [
      ['describe_session', { session_id: 'nope' }],
      ['describe_session_token_usage', { session_id: 'nope' }],
      ['describe_manual_task', { work_item_id: 'nope' }],
    ] as const) {
      const result = await callTool(client, name, args);
      assert.equal(result.isError, true, name);
      assert.match(result.text, /404/);
    }
  });

  it('answers with the older messages[] shape when legacyItentialShape is set', async () => {
    const legacy = await startTestBackend({ legacyItentialShape: true });
    const c = await connectMcp(legacy);
    try {
      const detail = await describeSession(legacy.fixtures.itential.completeTrailingToolUse, c);
      assert.equal('reasoning_events' in detail, false);
      assert.equal('pending_manual_tasks' in detail, false);
      assert.ok(Array.isArray(detail.messages));
      const succeeded = detail.messages.filter((m: LooseJson) => m.type === 'inference-succeeded');
      assert.ok(succeeded.length > 0);
      assert.equal(detail.output, succeeded.at(-1).text);
      assert.ok(detail.messages.some((m: LooseJson) => m.type === 'tool-result'));
      const rows = (await callTool(c, 'get_sessions')).json as LooseJson[];
      assert.equal('total_input_tokens' in rows[0], false);
    } finally {
      await c.close();
      await legacy.close();
    }
  });
});

describe('Itential manual tasks', () => {
  const taskOf = async (sessionId: string, index = 0) =>
    (await describeSession(sessionId)).pending_manual_tasks[index];

  it('describes a task with its untrusted body verbatim', async () => {
    const summary = await taskOf(backend.fixtures.itential.runningWithTasks.ViewHTML);
    const { json } = await callTool(client, 'describe_manual_task', {
      work_item_id: summary.work_item_id,
    });
    assert.equal(json.view_type, 'ViewHTML');
    assert.match(json.body, /<script>/);
    for (const field of [
      'header',
      'message',
      'variables',
      'btn_success',
      'btn_failure',
      'session_id',
      'job_id',
    ]) {
      assert.ok(field in json, field);
    }
  });

  it('previews without confirm, applies once with confirm, and refuses a second completion', async () => {
    const sessionId = backend.fixtures.itential.runningWithTasks.ViewData;
    const { work_item_id } = await taskOf(sessionId);
    const preview = await callTool(client, 'complete_manual_task', {
      work_item_id,
      finish_state: 'success',
    });
    assert.equal(preview.isError, false);
    assert.equal(preview.json.preview, true);
    assert.equal(preview.json.applied, false);
    assert.equal(backend.state.appliedManualTasks(work_item_id), 0);
    assert.equal((await describeSession(sessionId)).pending_manual_tasks.length, 1);

    const applied = await callTool(client, 'complete_manual_task', {
      work_item_id,
      finish_state: 'failure',
      confirm: true,
    });
    assert.equal(applied.json.applied, true);
    assert.equal(applied.json.button_label, 'Reject');
    assert.equal(backend.state.appliedManualTasks(work_item_id), 1);
    assert.deepEqual((await describeSession(sessionId)).pending_manual_tasks, []);

    const again = await callTool(client, 'complete_manual_task', {
      work_item_id,
      finish_state: 'success',
      confirm: true,
    });
    assert.equal(again.isError, true);
    assert.match(again.text, /already completed/);
    assert.equal(backend.state.appliedManualTasks(work_item_id), 1);
  });

  it('refuses "failure" when btn_failure is empty, even as a preview', async () => {
    const work_item_id = backend.fixtures.itential.taskWithoutFailureButton;
    for (const confirm of [false, true]) {
      const result = await callTool(client, 'complete_manual_task', {
        work_item_id,
        finish_state: 'failure',
        confirm,
      });
      assert.equal(result.isError, true);
      assert.match(result.text, /btn_failure is empty/);
    }
    assert.equal(backend.state.appliedManualTasks(work_item_id), 0);
    const ok = await callTool(client, 'complete_manual_task', {
      work_item_id,
      finish_state: 'success',
      confirm: true,
    });
    assert.equal(ok.json.applied, true);
  });

  it('refuses view types MCP cannot complete', async () => {
    const { work_item_id } = await taskOf(
      backend.fixtures.itential.runningWithTasks.RenderJsonSchema,
    );
    const result = await callTool(client, 'complete_manual_task', {
      work_item_id,
      finish_state: 'success',
      confirm: true,
    });
    assert.equal(result.isError, true);
    assert.equal(backend.state.appliedManualTasks(work_item_id), 0);
  });
});
