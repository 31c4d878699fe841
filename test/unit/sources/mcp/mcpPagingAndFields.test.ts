/**
 * Hostile and broken MCP answers against the reference backend over real HTTP, rewritten
 * by the fault injector: paging that repeats itself (reporting offsets), rows with one
 * wrongly typed field, and waiting inputs (manual tasks) in shapes we do not know.
 * Expected values come from the backend's own tools, read directly.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { ReferenceBackend } from '../../../../src/demo/server.ts';
import { deriveReportingStatus } from '../../../../src/domain/derivedStatus.ts';
import type { SessionSummary } from '../../../../src/domain/session.ts';
import { createMcpToolClient } from '../../../../src/sources/mcp/mcpSdkClient.ts';
import { McpSource } from '../../../../src/sources/mcp/mcpSource.ts';
import { sessionCostSeries } from '../../../../src/sources/usage/costSeries.ts';
import { SessionStore } from '../../../../src/store/sessionStore.ts';
import { silentLogger, type Logger } from '../../../../src/util/logger.ts';
import {
  callTool,
  connectMcp,
  startTestBackend,
  type LooseJson,
} from '../../../support/backend.ts';
import { FaultInjector } from '../../../support/faults.ts';

const faults = new FaultInjector();
let backend: ReferenceBackend;
let reporting: Client;
let platform: Client;

before(async () => {
  backend = await startTestBackend({ interceptor: faults.interceptor });
  reporting = await connectMcp(backend);
  platform = await connectMcp(backend, { url: backend.mcpUrls.itential });
});
after(async () => {
  await reporting.close();
  await platform.close();
  await backend.close();
});
beforeEach(() => faults.clear());

function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { ...silentLogger, warn: (m: string) => void warnings.push(m), warnings };
}

function source(url: string, log: Logger = silentLogger): McpSource {
  return new McpSource({
    config: { id: 'test', label: 'Test', kind: 'mcp', url },
    token: async () => backend.token,
    loadClient: async () => createMcpToolClient,
    log,
    timeoutMs: 5000,
    clientVersion: 'test',
  });
}

/** Rewrites the JSON result of one tool (text and structured content alike). */
function rewriteTool(tool: string, rewrite: (value: LooseJson, args: LooseJson) => unknown): void {
  faults.add({
    match: { area: 'mcp', tool },
    fault: { kind: 'rewriteJson', rewrite: (value, req) => rewrite(value, req.toolArguments) },
  });
}

async function rawPage(limit: number, offset: number): Promise<LooseJson> {
  return (await callTool(reporting, 'list-agent-sessions', { limit, offset })).json;
}

describe('list-agent-sessions paging that repeats itself', () => {
  /** The server ignores the offset: every page is the first one. */
  async function sameFirstPage(limit: number): Promise<LooseJson[]> {
    const first = (await rawPage(limit, 0)).items as LooseJson[];
    rewriteTool('list-agent-sessions', (value, args) =>
      args.offset > 0 && args.limit === limit ? { ...value, items: first } : value,
    );
    return first;
  }

  it('a later page of sessions already loaded ends paging: no rows, no next, the listing named', async () => {
    const first = await sameFirstPage(20);
    const s = source(backend.mcpUrl);
    const page1 = await s.listSessions({ limit: 20 });
    assert.deepEqual(
      page1.sessions.map((x) => x.id),
      first.map((x) => x.id),
    );
    assert.ok(page1.next !== undefined);
    const page2 = await s.listSessions({
      cursor: page1.next,
      limit: 20,
      loaded: new Set(page1.sessions.map((x) => x.id)),
    });
    assert.deepEqual(page2.sessions, []);
    assert.equal(page2.next, undefined);
    assert.deepEqual(page2.pagingRepeated, ['list-agent-sessions']);
    await s.dispose();
  });

  it('in the store: Load more stops at once with "paging repeated", the loaded rows stay, each once', async () => {
    const first = await sameFirstPage(20);
    const log = recordingLog();
    const s = source(backend.mcpUrl);
    const store = new SessionStore({ createSource: () => s, log, pageSize: () => 20 });
    store.setConnections([{ id: 'test', label: 'Test', kind: 'mcp', url: backend.mcpUrl }]);
    await store.refresh('test');
    const state = store.state('test')!;
    assert.ok(state.next !== undefined, 'more pages announced');
    for (let i = 0; i < 5 && state.next !== undefined; i++) await store.loadMore('test');
    assert.equal(state.next, undefined, 'Load more is gone');
    assert.deepEqual(state.pagingRepeated, ['list-agent-sessions']);
    assert.deepEqual(
      state.sessions.map((x) => x.id),
      first.map((x) => x.id),
    );
    assert.equal(log.warnings.filter((w) => w.includes('paging repeated itself')).length, 1);
    // A poll refreshes the first page: paging stays stopped, the node stays.
    await store.refresh('test');
    assert.deepEqual(state.pagingRepeated, ['list-agent-sessions']);
    store.dispose();
  });

  it('the waiting scan lists each waiting session once and says it is incomplete', async () => {
    await sameFirstPage(100);
    const total = (await rawPage(1, 0)).total as number;
    assert.ok(total > 100, 'more than one scan page');
    const s = source(backend.mcpUrl);
    const waiting = await s.listWaiting(undefined);
    const ids = waiting.sessions.map((x) => x.id);
    assert.equal(new Set(ids).size, ids.length, 'no waiting session twice');
    assert.equal(waiting.complete, false, 'the count may be short: "+?"');
    await s.dispose();
  });

  it('the cost series counts each session once and says it is incomplete', async () => {
    const first = await sameFirstPage(100);
    const s = source(backend.mcpUrl);
    const { series } = await sessionCostSeries(s, {});
    assert.equal(series.sessionsRead, first.length, 'no session counted twice');
    assert.equal(
      series.points.reduce((n, p) => n + p.sessionCount, 0),
      first.length,
    );
    assert.equal(series.complete, false);
    await s.dispose();
  });

  it('a session sent twice in one page keeps its first row', async () => {
    const expected = (await rawPage(5, 0)).items as LooseJson[];
    rewriteTool('list-agent-sessions', (value) => ({
      ...value,
      items: [...value.items, { ...value.items[0], name: 'second copy' }],
    }));
    const s = source(backend.mcpUrl);
    const page = await s.listSessions({ limit: 5 });
    assert.deepEqual(
      page.sessions.map((x) => x.id),
      expected.map((x) => x.id),
    );
    assert.equal(page.sessions[0]?.label, expected[0].name);
    await s.dispose();
  });
});

/** One wrongly typed optional field per row, in turn. */
const REPORTING_BAD_FIELDS: [string, unknown][] = [
  ['estimatedCost', '0.5'],
  ['inputTokens', { n: 1 }],
  ['harness', 42],
  ['startedAt', 17],
  ['user.email', 5],
  ['status', 3],
  ['name', ['x']],
  ['agentCount', 'many'],
  ['cacheReadTokens', true],
  ['lastActivityAt', {}],
  ['model', 5],
  ['baseBranch', []],
];

function withField(row: LooseJson, path: string, value: unknown): LooseJson {
  const [head, ...rest] = path.split('.');
  return rest.length
    ? { ...row, [head!]: withField(row[head!] ?? {}, rest.join('.'), value) }
    : { ...row, [head!]: value };
}

describe('list-agent-sessions rows with one wrongly typed field', () => {
  it('every row is kept, the bad field named; one log line per row, over two polls', async () => {
    const original = (await rawPage(60, 0)).items as LooseJson[];
    const badField = (i: number) => REPORTING_BAD_FIELDS[i % REPORTING_BAD_FIELDS.length]!;
    rewriteTool('list-agent-sessions', (value) => ({
      ...value,
      items: value.items.map((row: LooseJson, i: number) =>
        withField(row, badField(i)[0], badField(i)[1]),
      ),
    }));
    const log = recordingLog();
    const s = source(backend.mcpUrl, log);
    const page = await s.listSessions({ limit: 60 });
    await s.listSessions({ limit: 60 });
    assert.equal(page.invalidRows, 0, 'no row dropped');
    assert.deepEqual(
      page.sessions.map((x) => x.id),
      original.map((x) => x.id),
    );
    page.sessions.forEach((session, i) => {
      const [field] = badField(i);
      const raw = original[i]!;
      assert.deepEqual(session.unreadableFields, [field], session.id);
      assert.ok(session.details?.some(([n, v]) => n === 'Unreadable fields' && v === field));
      if (field === 'status') {
        assert.deepEqual(session.status, { status: 'unknown', raw: '3' }, 'raw kept');
        assert.equal(session.waitingUnknown, true, 'it may have been waiting');
      } else {
        assert.deepEqual(session.status, deriveReportingStatus(raw.status));
        assert.equal(session.waitingUnknown, undefined);
      }
      const lines = log.warnings.filter((w) => w.includes(session.id));
      assert.equal(lines.length, 1, `one line for ${session.id}`);
      assert.ok(lines[0]!.includes(field));
    });
    const waiting = page.sessions.filter((x) => x.status.status === 'waiting');
    assert.ok(waiting.length > 0, 'waiting rows with a bad field still wait');
    assert.equal(
      page.sessions.find((x) => x.unreadableFields?.[0] === 'estimatedCost')?.estimatedCost,
      undefined,
    );
    await s.dispose();
  });

  it('a status we cannot read makes the complete waiting list incomplete ("+?")', async () => {
    rewriteTool('list-agent-sessions', (value) => ({
      ...value,
      items: value.items.map((row: LooseJson, i: number) =>
        i === 0 ? { ...row, status: { value: 'waiting' } } : row,
      ),
    }));
    const s = source(backend.mcpUrl);
    const waiting = await s.listWaiting(undefined);
    assert.equal(waiting.complete, false);
    await s.dispose();
  });

  it('a row without a readable id is dropped and counted', async () => {
    rewriteTool('list-agent-sessions', (value) => ({
      ...value,
      items: value.items.map((row: LooseJson, i: number) =>
        i === 0 ? { ...row, id: 7 } : i === 1 ? { ...row, id: '' } : row,
      ),
    }));
    const original = (await rawPage(10, 0)).items as LooseJson[];
    const s = source(backend.mcpUrl);
    const page = await s.listSessions({ limit: 10 });
    assert.equal(page.invalidRows, 2);
    assert.deepEqual(
      page.sessions.map((x) => x.id),
      original.slice(2).map((x) => x.id),
    );
    await s.dispose();
  });
});

describe('platform rows and manual tasks in unexpected shapes', () => {
  const PLATFORM_BAD_FIELDS: [string, unknown][] = [
    ['started_at', 17],
    ['duration_ms', '5'],
    ['agent_name', {}],
    ['end_time', 5],
    ['total_input_tokens', '12'],
    ['status', 9],
  ];

  async function listAll(s: McpSource): Promise<{ sessions: SessionSummary[]; invalid: number }> {
    const sessions: SessionSummary[] = [];
    let invalid = 0;
    let cursor: string | undefined;
    do {
      const page = await s.listSessions({ cursor, limit: 100 });
      sessions.push(...page.sessions);
      invalid += page.invalidRows;
      cursor = page.next;
    } while (cursor !== undefined);
    return { sessions, invalid };
  }

  it('get_sessions rows with one wrongly typed field each are all kept; a bad status on a waiting session still waits', async () => {
    const rows = (await callTool(platform, 'get_sessions')).json as LooseJson[];
    const waitingId = backend.fixtures.itential.runningWithTasks.ViewData;
    const badField = (i: number) => PLATFORM_BAD_FIELDS[i % PLATFORM_BAD_FIELDS.length]!;
    const edit = (list: LooseJson[]) =>
      list.map((row: LooseJson, i: number) =>
        row.session_id === waitingId
          ? { ...row, status: 9 }
          : { ...row, [badField(i)[0]]: badField(i)[1] },
      );
    // A bare list in the text, {result: [...]} in structured content (FastMCP style).
    rewriteTool('get_sessions', (value) =>
      Array.isArray(value) ? edit(value) : { ...value, result: edit(value.result) },
    );
    const log = recordingLog();
    const s = source(backend.mcpUrls.itential, log);
    const { sessions, invalid } = await listAll(s);
    assert.equal(invalid, 0, 'no row dropped');
    assert.deepEqual(
      sessions.map((x) => x.id),
      rows.map((r) => r.session_id),
    );
    const waiting = sessions.find((x) => x.id === waitingId);
    assert.equal(waiting?.status.status, 'waiting', 'described as RUNNING with tasks');
    assert.ok(waiting?.pendingTasks?.length);
    for (const [i, session] of sessions.entries()) {
      const field = session.id === waitingId ? 'status' : badField(i)[0];
      assert.deepEqual(session.unreadableFields, [field], session.id);
      assert.equal(log.warnings.filter((w) => w.includes(session.id)).length, 1);
    }
    await s.dispose();
  });

  it('describe_session with a wrongly typed status or task field: the tasks are still read, the session waits', async () => {
    const id = backend.fixtures.itential.runningWithTasks.ViewData;
    for (const edit of [
      (v: LooseJson) => ({ ...v, status: 5 }),
      (v: LooseJson) => ({
        ...v,
        pending_manual_tasks: v.pending_manual_tasks.map((t: LooseJson) => ({
          ...t,
          title: 5,
          waiting_age_seconds: 'old',
        })),
      }),
      (v: LooseJson) => ({ ...v, session_id: 42 }),
    ]) {
      faults.clear();
      rewriteTool('describe_session', (value, args) =>
        args.session_id === id ? edit(value) : value,
      );
      const s = source(backend.mcpUrls.itential);
      const waiting = await s.listWaiting(undefined);
      const session = waiting.sessions.find((x) => x.id === id);
      assert.ok(session, 'still waiting');
      assert.ok(session.pendingTasks?.length);
      assert.equal(session.waitingUnknown, undefined);
      await s.dispose();
    }
  });

  for (const shape of [{ tasks: [] }, 2, 'none', { work_item_id: 'x' }, true]) {
    it(`pending_manual_tasks of ${JSON.stringify(shape)} is unknown, never "no tasks"`, async () => {
      const id = backend.fixtures.itential.runningWithTasks.ViewData;
      rewriteTool('describe_session', (value, args) =>
        args.session_id === id ? { ...value, pending_manual_tasks: shape } : value,
      );
      const s = source(backend.mcpUrls.itential);
      const { sessions } = await listAll(s);
      const session = sessions.find((x) => x.id === id);
      assert.equal(session?.waitingUnknown, true);
      assert.equal((await s.listWaiting(undefined)).complete, false);
      await s.dispose();
    });
  }
});
