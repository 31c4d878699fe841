/**
 * The MCP adapter against the reference backend over real HTTP, through the
 * official SDK client (the same chunk the extension loads), with injected faults.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { BackendError } from '../../../../src/domain/errors.ts';
import type { ReferenceBackend } from '../../../../src/demo/server.ts';
import { createMcpToolClient } from '../../../../src/sources/mcp/mcpSdkClient.ts';
import { McpSource } from '../../../../src/sources/mcp/mcpSource.ts';
import { silentLogger } from '../../../../src/util/logger.ts';
import { FaultInjector } from '../../../support/faults.ts';
import { startTestBackend } from '../../../support/backend.ts';

const faults = new FaultInjector();
let backend: ReferenceBackend;

before(async () => {
  backend = await startTestBackend({ interceptor: faults.interceptor });
});
after(() => backend.close());
beforeEach(() => faults.clear());

function source(options: { token?: string; timeoutMs?: number; url?: string } = {}): McpSource {
  return new McpSource({
    config: { id: 'test', label: 'Test', kind: 'mcp', url: options.url ?? backend.mcpUrl },
    token: async () => options.token ?? backend.token,
    loadClient: async () => createMcpToolClient,
    log: silentLogger,
    timeoutMs: options.timeoutMs ?? 5000,
    clientVersion: 'test',
  });
}

async function failure(promise: Promise<unknown>): Promise<BackendError> {
  const error = await promise.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof BackendError, `a BackendError, got ${String(error)}`);
  assert.equal(error.message.includes(backend.token), false, 'the token is not in the message');
  return error;
}

test('capabilities follow the tools the server lists', async () => {
  const s = source();
  const caps = await s.capabilities();
  assert.deepEqual(caps, {
    listSessions: true,
    transcripts: true,
    comments: true,
    usage: true,
    manualTasks: true,
    complete: true,
    interrupt: false,
    resume: false,
  });
  assert.deepEqual(Object.keys(s.operations).sort(), ['complete', 'manualTasks', 'tools']);
  await s.dispose();
});

test('pages through every session; totals agree', async () => {
  const s = source();
  const seen = new Set<string>();
  let cursor: string | undefined;
  let total: number | undefined;
  let pages = 0;
  do {
    const page = await s.listSessions({ cursor, limit: 40 });
    page.sessions.forEach((x) => seen.add(x.id));
    assert.equal(page.invalidRows, 0);
    total = page.total;
    cursor = page.next;
    pages++;
  } while (cursor !== undefined && pages < 50);
  assert.ok(total && total >= 150, `the demo has many substantive sessions (${total})`);
  assert.equal(seen.size, total, 'every session once');
  assert.ok(pages >= 4);
  await s.dispose();
});

test('server-derived statuses land in every group, raw values kept', async () => {
  const s = source();
  const sessions = [];
  let cursor: string | undefined;
  do {
    const page = await s.listSessions({ cursor, limit: 100 });
    sessions.push(...page.sessions);
    cursor = page.next;
  } while (cursor !== undefined);
  const page = { sessions };
  const groups = new Set(page.sessions.map((x) => x.status.status));
  for (const g of ['waiting', 'active', 'finished', 'error', 'stale', 'unknown']) {
    assert.ok(groups.has(g as never), `group ${g} is present`);
  }
  const unknown = page.sessions.filter((x) => x.status.status === 'unknown');
  assert.ok(unknown.every((x) => typeof x.status.raw === 'string'));
  await s.dispose();
});

test('a wrong token is unauthorized (401)', async () => {
  const error = await failure(source({ token: 'wrong' }).listSessions({ limit: 5 }));
  assert.equal(error.kind, 'unauthorized');
});

test('monitoring disabled is forbidden (403), not a bad token', async () => {
  backend.setMonitoringEnabled(false);
  try {
    const error = await failure(source().listSessions({ limit: 5 }));
    assert.equal(error.kind, 'forbidden');
    assert.match(error.message, /monitoring/i);
  } finally {
    backend.setMonitoringEnabled(true);
  }
});

test('5xx and 429 from the endpoint are typed; the next call reconnects', async () => {
  const s = source();
  await s.listSessions({ limit: 1 });
  faults.add({
    match: { area: 'mcp', tool: 'list-agent-sessions' },
    fault: { kind: 'status', status: 503 },
    times: 1,
  });
  assert.equal((await failure(s.listSessions({ limit: 1 }))).kind, 'server');
  faults.add({
    match: { area: 'mcp', tool: 'list-agent-sessions' },
    fault: { kind: 'rateLimit', retryAfterSeconds: 3 },
    times: 1,
  });
  const limited = await failure(s.listSessions({ limit: 1 }));
  assert.equal(limited.kind, 'rateLimited');
  assert.equal(limited.retryAfterSeconds, 3);
  assert.equal((await s.listSessions({ limit: 1 })).sessions.length, 1, 'works again afterwards');
  await s.dispose();
});

test('a malformed answer fails within the timeout, not after a minute', async () => {
  const s = source({ timeoutMs: 1500 });
  await s.capabilities();
  faults.add({
    match: { area: 'mcp', tool: 'list-agent-sessions' },
    fault: { kind: 'malformedJson' },
    times: 1,
  });
  const started = Date.now();
  const error = await failure(s.listSessions({ limit: 3 }));
  assert.ok(Date.now() - started < 5000, 'answered quickly');
  assert.ok(['invalidResponse', 'timeout'].includes(error.kind), error.kind);
  await s.dispose();
});

test('schema-violating rows are counted, valid data kept', async () => {
  const s = source();
  await s.capabilities();
  faults.add({
    match: { area: 'mcp', tool: 'list-agent-sessions' },
    fault: { kind: 'schemaViolation' },
    times: 1,
  });
  const page = await s.listSessions({ limit: 10 });
  assert.equal(page.invalidRows, 10, 'every row without an id is counted as unreadable');
  assert.equal(page.sessions.length, 0);
  assert.equal(page.total, undefined, 'a total sent as text is not trusted');
  const next = await s.listSessions({ limit: 10 });
  assert.equal(next.sessions.length, 10, 'the next answer reads normally again');
  await s.dispose();
});

test('a refused connection is a network error', async () => {
  const error = await failure(source({ url: 'http://127.0.0.1:9/mcp' }).listSessions({ limit: 1 }));
  assert.equal(error.kind, 'network');
});
