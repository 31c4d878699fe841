import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SessionFilters } from '../../../src/domain/filters.ts';
import {
  describeFilters,
  filterArguments,
  matchesText,
  validateFilters,
} from '../../../src/domain/filters.ts';

const TEAM = '3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b';
const USER = 'A1B2C3D4-E5F6-4789-ABCD-EF0123456789';

describe('validateFilters', () => {
  const rows: { name: string; filters: SessionFilters; problem: RegExp | undefined }[] = [
    { name: 'no filters', filters: {}, problem: undefined },
    {
      name: 'team scope without team id',
      filters: { viewerScope: 'team' },
      problem: /needs a team ID/,
    },
    {
      name: 'team scope with an empty team id',
      filters: { viewerScope: 'team', teamId: '' },
      problem: /needs a team ID/,
    },
    {
      name: 'team id without a scope',
      filters: { teamId: TEAM },
      problem: /only be used with viewer scope "team"/,
    },
    {
      name: 'team id with organization scope',
      filters: { viewerScope: 'organization', teamId: TEAM },
      problem: /only be used with viewer scope "team"/,
    },
    {
      name: 'team id with self scope',
      filters: { viewerScope: 'self', teamId: TEAM },
      problem: /only be used with viewer scope "team"/,
    },
    {
      name: 'team id that is not a UUID',
      filters: { viewerScope: 'team', teamId: 'platform-team' },
      problem: /team ID must be a UUID/,
    },
    {
      name: 'team id: UUID with trailing text',
      filters: { viewerScope: 'team', teamId: `${TEAM}x` },
      problem: /team ID must be a UUID/,
    },
    {
      name: 'user id that is not a UUID',
      filters: { userId: 'ada@example.com' },
      problem: /user ID must be a UUID/,
    },
    {
      name: 'user id missing a group',
      filters: { userId: '3f2b8c1e-9a4d-4e6f-8b7a' },
      problem: /user ID must be a UUID/,
    },
    {
      name: 'unparseable start date',
      filters: { startDate: 'yesterday' },
      problem: /start date must be an ISO 8601 date/,
    },
    {
      name: 'unparseable end date',
      filters: { endDate: '2026-13-45' },
      problem: /end date must be an ISO 8601 date/,
    },
    {
      name: 'start after end',
      filters: { startDate: '2026-07-02', endDate: '2026-07-01' },
      problem: /start date is after the end date/,
    },
    {
      name: 'start after end (timestamps)',
      filters: { startDate: '2026-07-01T10:00:01Z', endDate: '2026-07-01T10:00:00Z' },
      problem: /start date is after the end date/,
    },
    {
      // The server reads a bare end date as the whole day ("on or before 2026-07-01").
      name: 'start timestamp inside the day of a bare end date',
      filters: { startDate: '2026-07-01T09:00:00Z', endDate: '2026-07-01' },
      problem: undefined,
    },
    {
      name: 'start timestamp the day after a bare end date',
      filters: { startDate: '2026-07-02T00:00:00Z', endDate: '2026-07-01' },
      problem: /start date is after the end date/,
    },
    {
      name: 'start equal to end',
      filters: { startDate: '2026-07-01', endDate: '2026-07-01' },
      problem: undefined,
    },
    {
      name: 'team scope with a UUID team id (upper case)',
      filters: { viewerScope: 'team', teamId: TEAM.toUpperCase() },
      problem: undefined,
    },
    {
      name: 'everything valid together',
      filters: {
        harness: 'claude-code',
        status: 'waiting',
        startDate: '2026-07-01',
        endDate: '2026-07-31T23:59:59Z',
        quality: 'all',
        viewerScope: 'team',
        teamId: TEAM,
        userId: USER,
      },
      problem: undefined,
    },
    {
      name: 'organization scope alone',
      filters: { viewerScope: 'organization' },
      problem: undefined,
    },
    {
      name: 'self scope with a user',
      filters: { viewerScope: 'self', userId: USER },
      problem: undefined,
    },
    { name: 'only a start date', filters: { startDate: '2026-07-01' }, problem: undefined },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const problem = validateFilters(row.filters);
      if (row.problem === undefined) assert.equal(problem, undefined);
      else assert.match(problem ?? '(valid)', row.problem);
    });
  }
});

describe('filterArguments', () => {
  it('keeps the set string values and drops empty and missing ones', () => {
    assert.deepEqual(
      filterArguments({
        harness: 'codex',
        status: 'active',
        startDate: '',
        endDate: undefined,
        quality: 'idle',
        viewerScope: 'team',
        teamId: TEAM,
        userId: '',
      }),
      { harness: 'codex', status: 'active', quality: 'idle', viewerScope: 'team', teamId: TEAM },
    );
  });

  it('no filters: no arguments', () => {
    assert.deepEqual(filterArguments({}), {});
    assert.deepEqual(filterArguments({ harness: '', status: undefined }), {});
  });
});

describe('describeFilters', () => {
  it('is empty without filters', () => {
    assert.equal(describeFilters({}), '');
  });

  it('lists the set filters in a fixed order', () => {
    assert.equal(
      describeFilters({
        userId: USER,
        viewerScope: 'team',
        teamId: TEAM,
        quality: 'idle',
        endDate: '2026-07-31',
        startDate: '2026-07-01',
        status: 'waiting',
        harness: 'claude-code',
      }),
      'claude-code · waiting · since 2026-07-01 · until 2026-07-31 · idle sessions · team · one user',
    );
  });

  it('the default quality (substantive) is not mentioned; "all" is', () => {
    assert.equal(describeFilters({ quality: 'substantive' }), '');
    assert.equal(describeFilters({ quality: 'all' }), 'all sessions');
  });

  it('names the scope', () => {
    assert.equal(describeFilters({ viewerScope: 'self' }), 'self');
    assert.equal(describeFilters({ viewerScope: 'organization' }), 'organization');
  });
});

describe('matchesText', () => {
  const s = {
    label: 'Fix flaky Login test',
    harness: 'claude-code',
    model: 'opus-4',
    repository: 'acme/web',
    user: 'Grace Hopper',
    branch: 'bugfix/LOGIN-42',
  };

  it('matches any shown field, case-insensitively', () => {
    for (const text of ['flaky', 'CLAUDE', 'Opus-4', 'acme/', 'hopper', 'login-42']) {
      assert.equal(matchesText(s, text), true, text);
    }
  });

  it('trims the text; blank text matches everything', () => {
    assert.equal(matchesText(s, '  grace  '), true);
    assert.equal(matchesText(s, ''), true);
    assert.equal(matchesText(s, '   '), true);
  });

  it('does not match what is not there, and missing fields are skipped', () => {
    assert.equal(matchesText(s, 'codex'), false);
    assert.equal(matchesText({ label: 'only a label' }, 'codex'), false);
    assert.equal(matchesText({ label: 'only a label' }, 'LABEL'), true);
  });
});
