/**
 * Fuzzing every edge where server JSON or webview messages enter: the zod schemas and the
 * row readers built on them (reporting, platform, steering, REST, comments, dashboard),
 * the Itential and REST-event normalisers, and the webview protocol validators; then the
 * MCP and REST sources end to end against the reference backend with its answers
 * mutated on the wire. Starting points are the backend's own answers (real tool results
 * and REST bodies). Properties: schemas return a parse result, readers a value or their
 * documented BackendError, validators a boolean; nothing else escapes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { jsonResponse } from '../../../src/demo/http.ts';
import type { ReferenceBackend, RequestInterceptor } from '../../../src/demo/server.ts';
import { BackendError } from '../../../src/domain/errors.ts';
import type { SessionSummary } from '../../../src/domain/session.ts';
import { MemoryTranscript } from '../../../src/domain/transcript/memoryTranscript.ts';
import { normalizeItentialSession } from '../../../src/domain/transcript/normalize/itential.ts';
import { normalizeRestEvents } from '../../../src/domain/transcript/normalize/restEvents.ts';
import * as dashboardProtocol from '../../../src/shared/dashboardProtocol.ts';
import * as protocol from '../../../src/shared/protocol.ts';
import * as commentSchemas from '../../../src/sources/comments/commentSchemas.ts';
import { listSessionComments } from '../../../src/sources/comments/sessionComments.ts';
import { createMcpToolClient } from '../../../src/sources/mcp/mcpSdkClient.ts';
import { McpSource } from '../../../src/sources/mcp/mcpSource.ts';
import * as platformRows from '../../../src/sources/mcp/platformRows.ts';
import { parseListAgentSessions } from '../../../src/sources/mcp/reportingRows.ts';
import * as reportingSchemas from '../../../src/sources/mcp/reportingSchemas.ts';
import * as steeringSchemas from '../../../src/sources/mcp/steeringSchemas.ts';
import * as agentsApiSchemas from '../../../src/sources/rest/agentsApiSchemas.ts';
import { AgentsApiSource } from '../../../src/sources/rest/agentsApiSource.ts';
import { fetchDashboardData } from '../../../src/sources/usage/connectionUsage.ts';
import * as dashboardSchemas from '../../../src/sources/usage/dashboardSchemas.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import {
  callTool,
  connectMcp,
  readJson,
  restFetch,
  startTestBackend,
  type LooseJson,
} from '../../support/backend.ts';
import { fc, fuzz, fuzzAsync, jsonish, mutate, mutation, type Mutation } from './support.ts';

// ── Starting points: the reference backend's own answers ─────────────────────────────

interface Samples {
  listAgentSessions: unknown[];
  usage: unknown[];
  analytics: unknown[];
  comments: unknown[];
  instructions: unknown[];
  platformRows: unknown[];
  describeSession: unknown[];
  tokenUsage: unknown[];
  manualTask: unknown[];
  restAgents: unknown[];
  restSessions: unknown[];
  restEvents: unknown[];
  outstanding: unknown[];
}

let backend: ReferenceBackend;
let samples: Samples;
/** When set, every JSON answer of the backend is rewritten by it (the wire fuzz). */
let rewrite: ((value: unknown) => unknown) | undefined;

async function collect(client: Client): Promise<Samples> {
  const f = backend.fixtures;
  const json = async (name: string, args: Record<string, unknown> = {}) => {
    const outcome = await callTool(client, name, args);
    assert.ok(!outcome.isError, `${name}: ${outcome.text}`);
    return outcome.json as unknown;
  };
  const rest = async (path: string) => readJson(await restFetch(backend, path));
  const rows = await json('get_sessions');
  const listed = new Set(
    ((Array.isArray(rows) ? rows : (rows as LooseJson)?.result) as LooseJson[]).map(
      (r) => r.session_id as string,
    ),
  );
  // The fixture sessions (every manual-task shape) first, then a few more.
  const itential = [
    ...new Set([
      ...Object.values(f.itential).flatMap((v): string[] =>
        typeof v === 'string' ? [v] : Object.values(v as Record<string, string>),
      ),
      ...listed,
    ]),
  ]
    .filter((id) => listed.has(id))
    .slice(0, 16);
  const described = await Promise.all(
    itential.map((id) => json('describe_session', { session_id: id })),
  );
  const taskIds = described.flatMap((d) =>
    ((d as LooseJson).pending_manual_tasks ?? []).map((t: LooseJson) => t.work_item_id as string),
  );
  const refs = Object.values(f.agents);
  return {
    listAgentSessions: [await json('list-agent-sessions', { limit: 40 })],
    usage: [await json('get-agent-session-usage')],
    analytics: [await json('get-agent-session-analytics')],
    comments: await Promise.all(
      [f.closedloop.manyComments, f.closedloop.mixedSubagentFiles].map((sessionId) =>
        json('list-session-comments', { sessionId, limit: 20 }),
      ),
    ),
    instructions: [
      await json('list-pending-instructions', { sessionId: f.closedloop.withPendingInstructions }),
    ],
    platformRows: [rows],
    describeSession: described,
    tokenUsage: await Promise.all(
      itential.slice(0, 4).map((id) => json('describe_session_token_usage', { session_id: id })),
    ),
    manualTask: await Promise.all(
      taskIds.slice(0, 6).map((id) => json('describe_manual_task', { work_item_id: id })),
    ),
    restAgents: [await rest('/agents?limit=100')],
    restSessions: await Promise.all(
      [...new Set(refs.map((r) => r.agentKey))].map((a) => rest(`/agents/${a}/sessions?limit=50`)),
    ),
    restEvents: await Promise.all(
      refs.map((r) =>
        rest(`/agents/${r.agentKey}/sessions/${r.sessionKey}/events?limit=100&include_hidden=true`),
      ),
    ),
    outstanding: await Promise.all(
      refs.map((r) =>
        rest(`/agents/${r.agentKey}/sessions/${r.sessionKey}/outstanding_client_tool_calls`),
      ),
    ),
  };
}

/**
 * Lists cut to a few rows and long texts cut short: a mutation clones its whole starting
 * point, and every row of a list is read the same way.
 */
function trim(value: unknown): unknown {
  if (typeof value === 'string') return value.length > 2000 ? value.slice(0, 2000) : value;
  if (Array.isArray(value)) return value.slice(0, 6).map(trim);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, trim(v)]));
  }
  return value;
}

/** An answer whose main list is long, as several answers of six rows each (all rows kept). */
function windows(value: unknown): unknown[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [value];
  const entry = Object.entries(value).find(([, v]) => Array.isArray(v) && v.length > 6);
  if (!entry) return [value];
  const [key, list] = entry as [string, unknown[]];
  const out: unknown[] = [];
  for (let i = 0; i < list.length && out.length < 20; i += 6) {
    out.push({ ...value, [key]: list.slice(i, i + 6) });
  }
  return out;
}

before(async () => {
  backend = await startTestBackend();
  const client = await connectMcp(backend);
  try {
    const all = await collect(client);
    samples = Object.fromEntries(
      Object.entries(all).map(([k, list]) => [k, (list as unknown[]).flatMap(windows).map(trim)]),
    ) as unknown as Samples;
  } finally {
    await client.close();
    await backend.close();
  }
});

const rewritingInterceptor: RequestInterceptor = async (req, next) => {
  const response = await next();
  if (!rewrite || response.status !== 200 || !(response.body instanceof Uint8Array))
    return response;
  return rewriteAnswer(req.area, Buffer.from(response.body), response.status) ?? response;
};

/** The backend's answer with its JSON rewritten (MCP: the tool result's JSON inside). */
function rewriteAnswer(area: string, body: Buffer, status: number) {
  let value: LooseJson;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (area === 'rest') return jsonResponse(status, rewrite!(value));
  const result = value?.result;
  const text = result?.content?.[0]?.text;
  if (area !== 'mcp' || typeof text !== 'string' || result.isError) return undefined;
  let inner: unknown;
  try {
    inner = JSON.parse(text);
  } catch {
    return undefined;
  }
  const changed = rewrite!(inner);
  result.content[0].text = JSON.stringify(changed) ?? 'null';
  // Structured output must be an object; anything else travels as text only.
  if (changed && typeof changed === 'object' && !Array.isArray(changed))
    result.structuredContent = changed;
  else delete result.structuredContent;
  return jsonResponse(status, value);
}

/** A backend answer of `kind`, mutated; or any JSON value. */
function payload(kind: keyof Samples): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(null).map(() => pick(kind, 0)) },
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 4 }))
        .map(([i, m]) => mutate(pick(kind, i), m)),
    },
    { weight: 2, arbitrary: jsonish },
  );
}

function pick(kind: keyof Samples, i: number): unknown {
  const list = samples[kind];
  return list[i % list.length];
}

/** Every export of a module that is a zod schema (has safeParse). */
function schemasOf(
  module: Record<string, unknown>,
): [string, { safeParse(v: unknown): unknown }][] {
  return Object.entries(module).filter(
    (e): e is [string, { safeParse(v: unknown): unknown }] =>
      !!e[1] && typeof (e[1] as { safeParse?: unknown }).safeParse === 'function',
  );
}

const SCHEMA_MODULES = {
  reportingSchemas,
  steeringSchemas,
  platformRows,
  agentsApiSchemas,
  commentSchemas,
  dashboardSchemas,
} as Record<string, Record<string, unknown>>;

/** Runs `fn`; a BackendError is the documented way to refuse an answer, anything else is not. */
function refusesOnlyAsBackendError(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    assert.ok(
      error instanceof BackendError,
      `escaped: ${(error as Error)?.stack ?? String(error)}`,
    );
  }
}

describe('fuzz: zod edges and row readers', () => {
  test('every exported schema returns a parse result, never throws', (t) => {
    const schemas = Object.entries(SCHEMA_MODULES).flatMap(([m, mod]) =>
      schemasOf(mod).map(([name, schema]) => ({ name: `${m}.${name}`, schema })),
    );
    t.diagnostic(`${schemas.length} schemas: ${schemas.map((s) => s.name).join(', ')}`);
    assert.ok(schemas.length >= 10);
    const kinds = Object.keys(samples) as (keyof Samples)[];
    fuzz(
      t,
      'zod/schemas',
      fc.tuple(fc.constantFrom(...schemas), fc.constantFrom(...kinds).chain(payload)),
      ([{ schema }, value]) => {
        const result = schema.safeParse(value) as { success: boolean };
        assert.equal(typeof result.success, 'boolean');
        // Row arrays inside envelopes are read one by one.
        const items = (value as LooseJson)?.items ?? (value as LooseJson)?.sessions;
        if (Array.isArray(items)) for (const item of items.slice(0, 20)) schema.safeParse(item);
      },
    );
  });

  test('MCP row readers: rows, pages, tasks, instructions, manual tasks', (t) => {
    fuzz(
      t,
      'zod/mcp-readers',
      fc.tuple(
        payload('listAgentSessions'),
        payload('platformRows'),
        payload('describeSession'),
        payload('instructions'),
        payload('manualTask'),
        fc.nat({ max: 500 }),
      ),
      ([list, rows, described, instructions, task, offset]) => {
        refusesOnlyAsBackendError(() => {
          const page = parseListAgentSessions(list, 'conn', offset);
          assert.ok(Array.isArray(page.sessions));
          page.sessions.forEach(checkSummary);
        });
        const platform = platformRows.parsePlatformRows(rows, 'conn');
        platform?.sessions.forEach(checkSummary);
        const base: SessionSummary = platform?.sessions[0] ?? baseSession();
        checkSummary(platformRows.withManualTasks(base, described));
        for (const i of steeringSchemas.parseInstructions(instructions) ?? []) {
          assert.equal(typeof i.id, 'string');
          assert.equal(typeof i.text, 'string');
        }
        const detail = steeringSchemas.parseManualTask(task);
        if (detail) assert.equal(typeof detail.id, 'string');
      },
    );
  });

  test('comment and dashboard readers', (t) => {
    fuzz(
      t,
      'zod/comments-dashboard',
      fc.tuple(payload('comments'), payload('usage'), payload('analytics')),
      ([comments, usage, analytics]) => {
        const items = (comments as LooseJson)?.items;
        for (const item of Array.isArray(items) ? items : [comments]) {
          const { view, badReplies } = commentSchemas.toCommentView(item);
          assert.ok(Number.isInteger(badReplies) && badReplies >= 0);
          if (view) {
            assert.equal(typeof view.id, 'string');
            assert.equal(typeof view.body, 'string');
            assert.equal(typeof view.status, 'string');
          }
        }
        for (const envelope of [usage, analytics]) {
          const u = dashboardSchemas.usageEnvelope.safeParse(envelope);
          const a = dashboardSchemas.analyticsEnvelope.safeParse(envelope);
          const rows = (v: LooseJson, k: string) =>
            v?.success ? v.data[k] : (envelope as LooseJson)?.[k];
          const list = (x: unknown) => (Array.isArray(x) ? x : null);
          for (const field of ['userId', 'model', 'harness', 'repository']) {
            for (const k of ['byUser', 'byModel', 'byHarness', 'byRepository']) {
              dashboardSchemas.usageRows(list(rows(u, k)), field);
              dashboardSchemas.activityRows(list(rows(a, k)), field);
            }
          }
          dashboardSchemas.toolRows(list(rows(a, 'byTool')));
          dashboardSchemas.agentTypeRows(list(rows(a, 'byAgentType')));
          for (const k of ['byDay', 'daily']) {
            for (const p of dashboardSchemas.dayRows(list(rows(u, k))).rows) {
              assert.match(p.day, /^\d{4}-\d\d-\d\d$/);
            }
          }
        }
      },
    );
  });

  test('Itential and REST-event transcripts: every window, search and full text reads', async (t) => {
    await fuzzAsync(
      t,
      'normalize/itential+rest',
      fc.tuple(
        payload('describeSession'),
        payload('tokenUsage'),
        payload('restEvents'),
        fc.array(jsonish, { maxLength: 3 }),
      ),
      async ([described, usage, events, extra]) => {
        const list = (events as LooseJson)?.events;
        const restList = [...(Array.isArray(list) ? list : [events]), ...extra];
        for (const transcript of [
          MemoryTranscript.fromItential(described, usage),
          MemoryTranscript.fromRestEvents(restList),
        ]) {
          const total = transcript.entryCount;
          const w = await transcript.getWindow(0, Math.min(total, 1000));
          w.entries.forEach((e, i) => assert.equal(e.index, i));
          for (const e of w.entries.slice(0, 20)) {
            await transcript.fullText(e.index, 'text');
            if (e.kind === 'tool-call') await transcript.fullText(e.index, 'output');
          }
          await transcript.search('a');
          transcript.nextError(-1);
        }
        normalizeItentialSession(described, { tokenUsage: usage });
        normalizeRestEvents(restList);
      },
    );
  });
});

/** A session summary read from the backend's own first platform row. */
function baseSession(): SessionSummary {
  const session = platformRows.parsePlatformRows(samples.platformRows[0], 'conn')?.sessions[0];
  assert.ok(session, 'the backend lists platform sessions');
  return session;
}

function checkSummary(s: SessionSummary): void {
  assert.equal(typeof s.id, 'string');
  assert.equal(typeof s.label, 'string');
  assert.equal(typeof s.status.status, 'string');
}

// ── Webview protocol validators ──────────────────────────────────────────────────────

const VALID_MESSAGES: unknown[] = [
  { type: 'ready' },
  { type: 'refresh' },
  { type: 'openManualTask', id: 't1' },
  { type: 'finishManualTask', id: 't1', finish: 'success' },
  { type: 'selectFile', fileKey: 'main' },
  { type: 'getEntries', requestId: 1, start: 0, count: 100 },
  { type: 'search', requestId: 2, query: 'x', from: 3, direction: 'next' },
  { type: 'nextError', requestId: 3, from: 0 },
  { type: 'getFullText', requestId: 4, index: 2, part: 'output' },
  { type: 'openFile', path: '/tmp/a.ts', line: 3 },
  { type: 'loadComments', filter: 'OPEN', more: false },
  { type: 'revealComment', threadId: 'c1' },
  { connectionId: 'c', sessionId: 's' },
];

describe('fuzz: webview protocol validators', () => {
  test('every is*() validator answers a boolean for any value, never throws', (t) => {
    type Validator = readonly [string, (v: unknown) => unknown];
    const validators: Validator[] = [
      ...Object.entries(protocol).map(([n, f]) => [`protocol.${n}`, f] as const),
      ...Object.entries(dashboardProtocol).map(([n, f]) => [`dashboardProtocol.${n}`, f] as const),
    ].flatMap(([name, f]): Validator[] =>
      /\.is[A-Z]/.test(name) && typeof f === 'function'
        ? [[name, f as (v: unknown) => unknown]]
        : [],
    );
    t.diagnostic(`${validators.length} validators: ${validators.map(([n]) => n).join(', ')}`);
    assert.ok(validators.length >= 3);
    const mutated = fc
      .tuple(fc.constantFrom(...VALID_MESSAGES), fc.array(mutation, { minLength: 1, maxLength: 3 }))
      .map(([m, ms]: [unknown, Mutation[]]) => mutate(m, ms));
    const typeNames = fc.constantFrom(
      '__proto__',
      'constructor',
      'toString',
      'valueOf',
      'hasOwnProperty',
      'ready',
      'getEntries',
      'search',
    );
    fuzz(
      t,
      'protocol/validators',
      fc.tuple(
        fc.constantFrom(...validators),
        fc.oneof(
          jsonish,
          mutated,
          fc
            .tuple(typeNames, jsonish)
            .map(([type, rest]) => ({ ...(rest && typeof rest === 'object' ? rest : {}), type })),
        ),
      ),
      ([[name, validate], value]) => {
        const verdict = validate(value);
        assert.equal(typeof verdict, 'boolean', `${name} answered ${String(verdict)}`);
        if (verdict && name === 'protocol.isWebviewMessage') {
          const type = (value as { type: unknown }).type;
          assert.ok(typeof type === 'string' && Object.hasOwn(value as object, 'type'));
          assert.ok(
            !['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'].includes(type),
          );
        }
      },
    );
  });
});

// ── End to end: the sources against the backend, its answers mutated on the wire ─────

describe('fuzz: sources against mutated backend answers', () => {
  // A backend of its own: the sockets of the one the samples came from sat idle through
  // the synchronous tests above, and the first request on one may meet its close.
  let wire: ReferenceBackend;
  before(async () => {
    wire = await startTestBackend({ interceptor: rewritingInterceptor });
  });
  after(() => wire?.close());
  test('MCP source: list, waiting, instructions, manual task, comments, dashboard', async (t) => {
    const source = new McpSource({
      config: { id: 'fuzz', label: 'Fuzz', kind: 'mcp', url: wire.mcpUrl },
      token: async () => wire.token,
      loadClient: async () => createMcpToolClient,
      log: silentLogger,
      timeoutMs: 5000,
      clientVersion: 'fuzz',
    });
    const f = wire.fixtures;
    try {
      await source.capabilities();
      await fuzzAsync(
        t,
        'wire/mcp',
        fc.tuple(fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.nat({ max: 5 })),
        async ([mutations, which]) => {
          rewrite = (value) => mutate(value, mutations);
          try {
            await refusesAsBackendError(async () => {
              switch (which) {
                case 0:
                  return (await source.listSessions({ limit: 25 })).sessions.forEach(checkSummary);
                case 1:
                  return source.listWaiting(undefined);
                case 2:
                  return source.listPendingInstructions(f.closedloop.withPendingInstructions);
                case 3:
                  return source.describeManualTask(
                    (samples.manualTask[0] as LooseJson)?.work_item_id ?? 'none',
                  );
                case 4:
                  return listSessionComments(source, f.closedloop.manyComments, { pageSize: 20 });
                default:
                  return fetchDashboardData(source, {});
              }
            });
          } finally {
            rewrite = undefined;
          }
        },
      );
    } finally {
      await source.dispose();
    }
  });

  test('REST source: sessions, events, outstanding calls', async (t) => {
    const source = new AgentsApiSource({
      config: { id: 'rest', label: 'REST', kind: 'rest', url: wire.url },
      apiKey: async () => wire.token,
      log: silentLogger,
      timeoutMs: 5000,
    });
    const ref = wire.fixtures.agents.showcase;
    await fuzzAsync(
      t,
      'wire/rest',
      fc.tuple(fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.boolean()),
      async ([mutations, events]) => {
        rewrite = (value) => mutate(value, mutations);
        try {
          await refusesAsBackendError(async () => {
            if (events) {
              const list = await source.listEvents(`${ref.agentKey}/${ref.sessionKey}`);
              MemoryTranscript.fromRestEvents(list);
            } else {
              (await source.listSessions({ limit: 25 })).sessions.forEach(checkSummary);
            }
          });
        } finally {
          rewrite = undefined;
          await source.dispose();
        }
      },
    );
  });
});

async function refusesAsBackendError(fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (error) {
    assert.ok(
      error instanceof BackendError,
      `escaped: ${(error as Error)?.stack ?? String(error)}`,
    );
  }
}
