/**
 * The agents REST API source against the reference backend over real HTTP, with
 * injected faults. Expected values come from the backend's own API (fetched
 * directly), never from the source under test.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { InterceptedRequest, ReferenceBackend } from '../../../../src/demo/server.ts';
import { BackendError } from '../../../../src/domain/errors.ts';
import type { SessionSummary } from '../../../../src/domain/session.ts';
import { encodePageKey, decodePageKey } from '../../../../src/demo/rest/paging.ts';
import { AgentsApiSource } from '../../../../src/sources/rest/agentsApiSource.ts';
import { silentLogger, type Logger } from '../../../../src/util/logger.ts';
import { readJson, restFetch, startTestBackend, type LooseJson } from '../../../support/backend.ts';
import { FaultInjector } from '../../../support/faults.ts';

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

function source(
  options: { agents?: string[]; apiKey?: string; log?: Logger } = {},
): AgentsApiSource {
  return new AgentsApiSource({
    config: {
      id: 'rest',
      label: 'REST',
      kind: 'rest',
      url: backend.url,
      ...(options.agents ? { agents: options.agents } : {}),
    },
    apiKey: async () => options.apiKey ?? backend.token,
    log: options.log ?? silentLogger,
    timeoutMs: 5000,
  });
}

/** Pages to the end the way the store does: later pages are told which ids are loaded. */
async function listAll(
  s: AgentsApiSource,
  limit: number,
): Promise<{
  sessions: SessionSummary[];
  pages: number;
  invalidRows: number;
  pagingRepeated: string[];
}> {
  const sessions: SessionSummary[] = [];
  const pagingRepeated: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  let invalidRows = 0;
  do {
    const loaded = new Set(sessions.map((x) => x.id));
    const page = await s.listSessions(cursor === undefined ? { limit } : { cursor, limit, loaded });
    assert.ok(page.sessions.length <= limit, `a page holds at most ${limit}`);
    sessions.push(...page.sessions);
    invalidRows += page.invalidRows;
    pagingRepeated.push(...(page.pagingRepeated ?? []));
    cursor = page.next;
    pages++;
  } while (cursor !== undefined && pages < 200);
  return { sessions, pages, invalidRows, pagingRepeated };
}

/** A logger that keeps the warnings. */
function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { ...silentLogger, warn: (m: string) => void warnings.push(m), warnings };
}

/** The session list of one agent, rewritten by `edit` (page keys decoded to offsets). */
function rewriteSessions(
  agent: string,
  edit: (body: LooseJson, requestOffset: number, scope: string) => LooseJson,
): void {
  const scope = `sessions:${agent}`;
  faults.add({
    match: { area: 'rest', path: `/v2/agents/${agent}/sessions` },
    fault: {
      kind: 'rewriteJson',
      rewrite: (body, req) => {
        if (req.url.pathname !== `/v2/agents/${agent}/sessions`) return body;
        const key = req.url.searchParams.get('page_key');
        return edit(body, key ? (decodePageKey(scope, key) ?? -1) : 0, scope);
      },
    },
  });
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

describe('AgentsApiSource with a broken pager or odd shapes', () => {
  it('a page_key that leads back to an earlier page: that agent stops, no duplicates, the other agents are listed', async () => {
    const [agent, ...others] = [...stored.keys()];
    const limit = 5;
    assert.ok(stored.get(agent!)!.length > 3 * limit, 'the first agent has more than 3 pages');
    // From the third page on, the server's page_key points back at the second page.
    rewriteSessions(agent!, (body, offset, scope) =>
      offset >= 2 * limit ? { ...body, metadata: { page_key: encodePageKey(scope, limit) } } : body,
    );
    const { sessions, pages, pagingRepeated } = await listAll(source(), limit);
    const ids = sessions.map((x) => x.id);
    assert.ok(pages < 20, `paging ended (${pages} pages)`);
    assert.equal(new Set(ids).size, ids.length, 'no session twice');
    assert.deepEqual(pagingRepeated, [agent], 'the agent whose paging repeated is named');
    assert.deepEqual(
      ids.filter((id) => id.startsWith(`${agent}/`)),
      storedIds([agent!]).slice(0, 3 * limit),
      'the rows read before the loop stay',
    );
    assert.deepEqual(
      ids.filter((id) => !id.startsWith(`${agent}/`)),
      storedIds(others),
      'every other agent is still listed, in order',
    );
  });

  it('fresh page keys that serve pages already listed: that agent stops after two such pages, the others are listed', async () => {
    const [agent, ...others] = [...stored.keys()];
    const limit = 5;
    const first = stored.get(agent!)!.slice(0, limit);
    // The server ignores page_key: every page is the first one, under an ever new key.
    rewriteSessions(agent!, (body, offset, scope) =>
      offset > 0
        ? { sessions: first, metadata: { page_key: encodePageKey(scope, offset + limit) } }
        : body,
    );
    const log = recordingLog();
    const { sessions, pages, pagingRepeated } = await listAll(source({ log }), limit);
    const ids = sessions.map((x) => x.id);
    assert.ok(pages < 20, `paging ended (${pages} pages)`);
    assert.equal(new Set(ids).size, ids.length, 'no session twice');
    assert.deepEqual(pagingRepeated, [agent]);
    assert.deepEqual(
      ids.filter((id) => id.startsWith(`${agent}/`)),
      storedIds([agent!]).slice(0, limit),
    );
    assert.deepEqual(
      ids.filter((id) => !id.startsWith(`${agent}/`)),
      storedIds(others),
    );
    assert.equal(
      log.warnings.filter((w) => w.includes('page back to pages already read')).length,
      1,
      'one log line',
    );
  });

  it('a session listed twice in one answer keeps its first row', async () => {
    const agent = [...stored.keys()][1]!;
    rewriteSessions(agent, (body) => ({
      ...body,
      sessions: [...body.sessions, { ...body.sessions[0], name: 'the second copy' }],
    }));
    const { sessions } = await listAll(source({ agents: [agent] }), 100);
    assert.deepEqual(
      sessions.map((x) => x.id),
      storedIds([agent]),
    );
    assert.equal(sessions[0]?.label, stored.get(agent)![0].name, 'the first row stays');
  });

  it('a page key that comes back in the agent list ends it; every agent read is listed', async () => {
    agentsPageSize = 1;
    faults.add({
      match: { area: 'rest', path: /^\/v2\/agents$/ },
      fault: {
        kind: 'rewriteJson',
        // The second page points back at itself.
        rewrite: (body, req) =>
          req.url.searchParams.get('page_key')
            ? { ...(body as object), metadata: { page_key: req.url.searchParams.get('page_key') } }
            : body,
      },
    });
    const [a, b] = [...stored.keys()];
    const { sessions, pagingRepeated } = await listAll(source(), 100);
    assert.deepEqual(
      sessions.map((x) => x.id),
      storedIds([a!, b!]),
    );
    assert.deepEqual(pagingRepeated, ['agent list']);
  });

  for (const shape of [
    {},
    { pending: [{ id: 'call_1' }] },
    { count: 1 },
    { tool_calls: 'call_1' },
    { tool_calls: { id: 'call_1' } },
    { tool_calls: null },
    null,
    '1',
    1,
  ]) {
    it(`an outstanding_client_tool_calls answer of ${JSON.stringify(shape)} makes waiting unknown, never 0`, async () => {
      const ref = backend.fixtures.agents.clientToolPending;
      faults.add({
        match: {
          area: 'rest',
          path: `/v2/agents/${ref.agentKey}/sessions/${ref.sessionKey}/outstanding`,
        },
        fault: { kind: 'rewriteJson', rewrite: () => shape },
      });
      const { sessions } = await listAll(source({ agents: [ref.agentKey] }), 100);
      const s = sessions.find((x) => x.id === `${ref.agentKey}/${ref.sessionKey}`);
      assert.ok(s, 'listed');
      assert.equal(s.waitingUnknown, true, 'waiting is unknown');
      assert.equal(sessions.filter((x) => x.waitingUnknown).length, 1, 'only that session');
    });
  }

  it('outstanding calls as a bare list or {calls: [...]} are read: the session waits', async () => {
    const ref = backend.fixtures.agents.running;
    for (const shape of [
      [{ id: 'c' }],
      { calls: [{ id: 'c' }] },
      { tool_calls: null, calls: [1] },
    ]) {
      faults.clear();
      faults.add({
        match: {
          area: 'rest',
          path: `/v2/agents/${ref.agentKey}/sessions/${ref.sessionKey}/outstanding`,
        },
        fault: { kind: 'rewriteJson', rewrite: () => shape },
      });
      const { sessions } = await listAll(source({ agents: [ref.agentKey] }), 100);
      const s = sessions.find((x) => x.id === `${ref.agentKey}/${ref.sessionKey}`);
      assert.equal(s?.status.status, 'waiting', JSON.stringify(shape));
      assert.equal(s?.waitingUnknown, undefined);
    }
  });

  it('the waiting row with one wrongly typed optional field each time stays listed and waiting; one log line names row and field', async () => {
    const ref = backend.fixtures.agents.clientToolPending;
    const id = `${ref.agentKey}/${ref.sessionKey}`;
    for (const [field, value] of [
      ['enabled', 'yes'],
      ['created_at', 1785585600],
      ['name', { en: 'Chat' }],
      ['metadata', ['a']],
      ['tti_minutes', '30'],
      ['effective_compaction', 'on'],
      ['agent_key', 7],
    ] as const) {
      faults.clear();
      rewriteSessions(ref.agentKey, (body) => ({
        ...body,
        sessions: body.sessions.map((row: LooseJson) =>
          row.key === ref.sessionKey ? { ...row, [field]: value } : row,
        ),
      }));
      const log = recordingLog();
      const s = source({ agents: [ref.agentKey], log });
      const first = await listAll(s, 100);
      await listAll(s, 100);
      assert.equal(first.invalidRows, 0, `${field}: no row dropped`);
      const row = first.sessions.find((x) => x.id === id);
      assert.ok(row, `${field}: the row is kept`);
      assert.equal(row.status.status, 'waiting', `${field}: still waiting`);
      assert.deepEqual(row.unreadableFields, [field]);
      assert.ok(
        row.details?.some(([name, v]) => name === 'Unreadable fields' && v === field),
        'shown in the details',
      );
      const lines = log.warnings.filter((w) => w.includes(ref.sessionKey));
      assert.equal(
        lines.length,
        1,
        `${field}: one log line over two listings (${lines.join(' | ')})`,
      );
      assert.ok(lines[0]!.includes(field) && lines[0]!.includes(id));
    }
  });

  it('a status of the wrong type is "unknown" with the raw value kept; outstanding calls still decide waiting', async () => {
    const { clientToolPending: waitingRef, stopped } = backend.fixtures.agents;
    rewriteSessions(waitingRef.agentKey, (body) => ({
      ...body,
      sessions: body.sessions.map((row: LooseJson) =>
        row.key === waitingRef.sessionKey
          ? { ...row, status: 3 }
          : row.key === stopped.sessionKey
            ? { ...row, status: { state: 'stopped' } }
            : row,
      ),
    }));
    const { sessions, invalidRows } = await listAll(source({ agents: [waitingRef.agentKey] }), 100);
    assert.equal(invalidRows, 0);
    const byId = new Map(sessions.map((x) => [x.id, x]));
    assert.deepEqual(byId.get(`${waitingRef.agentKey}/${waitingRef.sessionKey}`)?.status, {
      status: 'waiting',
      raw: '3',
    });
    const odd = byId.get(`${stopped.agentKey}/${stopped.sessionKey}`);
    assert.deepEqual(odd?.status, { status: 'unknown', raw: '{"state":"stopped"}' });
    assert.deepEqual(odd?.unreadableFields, ['status']);
  });

  it('a row without a readable key is still dropped and counted', async () => {
    const agent = [...stored.keys()][2]!;
    rewriteSessions(agent, (body) => ({
      ...body,
      sessions: body.sessions.map((row: LooseJson, i: number) =>
        i === 0 ? { ...row, key: 12 } : i === 1 ? { ...row, key: undefined } : row,
      ),
    }));
    const { sessions, invalidRows } = await listAll(source({ agents: [agent] }), 100);
    assert.equal(invalidRows, 2);
    assert.deepEqual(
      sessions.map((x) => x.id),
      storedIds([agent]).slice(2),
    );
  });
});
