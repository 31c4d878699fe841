/**
 * McpSource on a platform (Itential-style) endpoint, and its complete waiting list
 * on the reporting endpoint, against the reference backend over real HTTP. Expected
 * values are read from the backend's tools directly, not from the source under test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { ReferenceBackend } from '../../../../src/demo/server.ts';
import { ITENTIAL_STATUSES } from '../../../../src/demo/data/itential.ts';
import type { SessionSummary } from '../../../../src/domain/session.ts';
import { createMcpToolClient } from '../../../../src/sources/mcp/mcpSdkClient.ts';
import { McpSource } from '../../../../src/sources/mcp/mcpSource.ts';
import { silentLogger } from '../../../../src/util/logger.ts';
import {
  callTool,
  connectMcp,
  startTestBackend,
  type LooseJson,
} from '../../../support/backend.ts';

let backend: ReferenceBackend;
let itential: Client;
/** get_sessions rows as the server sends them. */
let rows: LooseJson[];
/** describe_session's pending_manual_tasks of every RUNNING or PAUSED session. */
const described = new Map<string, LooseJson[] | null>();

before(async () => {
  backend = await startTestBackend();
  itential = await connectMcp(backend, { url: backend.mcpUrls.itential });
  rows = (await callTool(itential, 'get_sessions')).json;
  for (const row of rows.filter((r) => r.status === 'RUNNING' || r.status === 'PAUSED')) {
    const detail = await callTool(itential, 'describe_session', { session_id: row.session_id });
    assert.equal(detail.isError, false);
    described.set(row.session_id, detail.json.pending_manual_tasks);
  }
});
after(async () => {
  await itential.close();
  await backend.close();
});

function source(url: string): McpSource {
  return new McpSource({
    config: { id: 'platform', label: 'Platform', kind: 'mcp', url },
    token: async () => backend.token,
    loadClient: async () => createMcpToolClient,
    log: silentLogger,
    timeoutMs: 5000,
    clientVersion: 'test',
  });
}

async function listAll(s: McpSource, limit: number, filters = {}): Promise<SessionSummary[]> {
  const sessions: SessionSummary[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await s.listSessions({ cursor, limit, filters });
    assert.ok(page.sessions.length <= limit);
    assert.equal(page.invalidRows, 0);
    sessions.push(...page.sessions);
    cursor = page.next;
    pages++;
  } while (cursor !== undefined && pages < 100);
  return sessions;
}

const pendingOf = (id: string) => described.get(id);
const expectedWaiting = () =>
  rows
    .filter((r) => r.status === 'RUNNING' && (pendingOf(r.session_id)?.length ?? 0) > 0)
    .map((r) => r.session_id as string);

describe('McpSource on a platform endpoint', () => {
  it('capabilities follow the platform tools: no comments, no session_complete', async () => {
    const s = source(backend.mcpUrls.itential);
    assert.deepEqual(await s.capabilities(), {
      listSessions: true,
      transcripts: true,
      comments: false,
      usage: true,
      manualTasks: true,
      complete: false,
      interrupt: false,
      resume: false,
    });
    await s.dispose();
  });

  it('lists every platform session, all 8 raw statuses mapped, raw values kept', async () => {
    const s = source(backend.mcpUrls.itential);
    const page = await s.listSessions({ limit: 100 });
    assert.equal(page.total, rows.length);
    assert.equal(page.next, undefined);
    assert.equal(page.invalidRows, 0);
    assert.deepEqual(
      page.sessions.map((x) => x.id),
      rows.map((r) => r.session_id),
    );
    assert.deepEqual(
      new Set(page.sessions.map((x) => x.status.raw)),
      new Set(ITENTIAL_STATUSES),
      'every platform status is present',
    );
    const waiting = new Set(expectedWaiting());
    for (const session of page.sessions) {
      const raw = session.status.raw;
      const expected =
        raw === 'RUNNING' && waiting.has(session.id)
          ? { status: 'waiting', raw }
          : {
              PENDING: { status: 'active', raw },
              RUNNING: { status: 'active', raw },
              PAUSING: { status: 'active', raw },
              CANCELING: { status: 'active', raw },
              PAUSED: { status: 'idle', raw },
              COMPLETE: { status: 'finished', outcome: 'completed', raw },
              CANCELED: { status: 'finished', outcome: 'canceled', raw },
              FAILED: { status: 'error', raw },
            }[raw];
      assert.deepEqual(session.status, expected, `${session.id} (${raw})`);
    }
    const row = rows[0];
    const first = page.sessions[0]!;
    assert.equal(first.harness, row.agent_name);
    assert.equal(first.startedAt, row.started_at);
    assert.equal(first.inputTokens, row.total_input_tokens);
    await s.dispose();
  });

  it('RUNNING sessions with manual tasks are waiting, with their tasks and since when', async () => {
    const s = source(backend.mcpUrls.itential);
    const { sessions } = await s.listSessions({ limit: 100 });
    const byId = new Map(sessions.map((x) => [x.id, x]));
    const expected = expectedWaiting();
    assert.ok(expected.length >= 5, `several sessions wait (${expected.length})`);
    assert.deepEqual(
      sessions.filter((x) => x.status.status === 'waiting').map((x) => x.id),
      expected,
    );
    for (const id of expected) {
      const session = byId.get(id)!;
      const tasks = pendingOf(id)!;
      assert.deepEqual(
        session.pendingTasks?.map((t) => [t.id, t.title, t.viewType, t.completionSupported]),
        tasks.map((t: LooseJson) => [t.work_item_id, t.title, t.view_type, t.completion_supported]),
      );
      assert.ok(session.waitingSince, 'waitingSince is set');
      assert.equal(session.waitingUnknown, undefined);
    }
    const f = backend.fixtures.itential;
    assert.equal(byId.get(f.runningWithTwoTasks)?.pendingTasks?.length, 2);
    assert.equal(byId.get(f.runningWithTasks.ViewData)?.status.status, 'waiting');
    // The oldest task's age dates waitingSince.
    const oldest = Math.max(
      ...pendingOf(f.runningWithTwoTasks)!.map((t: LooseJson) => t.waiting_age_seconds ?? 0),
    );
    const since = Date.parse(byId.get(f.runningWithTwoTasks)!.waitingSince!);
    assert.ok(Math.abs(Date.now() - oldest * 1000 - since) < 60_000);
    // Known "no tasks": active, not unknown.
    const none = byId.get(f.runningNoTasks)!;
    assert.deepEqual(none.status, { status: 'active', raw: 'RUNNING' });
    assert.deepEqual(none.pendingTasks, []);
    assert.equal(none.waitingUnknown, undefined);
    // PAUSED: the platform only looks tasks up while RUNNING, so a task record does not make it wait.
    assert.deepEqual(byId.get(f.pausedWithTaskRecord)?.status, { status: 'idle', raw: 'PAUSED' });
    await s.dispose();
  });

  it('the session whose manual-task lookup fails is "waiting unknown", and only that one', async () => {
    const s = source(backend.mcpUrls.itential);
    const { sessions } = await s.listSessions({ limit: 100 });
    const id = backend.fixtures.itential.runningLookupFails;
    assert.equal(pendingOf(id), null, 'the server says the lookup failed');
    const unknown = sessions.filter((x) => x.waitingUnknown);
    assert.deepEqual(
      unknown.map((x) => x.id),
      [id],
    );
    assert.deepEqual(unknown[0]?.status, { status: 'active', raw: 'RUNNING' });
    await s.dispose();
  });

  it('listWaiting returns the waiting sessions, marked incomplete because of that session', async () => {
    const s = source(backend.mcpUrls.itential);
    const waiting = await s.listWaiting(undefined);
    assert.deepEqual(
      waiting.sessions.map((x) => x.id),
      expectedWaiting(),
    );
    assert.equal(waiting.complete, false);
    await s.dispose();
  });

  it('listWaiting honours the harness filter, as listSessions does', async () => {
    const s = source(backend.mcpUrls.itential);
    const all = await s.listWaiting(undefined);
    const harness = all.sessions[0]!.harness!;
    const filtered = await s.listWaiting({ harness });
    assert.ok(filtered.sessions.length > 0);
    assert.ok(filtered.sessions.length < all.sessions.length, 'the filter narrows the list');
    assert.deepEqual(
      filtered.sessions.map((x) => x.id),
      all.sessions.filter((x) => x.harness === harness).map((x) => x.id),
    );
    const listed = await listAll(s, 100, { harness });
    assert.deepEqual(
      filtered.sessions.map((x) => x.id),
      listed.filter((x) => x.status.status === 'waiting').map((x) => x.id),
    );
    await s.dispose();
  });

  for (const limit of [1, 7, 40]) {
    it(`pages locally: every session exactly once (limit ${limit})`, async () => {
      const s = source(backend.mcpUrls.itential);
      const sessions = await listAll(s, limit);
      const ids = sessions.map((x) => x.id);
      assert.equal(new Set(ids).size, ids.length, 'no session twice');
      assert.deepEqual(
        ids,
        rows.map((r) => r.session_id),
      );
      await s.dispose();
    });
  }

  it('the harness filter applies to local pages and totals', async () => {
    const s = source(backend.mcpUrls.itential);
    const harness = rows[0].agent_name as string;
    const expected = rows.filter((r) => r.agent_name === harness).map((r) => r.session_id);
    const page = await s.listSessions({ limit: 3, filters: { harness } });
    assert.equal(page.total, expected.length);
    const sessions = await listAll(s, 3, { harness });
    assert.deepEqual(
      sessions.map((x) => x.id),
      expected,
    );
    await s.dispose();
  });
});

describe('McpSource.listWaiting on the reporting endpoint', () => {
  let reporting: Client;
  /** Every list-agent-sessions row (default filters), paged directly. */
  let all: LooseJson[];

  before(async () => {
    reporting = await connectMcp(backend, { url: backend.mcpUrls.closedloop });
    all = [];
    let total = Infinity;
    while (all.length < total) {
      const page = await callTool(reporting, 'list-agent-sessions', {
        limit: 100,
        offset: all.length,
      });
      assert.equal(page.isError, false);
      total = page.json.total;
      if (page.json.items.length === 0) break;
      all.push(...page.json.items);
    }
  });
  after(() => reporting.close());

  it('capabilities on the reporting endpoint: no platform tools', async () => {
    const s = source(backend.mcpUrls.closedloop);
    const caps = await s.capabilities();
    assert.equal(caps.manualTasks, false);
    assert.equal(caps.listSessions, true);
    assert.equal(caps.complete, true);
    await s.dispose();
  });

  it('finds exactly the sessions whose returned status is "waiting" among all rows', async () => {
    const expected = all.filter((r) => r.status === 'waiting').map((r) => r.id as string);
    assert.ok(expected.length > 0);
    assert.ok(all.length > 100, 'more rows than one page');
    const s = source(backend.mcpUrls.closedloop);
    const waiting = await s.listWaiting(undefined);
    assert.equal(waiting.complete, true);
    assert.deepEqual(waiting.sessions.map((x) => x.id).sort(), [...expected].sort());
    assert.ok(waiting.sessions.every((x) => x.status.status === 'waiting'));
    await s.dispose();
  });

  it('a status filter does not hide sessions derived as waiting from another stored status', async () => {
    const expected = all.filter((r) => r.status === 'waiting').map((r) => r.id as string);
    const stored = await callTool(reporting, 'list-agent-sessions', {
      limit: 100,
      status: 'waiting',
    });
    assert.ok(
      stored.json.total < expected.length,
      'asking the server for status=waiting misses some (it filters the stored value)',
    );
    const s = source(backend.mcpUrls.closedloop);
    for (const status of ['waiting', 'active', 'error'] as const) {
      const waiting = await s.listWaiting({ status });
      assert.deepEqual(waiting.sessions.map((x) => x.id).sort(), [...expected].sort(), status);
    }
    await s.dispose();
  });
});
