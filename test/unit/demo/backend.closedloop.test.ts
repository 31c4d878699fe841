import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { ReferenceBackend } from '../../../src/demo/server.ts';
import {
  callTool,
  connectMcp,
  FIXED_NOW,
  startTestBackend,
  type LooseJson,
} from '../../support/backend.ts';

const HOUR = 3_600_000;

let backend: ReferenceBackend;
let client: Client;

async function listAll(args: Record<string, unknown> = {}, limit = 100): Promise<LooseJson[]> {
  const rows: LooseJson[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = await callTool(client, 'list-agent-sessions', { ...args, limit, offset });
    assert.equal(page.isError, false, page.text);
    rows.push(...page.json.items);
    if (offset + limit >= page.json.total) return rows;
  }
}

before(async () => {
  backend = await startTestBackend();
  client = await connectMcp(backend);
});
after(async () => {
  await client.close();
  await backend.close();
});

describe('list-agent-sessions', () => {
  it('pages to the end with stable totals and no duplicates', async () => {
    const seen = new Set<string>();
    let total: number | undefined;
    for (let offset = 0; ; offset += 37) {
      const { json } = await callTool(client, 'list-agent-sessions', {
        limit: 37,
        offset,
        quality: 'all',
      });
      total ??= json.total;
      assert.equal(json.total, total);
      assert.equal(json.returned, json.items.length);
      assert.equal(json.viewerScope, 'organization');
      for (const row of json.items) seen.add(row.id);
      if (json.returned === 0) break;
    }
    assert.ok(total! >= 200, `expected at least 200 sessions, got ${total}`);
    assert.equal(seen.size, total);
  });

  it('clamps a large limit instead of refusing it', async () => {
    const { json, isError } = await callTool(client, 'list-agent-sessions', {
      limit: 1000,
      quality: 'all',
    });
    assert.equal(isError, false);
    assert.equal(json.returned, 100);
    assert.ok(json.total > json.returned);
  });

  it('returns every documented field on each row', async () => {
    const { json } = await callTool(client, 'list-agent-sessions', { limit: 5 });
    const row = json.items[0];
    for (const field of [
      'id',
      'slug',
      'externalSessionId',
      'name',
      'status',
      'harness',
      'model',
      'repositoryFullName',
      'baseBranch',
      'startedAt',
      'lastActivityAt',
      'endedAt',
      'estimatedCost',
      'inputTokens',
      'outputTokens',
      'cacheReadTokens',
      'cacheWriteTokens',
      'agentCount',
      'toolUseCount',
      'errorCount',
      'user',
    ]) {
      assert.ok(field in row, `missing ${field}`);
    }
    assert.match(row.id, /^[0-9a-f-]{36}$/);
    assert.match(row.slug, /^SES-\d+$/);
    assert.deepEqual(Object.keys(row.user).sort(), ['email', 'firstName', 'id', 'lastName']);
  });

  it('hides idle sessions by default and shows them with quality idle/all', async () => {
    const substantive = await listAll();
    const idle = await listAll({ quality: 'idle' });
    const all = await listAll({ quality: 'all' });
    assert.ok(idle.length >= 5);
    assert.equal(substantive.length + idle.length, all.length);
    for (const row of idle) {
      assert.equal(row.inputTokens + row.outputTokens, 0);
      assert.equal(row.toolUseCount, 0);
    }
    assert.ok(substantive.every((row) => row.inputTokens + row.outputTokens > 0));
  });

  it('derives status at read time, including unknown, waiting and stale', async () => {
    const all = await listAll({ quality: 'all' });
    const statuses = new Set(all.map((r) => r.status));
    for (const s of ['active', 'waiting', 'inactive', 'error', 'stale', 'unknown'])
      assert.ok(statuses.has(s), s);
    // No raw stored spelling leaks through.
    for (const raw of ['completed', 'abandoned', 'paused_by_admin'])
      assert.ok(!statuses.has(raw), raw);
    for (const row of all.filter((r) => r.status === 'stale')) {
      assert.equal(row.endedAt, null);
      assert.ok(FIXED_NOW.getTime() - Date.parse(row.lastActivityAt) > HOUR);
    }
    for (const row of all.filter((r) => r.status === 'active')) {
      assert.ok(FIXED_NOW.getTime() - Date.parse(row.lastActivityAt) <= HOUR);
    }
    const unrecognisedButWaiting = all.find(
      (r) => r.id === backend.fixtures.closedloop.unrecognisedButWaiting,
    );
    assert.equal(unrecognisedButWaiting?.status, 'waiting');
  });

  it('applies the status filter to the stored value, so returned statuses can differ', async () => {
    const active = await listAll({ status: 'active', quality: 'all' });
    const returned = new Set(active.map((r) => r.status));
    assert.ok(
      returned.has('stale') && returned.has('waiting') && returned.has('active'),
      [...returned].join(),
    );
    assert.equal((await listAll({ status: 'unknown', quality: 'all' })).length, 0);
    const inactive = await listAll({ status: 'inactive' });
    assert.ok(inactive.length > 50);
    assert.ok(inactive.every((r) => r.status === 'inactive' && r.endedAt !== null));
  });

  it('windows startDate/endDate on lastActivityAt, not on startedAt', async () => {
    const startDate = '2026-07-20';
    const endDate = '2026-07-25';
    const rows = await listAll({ startDate, endDate });
    assert.ok(rows.length > 0);
    const from = Date.parse('2026-07-20T00:00:00Z');
    const to = Date.parse('2026-07-25T23:59:59.999Z'); // a bare end date covers the whole day
    for (const row of rows) {
      const at = Date.parse(row.lastActivityAt);
      assert.ok(at >= from && at <= to, row.lastActivityAt);
    }
    const everything = await listAll();
    const expected = everything.filter((r) => {
      const at = Date.parse(r.lastActivityAt);
      return at >= from && at <= to;
    });
    assert.equal(rows.length, expected.length);
  });

  it('filters by harness and userId and validates userId', async () => {
    const codex = await listAll({ harness: 'codex' });
    assert.ok(codex.length > 0 && codex.every((r) => r.harness === 'codex'));
    const userId = codex[0].user.id;
    const mine = await listAll({ userId });
    assert.ok(mine.length > 0 && mine.every((r) => r.user.id === userId));
    const bad = await callTool(client, 'list-agent-sessions', { userId: 'not-a-uuid' });
    assert.equal(bad.isError, true);
  });

  it('couples teamId to viewerScope "team"', async () => {
    const missing = await callTool(client, 'list-agent-sessions', { viewerScope: 'team' });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /teamId is required/);
    const teamId = '00000000-0000-4000-8000-000000000000';
    for (const args of [
      { viewerScope: 'self', teamId },
      { viewerScope: 'organization', teamId },
      { teamId },
    ]) {
      const result = await callTool(client, 'list-agent-sessions', args);
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.match(result.text, /teamId must be omitted/);
    }
    const unknownTeam = await callTool(client, 'list-agent-sessions', {
      viewerScope: 'team',
      teamId,
    });
    assert.equal(unknownTeam.isError, true);
    assert.match(unknownTeam.text, /404/);
  });

  it('narrows by viewer scope', async () => {
    const self = await listAll({ viewerScope: 'self' });
    const org = await listAll({ viewerScope: 'organization' });
    assert.ok(self.length > 0 && self.length < org.length);
    assert.equal(new Set(self.map((r) => r.user.id)).size, 1);
    const { json } = await callTool(client, 'list-agent-sessions', {
      viewerScope: 'self',
      limit: 1,
    });
    assert.equal(json.viewerScope, 'self');
    const teamId = backend.fixtures.closedloop.viewerTeamId;
    const team = await listAll({ viewerScope: 'team', teamId });
    assert.ok(team.length > 0 && team.length < org.length);
    assert.ok(
      self.every((row) => team.some((t) => t.id === row.id)),
      'the viewer is a member of the team',
    );
  });
});

describe('usage and analytics', () => {
  it('usage totals reconcile with the list under the same shared filters', async () => {
    const args = { startDate: '2026-07-01', endDate: '2026-07-31', harness: 'claude-code' };
    const rows = await listAll(args);
    const { json, isError } = await callTool(client, 'get-agent-session-usage', args);
    assert.equal(isError, false);
    assert.equal(json.totalSessions, rows.length);
    assert.equal(
      json.totalInputTokens,
      rows.reduce((n, r) => n + r.inputTokens, 0),
    );
    assert.equal(
      json.totalOutputTokens,
      rows.reduce((n, r) => n + r.outputTokens, 0),
    );
    assert.ok(
      Math.abs(json.subscriptionEstimatedCost + json.apiEstimatedCost - json.totalEstimatedCost) <
        0.001,
    );
    assert.equal(json.byHarness.length, 1);
    assert.equal(
      json.byUser.reduce((n: number, u: LooseJson) => n + u.sessionCount, 0),
      rows.length,
    );
    for (const key of ['byUser', 'byModel', 'byHarness', 'byRepository'])
      assert.ok(Array.isArray(json[key]), key);
  });

  it('analytics windows on startedAt while usage windows on lastActivityAt', async () => {
    const window = { startDate: '2026-07-10T00:00:00Z', endDate: '2026-07-20T00:00:00Z' };
    const everything = await listAll();
    const inWindow = (iso: string) =>
      iso >= '2026-07-10T00:00:00.000Z' && iso <= '2026-07-20T00:00:00.000Z';
    const analytics = await callTool(client, 'get-agent-session-analytics', window);
    const usage = await callTool(client, 'get-agent-session-usage', window);
    assert.equal(
      analytics.json.totalSessions,
      everything.filter((r) => inWindow(r.startedAt)).length,
    );
    assert.equal(
      usage.json.totalSessions,
      everything.filter((r) => inWindow(r.lastActivityAt)).length,
    );
    for (const key of ['byTool', 'byAgentType', 'byRepository', 'byProject']) {
      assert.ok(Array.isArray(analytics.json[key]) && analytics.json[key].length > 0, key);
    }
  });

  it('applies the team coupling rule and quality default to the aggregates too', async () => {
    const bad = await callTool(client, 'get-agent-session-analytics', { viewerScope: 'team' });
    assert.equal(bad.isError, true);
    const idle = await callTool(client, 'get-agent-session-usage', { quality: 'idle' });
    assert.ok(idle.json.totalSessions > 0);
    assert.equal(idle.json.totalInputTokens, 0);
  });

  it('rejects dates that are not ISO 8601', async () => {
    const result = await callTool(client, 'get-agent-session-usage', { startDate: 'last tuesday' });
    assert.equal(result.isError, true);
    assert.match(result.text, /ISO 8601/);
  });
});

describe('monitoring access', () => {
  it('answers the reporting tools with a 403 tool error while other tools keep working', async () => {
    backend.setMonitoringEnabled(false);
    try {
      for (const name of [
        'list-agent-sessions',
        'get-agent-session-usage',
        'get-agent-session-analytics',
      ]) {
        const result = await callTool(client, name, {});
        assert.equal(result.isError, true, name);
        assert.match(result.text, /^Error 403 \(monitoring_disabled\)/);
        assert.deepEqual((result.structured as LooseJson).error.status, 403);
      }
      const pending = await callTool(client, 'list-pending-instructions', {
        sessionId: backend.fixtures.closedloop.withPendingInstructions,
      });
      assert.equal(pending.isError, false);
    } finally {
      backend.setMonitoringEnabled(true);
    }
    assert.equal((await callTool(client, 'list-agent-sessions', { limit: 1 })).isError, false);
  });

  it('can start with monitoring disabled', async () => {
    const other = await startTestBackend({ monitoringEnabled: false });
    const c = await connectMcp(other);
    try {
      const result = await callTool(c, 'get-agent-session-transcript', {
        sessionId: other.fixtures.closedloop.manyComments,
      });
      assert.equal(result.isError, true);
      assert.match(result.text, /403/);
    } finally {
      await c.close();
      await other.close();
    }
  });
});
