import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { ReferenceBackend } from '../../../src/demo/server.ts';
import { callTool, connectMcp, startTestBackend, type LooseJson } from '../../support/backend.ts';

let backend: ReferenceBackend;
let client: Client;

const pending = async (sessionId: string): Promise<LooseJson[]> =>
  (await callTool(client, 'list-pending-instructions', { sessionId })).json.items;

/** Open sessions with at least `min` pending instructions, found through the tools. */
async function sessionsWithInstructions(min: number): Promise<string[]> {
  const { json } = await callTool(client, 'list-agent-sessions', {
    status: 'active',
    quality: 'all',
    limit: 100,
  });
  const out: string[] = [];
  for (const row of json.items) if ((await pending(row.id)).length >= min) out.push(row.id);
  return out;
}

before(async () => {
  backend = await startTestBackend();
  client = await connectMcp(backend, { url: backend.mcpUrls.closedloop });
});
after(async () => {
  await client.close();
  await backend.close();
});

describe('session_complete', () => {
  it('publishes the seed input schema with additionalProperties false', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'session_complete')!;
    const schema = tool.inputSchema as LooseJson;
    assert.equal(schema.additionalProperties, false);
    assert.deepEqual([...schema.required].sort(), ['idempotencyKey', 'sessionId']);
    assert.deepEqual(Object.keys(schema.properties).sort(), [
      'acknowledgedInstructionIds',
      'idempotencyKey',
      'requestReview',
      'sessionId',
      'status',
      'summary',
    ]);
    const extra = await callTool(client, 'session_complete', {
      sessionId: backend.fixtures.closedloop.openWithoutInstructions,
      idempotencyKey: randomUUID(),
      force: true,
    });
    assert.equal(extra.isError, true);
    assert.equal(
      backend.state.appliedCompletions(backend.fixtures.closedloop.openWithoutInstructions),
      0,
    );
  });

  it('applies once per idempotency key and replays the same result', async () => {
    const sessionId = backend.fixtures.closedloop.openWithoutInstructions;
    const args = { sessionId, idempotencyKey: randomUUID(), status: 'completed', summary: 'Done.' };
    const first = await callTool(client, 'session_complete', args);
    assert.equal(first.isError, false, first.text);
    const retry = await callTool(client, 'session_complete', args);
    assert.equal(retry.isError, false);
    assert.deepEqual(retry.json, first.json);
    assert.equal(backend.state.appliedCompletions(sessionId), 1);

    const changed = await callTool(client, 'session_complete', { ...args, summary: 'Different' });
    assert.equal(changed.isError, true);
    assert.match(changed.text, /different arguments/);
    const newKey = await callTool(client, 'session_complete', {
      ...args,
      idempotencyKey: randomUUID(),
    });
    assert.equal(newKey.isError, true, 'a new intent on an ended session is refused');
    assert.equal(backend.state.appliedCompletions(sessionId), 1);

    const { json } = await callTool(client, 'list-agent-sessions', {
      status: 'inactive',
      limit: 100,
    });
    const row = json.items.find((r: LooseJson) => r.id === sessionId);
    assert.equal(row?.status, 'inactive');
    assert.notEqual(row?.endedAt, null);
  });

  it('refuses to complete while an acknowledged list misses a pending instruction', async () => {
    const sessionId = backend.fixtures.closedloop.withPendingInstructions;
    const before = await pending(sessionId);
    assert.ok(before.length >= 2);
    assert.ok(
      before.every(
        (i) =>
          /^instr_/.test(i.id) && typeof i.text === 'string' && typeof i.processed === 'boolean',
      ),
    );
    const partial = await callTool(client, 'session_complete', {
      sessionId,
      idempotencyKey: randomUUID(),
      acknowledgedInstructionIds: [before[0].id],
    });
    assert.equal(partial.isError, true);
    assert.match(partial.text, new RegExp(before[1].id));
    assert.equal(backend.state.appliedCompletions(sessionId), 0);
    assert.equal((await pending(sessionId)).length, before.length);

    const complete = await callTool(client, 'session_complete', {
      sessionId,
      idempotencyKey: randomUUID(),
      acknowledgedInstructionIds: before.map((i) => i.id),
      requestReview: true,
    });
    assert.equal(complete.isError, false, complete.text);
    assert.deepEqual(
      [...complete.json.acknowledgedInstructionIds].sort(),
      before.map((i) => i.id).sort(),
    );
    assert.deepEqual(complete.json.unacknowledgedInstructionIds, []);
    assert.equal(complete.json.reviewRequested, true);
    assert.deepEqual(await pending(sessionId), []);
    assert.ok(backend.state.instructions(sessionId).every((i) => i.state === 'acknowledged'));
  });

  it('completes without acknowledgements and closes the remaining instructions visibly as unacknowledged', async () => {
    const fixtures = backend.fixtures.closedloop;
    const reserved = new Set([
      fixtures.withPendingInstructions,
      ...Object.values(fixtures.mainAvailability),
    ]);
    const [sessionId] = (await sessionsWithInstructions(1)).filter((id) => !reserved.has(id));
    assert.ok(sessionId);
    const waiting = await pending(sessionId);
    const result = await callTool(client, 'session_complete', {
      sessionId,
      idempotencyKey: randomUUID(),
      status: 'canceled',
    });
    assert.equal(result.isError, false, result.text);
    assert.equal(result.json.status, 'canceled');
    assert.deepEqual(
      [...result.json.unacknowledgedInstructionIds].sort(),
      waiting.map((i) => i.id).sort(),
    );
    assert.ok(
      backend.state.instructions(sessionId).every((i) => i.state === 'closedUnacknowledged'),
    );
    assert.equal(
      backend.state.completion(sessionId)?.unacknowledgedInstructionIds.length,
      waiting.length,
    );
  });

  it('rejects unknown instruction ids, slugs, ended sessions and review on cancel', async () => {
    const open = backend.fixtures.closedloop.mainAvailability.stale;
    const unknown = await callTool(client, 'session_complete', {
      sessionId: open,
      idempotencyKey: randomUUID(),
      acknowledgedInstructionIds: ['instr_doesnotexist'],
    });
    assert.match(unknown.text, /Unknown instruction/);
    const review = await callTool(client, 'session_complete', {
      sessionId: open,
      idempotencyKey: randomUUID(),
      status: 'canceled',
      requestReview: true,
    });
    assert.equal(review.isError, true);
    const slug = await callTool(client, 'session_complete', {
      sessionId: 'SES-4100',
      idempotencyKey: randomUUID(),
    });
    assert.match(slug.text, /not the slug/);
    const ended = await callTool(client, 'session_complete', {
      sessionId: backend.fixtures.closedloop.mainAvailability.available,
      idempotencyKey: randomUUID(),
    });
    assert.match(ended.text, /already ended/);
    for (const r of [unknown, review, slug, ended]) assert.equal(r.isError, true);
    assert.equal(backend.state.appliedCompletions(open), 0);
  });
});
