/**
 * An interrupted agents-API session is shown as interrupted: the REST source reads the
 * last event of a stopped session from the reference backend over real HTTP. Expected
 * values come from the backend's own API (fetched directly), never from the source.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ReferenceBackend } from '../../../../src/demo/server.ts';
import type { SessionSummary } from '../../../../src/domain/session.ts';
import { AgentsApiSource } from '../../../../src/sources/rest/agentsApiSource.ts';
import { silentLogger } from '../../../../src/util/logger.ts';
import { readJson, restFetch, startTestBackend, type LooseJson } from '../../../support/backend.ts';

let backend: ReferenceBackend;
/** Requests the backend saw (pathname only). */
const seen: string[] = [];

before(async () => {
  backend = await startTestBackend({
    interceptor: (req, next) => {
      seen.push(req.url.pathname);
      return next();
    },
  });
});
after(() => backend.close());

function source(): AgentsApiSource {
  return new AgentsApiSource({
    config: { id: 'rest', label: 'REST', kind: 'rest', url: backend.url },
    apiKey: async () => backend.token,
    log: silentLogger,
    timeoutMs: 5000,
  });
}

async function listAll(s: AgentsApiSource): Promise<Map<string, SessionSummary>> {
  const byId = new Map<string, SessionSummary>();
  let cursor: string | undefined;
  do {
    const page = await s.listSessions(
      cursor === undefined ? { limit: 100 } : { cursor, limit: 100, loaded: new Set(byId.keys()) },
    );
    for (const session of page.sessions) byId.set(session.id, session);
    cursor = page.next;
  } while (cursor !== undefined);
  return byId;
}

/** The type of the session's last visible event, as the backend lists them (oldest first). */
async function lastEventType(agent: string, key: string): Promise<string | undefined> {
  let last: string | undefined;
  let pageKey: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '100', ...(pageKey ? { page_key: pageKey } : {}) });
    const body = await readJson(
      await restFetch(backend, `/agents/${agent}/sessions/${key}/events?${query}`),
    );
    if (body.events.length > 0) last = body.events.at(-1).type;
    pageKey = body.metadata?.page_key;
  } while (pageKey);
  return last;
}

describe('AgentsApiSource: interrupted sessions', () => {
  it('offers interrupt and events, and nothing of the other backends', async () => {
    const s = source();
    const caps = await s.capabilities();
    assert.equal(caps.interrupt, true);
    assert.equal(caps.resume, false);
    assert.deepEqual(Object.keys(s.operations).sort(), ['events', 'interrupt']);
  });

  it('a running session interrupted through the API is listed as interrupted', async () => {
    const { agentKey, sessionKey } = backend.fixtures.agents.running;
    const id = `${agentKey}/${sessionKey}`;
    const s = source();
    assert.equal((await listAll(s)).get(id)?.status.status, 'active', 'running before');

    const answer = await restFetch(backend, `/agents/${agentKey}/sessions/${sessionKey}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'interrupt' }),
    });
    assert.equal(answer.status, 200, 'the backend applied the interrupt');

    assert.deepEqual((await listAll(s)).get(id)?.status, {
      status: 'idle',
      outcome: 'interrupted',
      raw: 'stopped',
    });
  });

  it('a stopped session is interrupted exactly when its last event is session_interrupted', async () => {
    const listed = await listAll(source());
    let interrupted = 0;
    let stopped = 0;
    const agents = (await readJson(await restFetch(backend, '/agents?limit=100'))).agents;
    for (const agent of agents as LooseJson[]) {
      const body = await readJson(
        await restFetch(backend, `/agents/${agent.key}/sessions?limit=100`),
      );
      for (const raw of body.sessions as LooseJson[]) {
        if (raw.status !== 'stopped') continue;
        const last = await lastEventType(agent.key, raw.key);
        const status = listed.get(`${agent.key}/${raw.key}`)?.status;
        if (last === 'session_interrupted') {
          interrupted++;
          assert.deepEqual(status, { status: 'idle', outcome: 'interrupted', raw: 'stopped' });
        } else {
          stopped++;
          assert.deepEqual(status, { status: 'idle', raw: 'stopped' }, raw.key);
        }
      }
    }
    assert.ok(interrupted >= 2 && stopped >= 2, `both kinds (${interrupted} / ${stopped})`);
  });

  it('reads a stopped session’s events once while its row stays the same', async () => {
    const s = source();
    seen.length = 0;
    await listAll(s);
    assert.ok(
      seen.some((p) => p.endsWith('/events')),
      'the first listing reads the events of stopped sessions',
    );
    seen.length = 0;
    await listAll(s);
    assert.equal(
      seen.filter((p) => p.endsWith('/events')).length,
      0,
      'an unchanged stopped session is not read again at the next refresh',
    );
  });
});
