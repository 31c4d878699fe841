/**
 * The agents REST API source against the reference backend over real HTTP, with
 * injected faults. Expected values come from the backend's own API (fetched
 * directly), never from the source under test.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { InterceptedRequest, ReferenceBackend } from '../../../src/demo/server.ts';
import { BackendError } from '../../../src/domain/errors.ts';
import type { SessionSummary } from '../../../src/domain/session.ts';
import { AgentsApiSource } from '../../../src/sources/rest/agentsApiSource.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { readJson, restFetch, startTestBackend, type LooseJson } from '../../support/backend.ts';
import { FaultInjector } from '../../support/faults.ts';

const faults = new FaultInjector();
/** Requests the backend saw (pathname + search). */
const seen: string[] = [];
/** When set, the backend answers /v2/agents with pages of this size, whatever was asked. */
let agentsPageSize: number | undefined;

let backend: ReferenceBackend;
/** Every stored session by agent, as the API lists them. */
let stored: Map<string, LooseJson[]>;

before(async () => {
  backend = await startTestBackend({
    interceptor: (req: InterceptedRequest, next) => {
      seen.push(req.url.pathname + req.url.search);
      if (agentsPageSize !== undefined && req.url.pathname === '/v2/agents') {
        req.url.searchParams.set('limit', String(agentsPageSize));
      }
      return faults.interceptor(req, next);
    },
  });
  stored = new Map();
  const agents = (await readJson(await restFetch(backend, '/agents?limit=100'))).agents;
  for (const agent of agents as LooseJson[]) {
    const body = await readJson(
      await restFetch(backend, `/agents/${agent.key}/sessions?limit=100`),
    );
    assert.equal(body.metadata.page_key, undefined, 'one page holds every session of an agent');
    stored.set(agent.key, body.sessions);
  }
});
after(() => backend.close());
beforeEach(() => {
  faults.clear();
  seen.length = 0;
  agentsPageSize = undefined;
});

function source(options: { agents?: string[]; apiKey?: string } = {}): AgentsApiSource {
  return new AgentsApiSource({
    config: {
      id: 'rest',
      label: 'REST',
      kind: 'rest',
      url: backend.url,
      ...(options.agents ? { agents: options.agents } : {}),
    },
    apiKey: async () => options.apiKey ?? backend.token,
    log: silentLogger,
    timeoutMs: 5000,
  });
}

async function listAll(
  s: AgentsApiSource,
  limit: number,
): Promise<{ sessions: SessionSummary[]; pages: number; invalidRows: number }> {
  const sessions: SessionSummary[] = [];
  let cursor: string | undefined;
  let pages = 0;
  let invalidRows = 0;
  do {
    const page = await s.listSessions({ cursor, limit });
    assert.ok(page.sessions.length <= limit, `a page holds at most ${limit}`);
    sessions.push(...page.sessions);
    invalidRows += page.invalidRows;
    cursor = page.next;
    pages++;
  } while (cursor !== undefined && pages < 200);
  return { sessions, pages, invalidRows };
}

async function failure(promise: Promise<unknown>): Promise<BackendError> {
  const error = await promise.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof BackendError, `a BackendError, got ${String(error)}`);
  assert.equal(error.message.includes(backend.token), false, 'the key is not in the message');
  return error;
}

const storedIds = (agents?: string[]) =>
  [...stored.entries()]
    .filter(([agent]) => !agents || agents.includes(agent))
    .flatMap(([, sessions]) => sessions.map((x: LooseJson) => `${x.agent_key}/${x.key}`));

describe('AgentsApiSource', () => {
  it('with no agents configured, lists the sessions of every agent, in API order', async () => {
    assert.ok(stored.size >= 2, 'the backend has several agents');
    const { sessions, invalidRows } = await listAll(source(), 100);
    assert.equal(invalidRows, 0);
    assert.deepEqual(
      sessions.map((x) => x.id),
      storedIds(),
    );
    assert.ok(sessions.every((x) => x.connectionId === 'rest'));
  });

  it('with agents configured, lists only theirs (in the configured order) and never lists agents', async () => {
    const [first, second] = [...stored.keys()];
    const { sessions } = await listAll(source({ agents: [second!, first!] }), 100);
    assert.deepEqual(
      sessions.map((x) => x.id),
      [...storedIds([second!]), ...storedIds([first!])],
    );
    assert.equal(
      seen.some((p) => p.startsWith('/v2/agents?') || p === '/v2/agents'),
      false,
      'the agent list is not needed',
    );
  });

  for (const limit of [1, 7, 10, 28, 100]) {
    it(`pages with page_key across agents: every session exactly once (limit ${limit})`, async () => {
      const expected = storedIds();
      const { sessions, pages } = await listAll(source(), limit);
      const ids = sessions.map((x) => x.id);
      assert.equal(new Set(ids).size, ids.length, 'no session twice');
      assert.deepEqual(ids, expected, 'every session, in order');
      assert.equal(pages, Math.ceil(expected.length / limit), 'every page is full but the last');
      if (limit < 28) {
        assert.ok(
          seen.some((p) => p.includes('page_key=')),
          'the source followed the server page_key',
        );
      }
    });
  }

  it('lists the sessions of every agent even when the agent list itself is paged', async () => {
    agentsPageSize = 1;
    const { sessions } = await listAll(source(), 100);
    assert.deepEqual(
      sessions.map((x) => x.id),
      storedIds(),
    );
  });

  it('maps fields: label, harness, startedAt; stopped and unstarted are idle', async () => {
    const { sessions } = await listAll(source(), 100);
    const byId = new Map(sessions.map((x) => [x.id, x]));
    for (const [, list] of stored) {
      for (const raw of list) {
        const s = byId.get(`${raw.agent_key}/${raw.key}`);
        assert.ok(s, `${raw.key} listed`);
        assert.equal(s.label, raw.name);
        assert.equal(s.harness, raw.agent_key);
        assert.equal(s.startedAt, raw.created_at);
        assert.equal(s.status.raw, raw.status);
        if (raw.status === 'stopped' || raw.status === 'unstarted') {
          assert.equal(s.status.status, 'idle', `${raw.key} (${raw.status}) is idle, not finished`);
        }
      }
    }
    const stopped = backend.fixtures.agents.stopped;
    assert.deepEqual(byId.get(`${stopped.agentKey}/${stopped.sessionKey}`)?.status, {
      status: 'idle',
      raw: 'stopped',
    });
  });

  it('running sessions with outstanding client tool calls are waiting; other running ones active', async () => {
    const { sessions } = await listAll(source(), 100);
    const byId = new Map(sessions.map((x) => [x.id, x]));
    let waiting = 0;
    let active = 0;
    for (const [agent, list] of stored) {
      for (const raw of list.filter((x: LooseJson) => x.status === 'running')) {
        const calls = await readJson(
          await restFetch(
            backend,
            `/agents/${agent}/sessions/${raw.key}/outstanding_client_tool_calls`,
          ),
        );
        const expected = calls.tool_calls.length > 0 ? 'waiting' : 'active';
        if (expected === 'waiting') waiting++;
        else active++;
        assert.equal(byId.get(`${agent}/${raw.key}`)?.status.status, expected, raw.key);
      }
    }
    assert.ok(
      waiting >= 2 && active >= 2,
      `both kinds exist (${waiting} waiting, ${active} active)`,
    );
    const { clientToolPending, showcase, running } = backend.fixtures.agents;
    for (const ref of [clientToolPending, showcase]) {
      assert.equal(byId.get(`${ref.agentKey}/${ref.sessionKey}`)?.status.status, 'waiting');
    }
    assert.equal(byId.get(`${running.agentKey}/${running.sessionKey}`)?.status.status, 'active');
    assert.equal(
      sessions.filter((x) => x.status.status === 'waiting' && x.status.raw !== 'running').length,
      0,
      'only running sessions wait',
    );
  });

  it('a failed outstanding-calls lookup leaves the session "waiting unknown", not silently active', async () => {
    const ref = backend.fixtures.agents.clientToolPending;
    faults.add({
      match: {
        area: 'rest',
        path: `/v2/agents/${ref.agentKey}/sessions/${ref.sessionKey}/outstanding`,
      },
      fault: { kind: 'status', status: 503 },
    });
    const { sessions } = await listAll(source({ agents: [ref.agentKey] }), 100);
    const s = sessions.find((x) => x.id === `${ref.agentKey}/${ref.sessionKey}`);
    assert.ok(s);
    assert.notEqual(s.status.status, 'waiting');
    assert.equal(s.waitingUnknown, true);
    assert.equal(
      sessions.filter((x) => x.waitingUnknown).length,
      1,
      'only the session whose lookup failed',
    );
  });

  it('created_by_agent_key/created_by_session_key become parentId (a listed session id)', async () => {
    const { sessions } = await listAll(source(), 100);
    const ids = new Set(sessions.map((x) => x.id));
    const withParent = [...stored.values()]
      .flat()
      .filter((x: LooseJson) => x.created_by_agent_key && x.created_by_session_key);
    assert.ok(withParent.length > 0, 'the backend has subagent sessions');
    for (const raw of withParent) {
      const s = sessions.find((x) => x.id === `${raw.agent_key}/${raw.key}`);
      const parent = `${raw.created_by_agent_key}/${raw.created_by_session_key}`;
      assert.equal(s?.parentId, parent);
      assert.ok(ids.has(parent), 'the parent id is the id the parent is listed under');
    }
    const child = backend.fixtures.agents.child;
    assert.ok(sessions.find((x) => x.id === `${child.agentKey}/${child.sessionKey}`)?.parentId);
    assert.equal(
      sessions.filter((x) => x.parentId).length,
      withParent.length,
      'sessions without a creator have no parent',
    );
  });

  it('a wrong key is unauthorized, whether or not agents are configured', async () => {
    const listing = await failure(source({ apiKey: 'wrong' }).listSessions({ limit: 10 }));
    assert.equal(listing.kind, 'unauthorized');
    assert.equal(listing.status, 401);
    const configured = await failure(
      source({ apiKey: 'wrong', agents: ['customer_support'] }).listSessions({ limit: 10 }),
    );
    assert.equal(configured.kind, 'unauthorized');
  });

  it('503 is a server error; the same source works again afterwards', async () => {
    const s = source();
    faults.add({
      match: { area: 'rest', path: /^\/v2\/agents\/[^/]+\/sessions$/ },
      fault: { kind: 'status', status: 503 },
      times: 1,
    });
    const error = await failure(s.listSessions({ limit: 10 }));
    assert.equal(error.kind, 'server');
    assert.equal(error.status, 503);
    assert.equal((await s.listSessions({ limit: 10 })).sessions.length, 10);
  });

  it('a 503 on the agent list is a server error and is not cached', async () => {
    const s = source();
    faults.add({
      match: { area: 'rest', path: /^\/v2\/agents$/ },
      fault: { kind: 'status', status: 503 },
      times: 1,
    });
    assert.equal((await failure(s.listSessions({ limit: 5 }))).kind, 'server');
    assert.equal((await s.listSessions({ limit: 5 })).sessions.length, 5);
  });

  it('a schema-violating session list: its rows are counted as invalid, valid pages kept', async () => {
    const s = source();
    faults.add({
      match: { area: 'rest', path: /^\/v2\/agents\/[^/]+\/sessions$/ },
      fault: { kind: 'schemaViolation' },
      times: 1,
    });
    const page = await s.listSessions({ limit: 10 });
    // The first answer lost every row's key: its 10 rows are counted, and the source
    // read on (the page_key survived) to fill the page with the next 10 sessions.
    assert.equal(page.invalidRows, 10);
    assert.deepEqual(
      page.sessions.map((x) => x.id),
      storedIds().slice(10, 20),
    );
  });

  it('a schema-violating agent list is an invalid response; the next call recovers', async () => {
    const s = source();
    faults.add({
      match: { area: 'rest', path: /^\/v2\/agents$/ },
      fault: { kind: 'schemaViolation' },
      times: 1,
    });
    assert.equal((await failure(s.listSessions({ limit: 5 }))).kind, 'invalidResponse');
    assert.equal((await s.listSessions({ limit: 5 })).sessions.length, 5);
  });

  it('malformed JSON is an invalid response', async () => {
    faults.add({
      match: { area: 'rest', path: /^\/v2\/agents\/[^/]+\/sessions$/ },
      fault: { kind: 'malformedJson' },
      times: 1,
    });
    const error = await failure(
      source({ agents: ['customer_support'] }).listSessions({ limit: 5 }),
    );
    assert.equal(error.kind, 'invalidResponse');
  });

  it('test() resolves with the agent count', async () => {
    assert.equal(await source().test(), `${stored.size} agents`);
    assert.equal(await source({ agents: ['customer_support'] }).test(), '1 agents');
  });

  it('test() with a wrong key fails, even with agents configured', async () => {
    assert.equal((await failure(source({ apiKey: 'wrong' }).test())).kind, 'unauthorized');
    assert.equal(
      (await failure(source({ apiKey: 'wrong', agents: ['customer_support'] }).test())).kind,
      'unauthorized',
    );
  });
});
