import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ReferenceBackend } from '../../../src/demo/server.ts';
import { readJson, restFetch, startTestBackend, type LooseJson } from '../../support/backend.ts';

let backend: ReferenceBackend;

async function getJson(
  path: string,
  init?: Parameters<typeof restFetch>[2],
): Promise<{ status: number; body: LooseJson }> {
  const response = await restFetch(backend, path, init);
  return { status: response.status, body: await response.json() };
}

const sessionPath = (ref: { agentKey: string; sessionKey: string }) =>
  `/agents/${ref.agentKey}/sessions/${ref.sessionKey}`;

before(async () => {
  backend = await startTestBackend();
});
after(() => backend.close());

describe('agents REST API v2', () => {
  it('lists agents', async () => {
    const { status, body } = await getJson('/agents');
    assert.equal(status, 200);
    assert.ok(body.agents.length >= 2 && body.agents.length <= 3);
    assert.ok(
      body.agents.every((a: LooseJson) => typeof a.key === 'string' && typeof a.name === 'string'),
    );
  });

  it('pages sessions with page_key until the metadata has none', async () => {
    const keys: string[] = [];
    let pageKey: string | undefined;
    let pages = 0;
    do {
      const query = `limit=7${pageKey ? `&page_key=${encodeURIComponent(pageKey)}` : ''}`;
      const { status, body } = await getJson(`/agents/customer_support/sessions?${query}`);
      assert.equal(status, 200);
      assert.ok(body.sessions.length <= 7);
      keys.push(...body.sessions.map((s: LooseJson) => s.key));
      pageKey = body.metadata.page_key;
      pages++;
    } while (pageKey);
    assert.ok(pages >= 3);
    assert.equal(new Set(keys).size, keys.length);
    assert.ok(keys.length >= 20);
    const bad = await getJson('/agents/customer_support/sessions?page_key=garbage');
    assert.equal(bad.status, 400);
  });

  it('returns session details with masked secrets, context usage, compaction and parent links', async () => {
    const all: LooseJson[] = [];
    for (const agent of ['customer_support', 'release_manager', 'infra_triage']) {
      all.push(...(await getJson(`/agents/${agent}/sessions?limit=100`)).body.sessions);
    }
    assert.deepEqual(
      new Set(all.map((s) => s.status)),
      new Set(['unstarted', 'running', 'stopped']),
    );
    const withSecrets = all.filter((s) => s.secrets);
    assert.ok(
      withSecrets.length > 0 &&
        withSecrets.every((s) => Object.values(s.secrets).every((v) => v === '****')),
    );
    assert.ok(
      all.some(
        (s) =>
          s.effective_compaction && typeof s.effective_compaction.threshold_percent === 'number',
      ),
    );
    assert.ok(all.some((s) => s.session_context_usage?.model_context_window > 0));
    const child = (await getJson(sessionPath(backend.fixtures.agents.child))).body;
    assert.ok(child.created_by_agent_key && child.created_by_session_key);
    const parent = await getJson(
      `/agents/${child.created_by_agent_key}/sessions/${child.created_by_session_key}`,
    );
    assert.equal(parent.status, 200);
  });

  it('lists events of every type, hiding hidden ones unless include_hidden=true', async () => {
    const path = `${sessionPath(backend.fixtures.agents.showcase)}/events?limit=100`;
    const visible = (await getJson(path)).body.events as LooseJson[];
    const everything = (await getJson(`${path}&include_hidden=true`)).body.events as LooseJson[];
    assert.ok(everything.length > visible.length);
    const types = new Set(everything.map((e) => e.type));
    for (const type of [
      'input_message',
      'thinking',
      'agent_output',
      'tool_input',
      'tool_output',
      'structured_output',
      'compaction',
      'context_limit_exceeded',
      'step_transition',
      'session_interrupted',
      'client_tool_pending',
      'image_read',
      'artifact_upload',
      'skill_load',
    ]) {
      assert.ok(types.has(type), type);
    }
    for (const e of everything)
      for (const f of ['id', 'session_key', 'created_at', 'type']) assert.ok(f in e, f);
    const small = await getJson(
      `${sessionPath(backend.fixtures.agents.showcase)}/events?limit=5&include_hidden=true`,
    );
    assert.equal(small.body.events.length, 5);
    const next = await getJson(
      `${sessionPath(backend.fixtures.agents.showcase)}/events?limit=5&include_hidden=true&page_key=${small.body.metadata.page_key}`,
    );
    assert.deepEqual(next.body.events[0], everything[5]);
  });

  it('lists outstanding client tool calls', async () => {
    const pending = await getJson(
      `${sessionPath(backend.fixtures.agents.clientToolPending)}/outstanding_client_tool_calls`,
    );
    assert.ok(pending.body.tool_calls.length >= 1);
    assert.ok(pending.body.tool_calls.every((c: LooseJson) => c.tool_call_id && c.tool_name));
    const none = await getJson(
      `${sessionPath(backend.fixtures.agents.stopped)}/outstanding_client_tool_calls`,
    );
    assert.deepEqual(none.body.tool_calls, []);
  });

  it('interrupts a running session once and answers 400 "Nothing to interrupt" after', async () => {
    const ref = backend.fixtures.agents.running;
    const post = () =>
      restFetch(backend, `${sessionPath(ref)}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'interrupt' }),
      });
    const first = await post();
    assert.equal(first.status, 200);
    assert.equal((await readJson(first)).events[0].type, 'session_interrupted');
    assert.equal((await getJson(sessionPath(ref))).body.status, 'stopped');
    const second = await post();
    assert.equal(second.status, 400);
    assert.deepEqual((await readJson(second)).messages, ['Nothing to interrupt']);
    assert.equal(backend.state.appliedInterrupts(ref.agentKey, ref.sessionKey), 1);
    const events = (await getJson(`${sessionPath(ref)}/events?limit=100`)).body
      .events as LooseJson[];
    assert.equal(events.at(-1).type, 'session_interrupted');
  });

  it('requires the API key and answers unknown agents and sessions with 404 JSON', async () => {
    for (const apiKey of [null, 'wrong']) {
      const { status, body } = await getJson('/agents', { apiKey });
      assert.equal(status, 401);
      assert.ok(Array.isArray(body.messages));
    }
    const bearer = await getJson('/agents', {
      apiKey: null,
      headers: { authorization: `Bearer ${backend.token}` },
    });
    assert.equal(bearer.status, 200);
    assert.equal((await getJson('/agents/nope/sessions')).status, 404);
    const missing = await getJson('/agents/customer_support/sessions/nope');
    assert.equal(missing.status, 404);
    assert.match(missing.body.messages[0], /not found/);
  });

  it('validates Request-Timeout headers (minimum 1)', async () => {
    const invalid: Record<string, string>[] = [
      { 'Request-Timeout': '0' },
      { 'Request-Timeout-Millis': 'abc' },
    ];
    for (const headers of invalid) {
      assert.equal((await getJson('/agents', { headers })).status, 400, JSON.stringify(headers));
    }
    assert.equal((await getJson('/agents', { headers: { 'Request-Timeout': '5' } })).status, 200);
  });
});
