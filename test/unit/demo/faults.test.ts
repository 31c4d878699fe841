import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { ReferenceBackend } from '../../../src/demo/server.ts';
import {
  callTool,
  connectMcp,
  readJson,
  restFetch,
  startTestBackend,
  type LooseJson,
} from '../../support/backend.ts';
import { FaultInjector } from '../../support/faults.ts';

const faults = new FaultInjector();
let backend: ReferenceBackend;
let client: Client;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function transcriptFile(sessionId: string): Promise<LooseJson> {
  return (await callTool(client, 'get-agent-session-transcript', { sessionId })).json.files[0];
}

async function timed<T>(work: Promise<T>): Promise<[T | Error, number]> {
  const start = Date.now();
  const outcome = await work.catch((error: Error) => error);
  return [outcome, Date.now() - start];
}

before(async () => {
  backend = await startTestBackend({ interceptor: faults.interceptor });
  client = await connectMcp(backend);
});
beforeEach(() => faults.clear());
after(async () => {
  await client.close();
  await backend.close();
});

describe('fault injection', () => {
  it('adds latency that a client timeout observes, and only for matching requests', async () => {
    const rule = faults.add({
      match: { tool: 'get_sessions' },
      fault: { kind: 'latency', ms: 800 },
      times: 1,
    });
    const [slow, elapsed] = await timed(callTool(client, 'get_sessions', {}, { timeout: 200 }));
    assert.ok(slow instanceof Error);
    assert.ok(elapsed < 700, `timed out after ${elapsed} ms`);
    assert.equal(rule.hits, 1);
    assert.equal(
      (await callTool(client, 'describe_session', { session_id: 'x' })).isError,
      true,
      'unmatched tools pass through',
    );
    assert.equal(rule.hits, 1);
    assert.equal(
      (await callTool(client, 'get_sessions')).isError,
      false,
      'the rule is used up after `times`',
    );
  });

  it('answers 5xx and 429 with Retry-After instead of running the handler', async () => {
    faults.add({
      match: { tool: 'get_sessions' },
      fault: { kind: 'status', status: 503 },
      times: 1,
    });
    await assert.rejects(callTool(client, 'get_sessions'), /503/);
    faults.add({
      match: { area: 'rest' },
      fault: { kind: 'rateLimit', retryAfterSeconds: 7 },
      times: 1,
    });
    const limited = await restFetch(backend, '/agents');
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '7');
    faults.add({
      match: { tool: 'list-agent-sessions' },
      fault: { kind: 'rateLimit', retryAfterSeconds: 1 },
      times: 1,
    });
    await assert.rejects(callTool(client, 'list-agent-sessions'), /429|Too Many Requests|rate/i);
    assert.equal((await restFetch(backend, '/agents')).status, 200);
  });

  it('drops the connection before the handler: the client errors and nothing is applied', async () => {
    const sessionId = backend.fixtures.closedloop.openWithoutInstructions;
    faults.add({
      match: { tool: 'session_complete' },
      fault: { kind: 'dropBeforeHandler' },
      times: 1,
    });
    await assert.rejects(
      callTool(client, 'session_complete', { sessionId, idempotencyKey: randomUUID() }),
    );
    assert.equal(backend.state.appliedCompletions(sessionId), 0);
  });

  it('drops the connection after the mutation: applied once, and a same-key retry is not applied again', async () => {
    const fixtures = backend.fixtures.closedloop;
    const { json } = await callTool(client, 'list-agent-sessions', {
      status: 'active',
      limit: 100,
    });
    const sessionId = json.items
      .map((r: LooseJson) => r.id)
      .find(
        (id: string) =>
          id !== fixtures.openWithoutInstructions &&
          !Object.values(fixtures.mainAvailability).includes(id),
      );
    const args = {
      sessionId,
      idempotencyKey: randomUUID(),
      summary: 'Finished after a flaky network',
    };
    faults.add({
      match: { tool: 'session_complete' },
      fault: { kind: 'dropAfterHandler' },
      times: 1,
    });
    await assert.rejects(callTool(client, 'session_complete', args));
    assert.equal(
      backend.state.appliedCompletions(sessionId),
      1,
      'the server applied it although the client saw an error',
    );
    const retry = await callTool(client, 'session_complete', args);
    assert.equal(retry.isError, false, retry.text);
    assert.equal(retry.json.idempotencyKey, args.idempotencyKey);
    assert.equal(backend.state.appliedCompletions(sessionId), 1);
  });

  it('sends a malformed JSON body that the client cannot use', async () => {
    faults.add({ match: { tool: 'get_sessions' }, fault: { kind: 'malformedJson' }, times: 1 });
    const [outcome, elapsed] = await timed(
      callTool(client, 'get_sessions', {}, { timeout: 1_000 }),
    );
    assert.ok(outcome instanceof Error, 'a parse error or a timeout, never a result');
    assert.ok(elapsed < 1_500);
    faults.add({ match: { area: 'rest' }, fault: { kind: 'malformedJson' }, times: 1 });
    await assert.rejects(readJson(await restFetch(backend, '/agents')));
  });

  it('sends valid JSON of the wrong shape', async () => {
    faults.add({
      match: { tool: 'list-agent-sessions' },
      fault: { kind: 'schemaViolation' },
      times: 1,
    });
    const result = await callTool(client, 'list-agent-sessions', { limit: 3 });
    assert.equal(result.isError, false);
    assert.equal(result.json.items.length, 3);
    for (const item of result.json.items) {
      assert.equal('id' in item, false);
      assert.equal(typeof item.inputTokens, 'string');
    }
    assert.equal(typeof result.json.total, 'string');
    faults.add({
      match: { area: 'rest', path: /\/sessions$/ },
      fault: { kind: 'schemaViolation' },
      times: 1,
    });
    const rest = await readJson(await restFetch(backend, '/agents/customer_support/sessions'));
    assert.equal('key' in rest.sessions[0], false);
  });

  it('forces download URLs to be rejected as expired', async () => {
    const file = await transcriptFile(backend.fixtures.closedloop.mainAvailability.available);
    faults.add({ match: { area: 'files' }, fault: { kind: 'expiredUrl' }, times: 1 });
    const expired = await fetch(file.url);
    assert.equal(expired.status, 403);
    assert.match(await expired.text(), /Request has expired/);
    assert.equal((await fetch(file.url)).status, 200);
  });

  it('serves bytes that do not match rawSha256 or byteSize', async () => {
    const small = await transcriptFile(backend.fixtures.closedloop.mainAvailability.available);
    faults.add({
      match: { area: 'files' },
      fault: { kind: 'wrongChecksum', variant: 'flipByte' },
      times: 1,
    });
    const flipped = Buffer.from(await (await fetch(small.url)).arrayBuffer());
    assert.equal(flipped.length, small.byteSize);
    assert.notEqual(sha256(flipped), small.rawSha256);

    faults.add({
      match: { area: 'files' },
      fault: { kind: 'wrongChecksum', variant: 'extraBytes' },
      times: 1,
    });
    const longer = Buffer.from(await (await fetch(small.url)).arrayBuffer());
    assert.notEqual(longer.length, small.byteSize);

    const large = await transcriptFile(backend.fixtures.closedloop.largeTranscript);
    faults.add({ match: { area: 'files' }, fault: { kind: 'wrongChecksum' }, times: 1 });
    const streamed = Buffer.from(await (await fetch(large.url)).arrayBuffer());
    assert.equal(streamed.length, large.byteSize);
    assert.notEqual(sha256(streamed), large.rawSha256);
    assert.equal(
      sha256(Buffer.from(await (await fetch(large.url)).arrayBuffer())),
      large.rawSha256,
    );
  });

  it('answers a slow REST request with a timeout error in time and applies nothing late', async () => {
    const ref = backend.fixtures.agents.clientToolPending;
    faults.add({ match: { area: 'rest' }, fault: { kind: 'latency', ms: 1_500 }, times: 2 });
    const [list, listMs] = await timed(
      restFetch(backend, '/agents', { headers: { 'Request-Timeout-Millis': '300' } }),
    );
    assert.ok(!(list instanceof Error));
    assert.equal(list.status, 504);
    assert.match((await readJson(list)).messages[0], /timed out/);
    assert.ok(listMs < 1_000, `${listMs} ms`);

    const [interrupt] = await timed(
      restFetch(backend, `/agents/${ref.agentKey}/sessions/${ref.sessionKey}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Request-Timeout': '1' },
        body: JSON.stringify({ type: 'interrupt' }),
      }),
    );
    assert.ok(!(interrupt instanceof Error));
    assert.equal(interrupt.status, 504);
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal(backend.state.appliedInterrupts(ref.agentKey, ref.sessionKey), 0);
    const session = await readJson(
      await restFetch(backend, `/agents/${ref.agentKey}/sessions/${ref.sessionKey}`),
    );
    assert.equal(session.status, 'running');
  });
});
