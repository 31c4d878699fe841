import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SessionSummary } from '../../../src/domain/session.ts';
import { countWaiting } from '../../../src/domain/waitingCount.ts';

const waiting = (id: string, tasks = 0): SessionSummary => ({
  id,
  connectionId: 'c',
  label: id,
  status: { status: 'waiting', raw: 'waiting' },
  pendingTasks: tasks
    ? Array.from({ length: tasks }, (_, i) => ({ id: `${id}-t${i}`, completionSupported: true }))
    : undefined,
});

describe('countWaiting', () => {
  it('counts each manual task and every other waiting session once', () => {
    assert.deepEqual(countWaiting([waiting('a'), waiting('b', 2), waiting('c')]), {
      sessions: 2,
      tasks: 2,
      total: 4,
    });
  });

  it('is zero for nothing', () => {
    assert.deepEqual(countWaiting([]), { sessions: 0, tasks: 0, total: 0 });
  });
});
