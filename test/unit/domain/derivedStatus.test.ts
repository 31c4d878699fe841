import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  deriveAgentApiStatus,
  derivePlatformStatus,
  deriveReportingStatus,
  statusRank,
} from '../../../src/domain/derivedStatus.ts';

// One row per documented mapping (docs/derived-status.md).
describe('reporting (Closedloop) statuses', () => {
  const rows: [string | null, string, string | undefined][] = [
    ['waiting', 'waiting', undefined],
    ['active', 'active', undefined],
    ['inactive', 'finished', 'completed'],
    ['error', 'error', undefined],
    ['stale', 'stale', undefined],
    ['unknown', 'unknown', undefined],
    ['completed', 'unknown', undefined], // retired spelling (ISS-5592) comes back unknown
    ['abandoned', 'unknown', undefined],
    ['WAITING', 'waiting', undefined],
    [null, 'unknown', undefined],
  ];
  for (const [raw, status, outcome] of rows) {
    test(`${raw} → ${status}${outcome ? `/${outcome}` : ''}`, () => {
      const derived = deriveReportingStatus(raw);
      assert.equal(derived.status, status);
      assert.equal(derived.outcome, outcome);
      assert.equal(derived.raw, raw ?? '', 'the raw value is kept');
    });
  }
});

describe('platform (Itential) statuses', () => {
  const rows: [string, number | null | undefined, string, string | undefined][] = [
    ['PENDING', undefined, 'active', undefined],
    ['RUNNING', 0, 'active', undefined],
    ['RUNNING', null, 'active', undefined], // lookup failed: not claimed as waiting
    ['RUNNING', 2, 'waiting', undefined],
    ['PAUSING', 0, 'active', undefined],
    ['PAUSED', 0, 'idle', undefined],
    ['PAUSED', 1, 'waiting', undefined],
    ['COMPLETE', 0, 'finished', 'completed'],
    ['FAILED', 0, 'error', undefined],
    ['CANCELING', 0, 'active', undefined],
    ['CANCELED', 0, 'finished', 'canceled'],
    ['ARCHIVED', 0, 'unknown', undefined],
  ];
  for (const [raw, tasks, status, outcome] of rows) {
    test(`${raw} with ${tasks} manual tasks → ${status}`, () => {
      const derived = derivePlatformStatus(raw, tasks);
      assert.equal(derived.status, status);
      assert.equal(derived.outcome, outcome);
      assert.equal(derived.raw, raw);
    });
  }
});

describe('agents REST API statuses', () => {
  test('unstarted → idle', () => assert.equal(deriveAgentApiStatus('unstarted').status, 'idle'));
  test('running → active', () => assert.equal(deriveAgentApiStatus('running').status, 'active'));
  test('stopped is idle, not finished', () => {
    const derived = deriveAgentApiStatus('stopped');
    assert.equal(derived.status, 'idle');
    assert.equal(derived.outcome, undefined);
  });
  test('stopped after an interrupt is marked interrupted', () =>
    assert.equal(deriveAgentApiStatus('stopped', 0, 'session_interrupted').outcome, 'interrupted'));
  test('pending client tool calls → waiting', () =>
    assert.equal(deriveAgentApiStatus('running', 1).status, 'waiting'));
  test('an unknown value is kept', () => {
    const derived = deriveAgentApiStatus('hibernating');
    assert.equal(derived.status, 'unknown');
    assert.equal(derived.raw, 'hibernating');
  });
});

test('groups are ordered with what needs the user first', () => {
  assert.ok(statusRank('waiting') < statusRank('active'));
  assert.ok(statusRank('active') < statusRank('finished'));
  assert.ok(statusRank('finished') < statusRank('unknown'));
});
