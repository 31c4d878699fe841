/**
 * Reading the steering tools' answers: a task's status says whether it is still open
 * (what settles a manual task whose answer was lost), and an instruction list we cannot
 * read is "unreadable", never "none".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { costByDay } from '../../../../src/sources/usage/costSeries.ts';
import {
  manualTaskState,
  parseInstructions,
  parseManualTask,
} from '../../../../src/sources/mcp/steeringSchemas.ts';
import type { SessionSummary } from '../../../../src/domain/session.ts';

test("a task's status says whether it is open or finished; a finish state alone means finished", () => {
  for (const open of ['pending', 'incomplete', 'PENDING', ' open ']) {
    assert.equal(manualTaskState(open, null), 'open', open);
  }
  for (const done of ['completed', 'complete', 'canceled', 'error']) {
    assert.equal(manualTaskState(done, null), 'finished', done);
  }
  assert.equal(manualTaskState(undefined, 'success'), 'finished');
  assert.equal(manualTaskState(undefined, null), undefined, 'an answer that does not say');
  assert.equal(
    manualTaskState('paused-for-lunch', ''),
    undefined,
    'an unknown status is not a guess',
  );
  assert.equal(manualTaskState(42, undefined), undefined);
});

test('a described task carries its state and finish state', () => {
  const open = parseManualTask({ work_item_id: 't1', status: 'pending', finish_state: null });
  assert.equal(open?.state, 'open');
  assert.equal(open?.finishState, undefined);
  const done = parseManualTask({
    work_item_id: 't1',
    status: 'completed',
    finish_state: 'failure',
  });
  assert.equal(done?.state, 'finished');
  assert.equal(done?.finishState, 'failure');
  const silent = parseManualTask({ work_item_id: 't1' });
  assert.equal(silent?.state, undefined);
});

test('an instruction answer without a list is unreadable (undefined), an empty list is none', () => {
  assert.equal(parseInstructions({ sessionId: 's', total: 2 }), undefined);
  assert.equal(parseInstructions({ items: 'nope' }), undefined);
  assert.equal(parseInstructions(undefined), undefined);
  assert.deepEqual(parseInstructions({ items: [] }), []);
  assert.equal(parseInstructions({ items: [{ id: 'i1', text: 'do it' }] })?.[0]?.id, 'i1');
});

test('a negative session cost is counted as unknown in the cost by day, not subtracted', () => {
  const session = (id: string, estimatedCost: number | undefined): SessionSummary => ({
    id,
    connectionId: 'c',
    label: id,
    status: { status: 'finished', raw: 'completed' },
    lastActivityAt: '2026-08-01T10:00:00Z',
    estimatedCost,
  });
  const [day] = costByDay([session('a', 2), session('b', -50), session('c', undefined)]);
  assert.equal(day?.estimatedCost, 2);
  assert.equal(day?.unknownCostSessions, 2);
  assert.equal(day?.sessionCount, 3);
});
