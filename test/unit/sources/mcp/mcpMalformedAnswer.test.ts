/**
 * A malformed answer from an MCP server is reported as malformed when it arrives, in the
 * JSON body of a POST and in a server-sent event alike, and 404s are "not found".
 * Real HTTP against the reference backend, through the SDK chunk the extension loads.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { BackendError } from '../../../../src/domain/errors.ts';
import type { ReferenceBackend } from '../../../../src/demo/server.ts';
import { createMcpToolClient } from '../../../../src/sources/mcp/mcpSdkClient.ts';
import { McpSource } from '../../../../src/sources/mcp/mcpSource.ts';
import { silentLogger } from '../../../../src/util/logger.ts';
import { startTestBackend } from '../../../support/backend.ts';
import { FaultInjector } from '../../../support/faults.ts';

const faults = new FaultInjector();
let backend: ReferenceBackend;

before(async () => {
  backend = await startTestBackend({ interceptor: faults.interceptor });
});
after(() => backend.close());
beforeEach(() => faults.clear());

/** A timeout far longer than any test: a malformed answer must not wait for it. */
const LONG_TIMEOUT_MS = 20_000;

function source(url = backend.mcpUrl): McpSource {
  return new McpSource({
    config: { id: 'malformed', label: 'Malformed', kind: 'mcp', url },
    token: async () => backend.token,
    loadClient: async () => createMcpToolClient,
    log: silentLogger,
    timeoutMs: LONG_TIMEOUT_MS,
    clientVersion: 'test',
  });
}

async function failure(promise: Promise<unknown>): Promise<BackendError> {
  const error = await promise.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof BackendError, `a BackendError, got ${String(error)}`);
  return error;
}

for (const as of [undefined, 'sse'] as const) {
  test(`malformed JSON ${as ? 'in a server-sent event' : 'as the JSON body'} is "malformed", not a timeout`, async () => {
    const s = source();
    await s.capabilities();
    faults.add({
      match: { area: 'mcp', tool: 'list-agent-sessions' },
      fault: { kind: 'malformedJson', as },
      times: 1,
    });
    const error = await failure(s.listSessions({ limit: 3 }));
    assert.equal(error.kind, 'invalidResponse', error.message);
    assert.match(error.message, /malformed/);
    const page = await s.listSessions({ limit: 3 });
    assert.equal(page.sessions.length, 3, 'the next call reads normally');
    await s.dispose();
  });
}

test('a malformed event fails only the call it answers', async () => {
  const s = source();
  await s.capabilities();
  faults.add({
    match: { area: 'mcp', tool: 'list-agent-sessions' },
    fault: { kind: 'malformedJson', as: 'sse' },
    times: 1,
  });
  const [broken, fine] = await Promise.allSettled([
    s.listSessions({ limit: 3 }),
    s.callJson('describe_session_token_usage', {
      session_id: backend.fixtures.itential.runningNoTasks,
    }),
  ]);
  assert.equal(broken.status, 'rejected');
  assert.equal(fine.status, 'fulfilled', fine.status === 'rejected' ? String(fine.reason) : '');
  await s.dispose();
});

test('an MCP URL with nothing behind it is "not found" (404)', async () => {
  const error = await failure(
    source(`${backend.url}/mcp/no-such-system`).listSessions({ limit: 1 }),
  );
  assert.equal(error.kind, 'notFound');
  assert.equal(error.status, 404);
});

test('a tool that answers 404 for a missing record is "not found"', async () => {
  const s = source();
  const error = await failure(s.describeManualTask('no-such-task'));
  assert.equal(error.kind, 'notFound');
  await s.dispose();
});
