import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BackendError } from '../../../../src/domain/errors.ts';
import { parseListAgentSessions } from '../../../../src/sources/mcp/reportingRows.ts';

const row = (id: string, status: string) => ({
  id,
  slug: `SES-${id}`,
  name: `session ${id}`,
  status,
  harness: 'claude-code',
  estimatedCost: null,
  user: { firstName: 'Ada', lastName: 'L', email: 'ada@example.com' },
  somethingNew: { nested: true },
});

test('valid rows become summaries; a bad row is counted, not fatal', () => {
  const page = parseListAgentSessions(
    {
      items: [row('a', 'waiting'), { id: 42 }, row('b', 'paused_by_admin')],
      returned: 3,
      total: 10,
    },
    'conn',
    0,
  );
  assert.equal(page.sessions.length, 2);
  assert.equal(page.invalidRows, 1);
  assert.equal(page.sessions[0]?.status.status, 'waiting');
  assert.equal(page.sessions[1]?.status.status, 'unknown');
  assert.equal(page.sessions[1]?.status.raw, 'paused_by_admin');
  assert.equal(page.sessions[0]?.estimatedCost, undefined, 'null cost stays unknown');
  assert.equal(page.sessions[0]?.user, 'Ada L');
  assert.equal(page.next, '3', 'next offset counts every row the server sent');
});

test('the last page has no next cursor', () => {
  const page = parseListAgentSessions({ items: [row('z', 'active')], total: 6 }, 'conn', 5);
  assert.equal(page.next, undefined);
  assert.equal(page.total, 6);
});

test('an envelope without items is an invalid response', () => {
  assert.throws(
    () => parseListAgentSessions({ sessions: [] }, 'conn', 0),
    (error: unknown) => error instanceof BackendError && error.kind === 'invalidResponse',
  );
});
