import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DerivedStatus, StatusDerivation } from '../../../src/domain/derivedStatus.ts';
import type { SessionSummary } from '../../../src/domain/session.ts';
import type { RowLabels } from '../../../src/domain/treeModel.ts';
import {
  buildGroups,
  buildProjectGroups,
  GROUP_PAGE,
  pageOfGroup,
  sessionRow,
  waitingCount,
} from '../../../src/domain/treeModel.ts';

function session(
  id: string,
  status: DerivedStatus | StatusDerivation,
  extra: Partial<SessionSummary> = {},
): SessionSummary {
  return {
    id,
    connectionId: 'conn',
    label: `session ${id}`,
    status: typeof status === 'string' ? { status, raw: status } : status,
    ...extra,
  };
}

function byStatus(
  entries: [DerivedStatus, SessionSummary[]][],
): Map<DerivedStatus, SessionSummary[]> {
  return new Map(entries);
}

const ids = (list: readonly SessionSummary[]) => list.map((s) => s.id);

describe('buildGroups', () => {
  it('orders groups waiting → active → idle → error → finished → stale → unknown, whatever the map order', () => {
    const order: DerivedStatus[] = [
      'unknown',
      'stale',
      'finished',
      'error',
      'idle',
      'active',
      'waiting',
    ];
    const { groups } = buildGroups(byStatus(order.map((st) => [st, [session(st, st)]])));
    assert.deepEqual(
      groups.map((g) => g.status),
      ['waiting', 'active', 'idle', 'error', 'finished', 'stale', 'unknown'],
    );
    assert.deepEqual(
      groups.map((g) => ids(g.sessions)),
      [['waiting'], ['active'], ['idle'], ['error'], ['finished'], ['stale'], ['unknown']],
    );
  });

  it('drops empty groups and statuses that have no entry', () => {
    const { groups } = buildGroups(
      byStatus([
        ['error', []],
        ['active', [session('a', 'active')]],
        ['finished', [session('f', 'finished')]],
      ]),
    );
    assert.deepEqual(
      groups.map((g) => g.status),
      ['active', 'finished'],
    );
  });

  it('keeps the order of sessions inside a group', () => {
    const { groups } = buildGroups(
      byStatus([
        ['active', [session('c', 'active'), session('a', 'active'), session('b', 'active')]],
      ]),
    );
    assert.deepEqual(ids(groups[0]!.sessions), ['c', 'a', 'b']);
  });

  it('filters by text on label, harness, model, repository, user and branch, case-insensitively', () => {
    const sessions = [
      session('1', 'active', { label: 'Fix Login' }),
      session('2', 'active', { harness: 'claude-code' }),
      session('3', 'active', { model: 'gpt-5-codex' }),
      session('4', 'idle', { repository: 'acme/LOGIN-service' }),
      session('5', 'idle', { user: 'Ada Lovelace' }),
      session('6', 'error', { branch: 'feature/login' }),
      session('7', 'error', { label: 'unrelated', harness: 'codex' }),
    ];
    const map = byStatus([
      ['active', sessions.slice(0, 3)],
      ['idle', sessions.slice(3, 5)],
      ['error', sessions.slice(5)],
    ]);
    const login = buildGroups(map, 'LOGIN');
    assert.deepEqual(
      login.groups.map((g) => [g.status, ids(g.sessions)]),
      [
        ['active', ['1']],
        ['idle', ['4']],
        ['error', ['6']],
      ],
    );
    assert.deepEqual(ids(buildGroups(map, 'claude').groups.flatMap((g) => g.sessions)), ['2']);
    assert.deepEqual(ids(buildGroups(map, 'GPT-5').groups.flatMap((g) => g.sessions)), ['3']);
    assert.deepEqual(ids(buildGroups(map, 'lovelace').groups.flatMap((g) => g.sessions)), ['5']);
    assert.deepEqual(
      buildGroups(map, 'no such thing').groups,
      [],
      'groups emptied by the filter are dropped',
    );
    assert.equal(
      buildGroups(map, '').groups.flatMap((g) => g.sessions).length,
      7,
      'empty text shows everything',
    );
    assert.equal(
      buildGroups(map, '   ').groups.flatMap((g) => g.sessions).length,
      7,
      'blank text shows everything',
    );
  });

  it('nests subagents under a loaded parent (even in another group) and removes them from their group', () => {
    const parent = session('p', 'active');
    const childA = session('c1', 'finished', { parentId: 'p' });
    const childB = session('c2', 'active', { parentId: 'p' });
    const grandchild = session('g', 'waiting', { parentId: 'c1' });
    const { groups, children } = buildGroups(
      byStatus([
        ['waiting', [grandchild]],
        ['active', [parent, childB]],
        ['finished', [childA]],
      ]),
    );
    assert.deepEqual(
      groups.map((g) => [g.status, ids(g.sessions)]),
      [['active', ['p']]],
      'only the top-level session is in a group; the finished and waiting groups become empty',
    );
    assert.deepEqual(ids(children.get('p') ?? []), ['c2', 'c1']);
    assert.deepEqual(ids(children.get('c1') ?? []), ['g'], 'a subagent of a subagent nests too');
  });

  it('leaves orphans (parent not loaded) in their own group and out of the children map', () => {
    const orphan = session('o', 'idle', { parentId: 'not-loaded' });
    const { groups, children } = buildGroups(byStatus([['idle', [orphan]]]));
    assert.deepEqual(
      groups.map((g) => [g.status, ids(g.sessions)]),
      [['idle', ['o']]],
    );
    assert.equal(children.size, 0);
  });

  it('applies the text filter to top-level sessions only; children stay indexed by parent', () => {
    const parent = session('p', 'active', { label: 'deploy api' });
    const child = session('c', 'active', { label: 'helper', parentId: 'p' });
    const { groups, children } = buildGroups(byStatus([['active', [parent, child]]]), 'deploy');
    assert.deepEqual(ids(groups[0]!.sessions), ['p']);
    assert.deepEqual(ids(children.get('p') ?? []), ['c']);
  });
});

describe('buildGroups and the open workspace', () => {
  const WS = ['/home/dev/orbit-api', '/home/dev/web-console'];
  const local = (id: string, status: DerivedStatus, project?: string, extra = {}) =>
    session(id, status, { ...(project ? { project } : {}), ...extra });

  it("puts the workspace's sessions first inside each group, keeping the order otherwise", () => {
    const { groups } = buildGroups(
      byStatus([
        [
          'active',
          [
            local('a1', 'active', '/home/dev/ledger'),
            local('a2', 'active', '/home/dev/web-console/packages/ui'),
            local('a3', 'active', undefined, { repository: 'acme/orbit-api' }),
            local('a4', 'active', '/home/dev/infra'),
            local('a5', 'active', '/home/dev/orbit-api'),
          ],
        ],
        ['idle', [local('i1', 'idle', '/x'), local('i2', 'idle', '/home/dev/orbit-api')]],
      ]),
      '',
      { folders: WS, only: false },
    );
    assert.deepEqual(
      groups.map((g) => [g.status, ids(g.sessions)]),
      [
        ['active', ['a2', 'a3', 'a5', 'a1', 'a4']],
        ['idle', ['i2', 'i1']],
      ],
    );
  });

  it('keeps the order unchanged without workspace folders', () => {
    const list = [local('b', 'idle', '/x'), local('a', 'idle', '/home/dev/orbit-api')];
    const { groups } = buildGroups(byStatus([['idle', list]]));
    assert.deepEqual(ids(groups[0]!.sessions), ['b', 'a']);
  });

  it('"this workspace only" hides the sessions of other projects and those without a project', () => {
    const parent = local('p', 'active', '/home/dev/orbit-api');
    const child = local('c', 'active', '/tmp/elsewhere', { parentId: 'p' });
    const { groups, children } = buildGroups(
      byStatus([
        ['waiting', [local('w', 'waiting', '/home/dev/ledger')]],
        ['active', [parent, child, local('x', 'active', '/home/dev/ledger')]],
        ['unknown', [local('n', 'unknown')]],
      ]),
      '',
      { folders: WS, only: true },
    );
    assert.deepEqual(
      groups.map((g) => [g.status, ids(g.sessions)]),
      [['active', ['p']]],
    );
    assert.deepEqual(ids(children.get('p') ?? []), ['c'], 'a shown parent keeps its subagents');
  });

  it('"this workspace only" with no folder open hides nothing', () => {
    const { groups } = buildGroups(byStatus([['idle', [local('a', 'idle', '/x')]]]), '', {
      folders: [],
      only: true,
    });
    assert.deepEqual(ids(groups[0]!.sessions), ['a']);
  });
});

describe('buildProjectGroups', () => {
  const WS = ['/home/dev/web-console'];
  const at = (
    id: string,
    status: DerivedStatus,
    project: string | undefined,
    when: string,
    extra = {},
  ) =>
    session(id, status, {
      ...(project ? { project } : {}),
      lastActivityAt: `2026-06-0${when}T10:00:00.000Z`,
      ...extra,
    });

  const sample = () =>
    byStatus([
      ['waiting', [at('w1', 'waiting', '/home/dev/ledger', '2')]],
      [
        'active',
        [
          at('a1', 'active', '/home/dev/orbit-api', '5'),
          at('a2', 'active', '/home/dev/ledger', '3'),
          at('sub', 'active', '/home/dev/orbit-api', '6', { parentId: 'a1' }),
        ],
      ],
      [
        'finished',
        [
          at('f1', 'finished', '/home/dev/web-console', '1'),
          at('f2', 'finished', '/home/dev/ledger', '4'),
          at('f3', 'finished', undefined, '9'),
        ],
      ],
      ['idle', [at('i1', 'idle', '/home/dev/ledger', '1')]],
    ]);

  it("orders the workspace's projects first, then by latest activity; sessions without a project last", () => {
    const { projects } = buildProjectGroups(sample(), '', { folders: WS, only: false });
    assert.deepEqual(
      projects.map((p) => [p.key, p.name, p.inWorkspace]),
      [
        ['/home/dev/web-console', 'web-console', true],
        ['/home/dev/orbit-api', 'orbit-api', false],
        ['/home/dev/ledger', 'ledger', false],
        ['', undefined, false],
      ],
    );
  });

  it('lists waiting sessions first, then in status-group order, and counts sessions and waiting', () => {
    const { projects } = buildProjectGroups(sample());
    const ledger = projects.find((p) => p.key === '/home/dev/ledger')!;
    assert.deepEqual(ids(ledger.sessions), ['w1', 'a2', 'i1', 'f2']);
    assert.equal(ledger.waiting, 1);
    assert.equal(ledger.latestMs, Date.parse('2026-06-04T10:00:00.000Z'));
    const orbit = projects.find((p) => p.key === '/home/dev/orbit-api')!;
    assert.deepEqual(ids(orbit.sessions), ['a1'], 'the subagent sits under its parent');
    assert.equal(orbit.waiting, 0);
  });

  it('counts add up to the top-level sessions of the status grouping', () => {
    const status = buildGroups(sample());
    const project = buildProjectGroups(sample());
    const total = (n: number[]) => n.reduce((a, b) => a + b, 0);
    assert.equal(
      total(project.projects.map((p) => p.sessions.length)),
      total(status.groups.map((g) => g.sessions.length)),
    );
    assert.equal(waitingCount(project), 1);
    assert.equal(waitingCount(status), 1);
    assert.deepEqual(ids(project.children.get('a1') ?? []), ['sub']);
  });

  it('without a working directory, the repository is the project', () => {
    const { projects } = buildProjectGroups(
      byStatus([
        [
          'active',
          [
            session('r1', 'active', { repository: 'acme/api' }),
            session('r2', 'active', { repository: 'acme/api' }),
            session('r3', 'active', { repository: 'acme/web' }),
          ],
        ],
      ]),
      '',
      { folders: ['/home/me/web'], only: false },
    );
    assert.deepEqual(
      projects.map((p) => [p.key, p.name, p.sessions.length, p.inWorkspace]),
      [
        ['acme/web', 'web', 1, true],
        ['acme/api', 'api', 2, false],
      ],
    );
  });

  it('applies the text and workspace filters and drops projects left empty', () => {
    const onlyWs = buildProjectGroups(sample(), '', { folders: WS, only: true });
    assert.deepEqual(
      onlyWs.projects.map((p) => [p.key, ids(p.sessions)]),
      [['/home/dev/web-console', ['f1']]],
    );
    const text = buildProjectGroups(
      byStatus([
        [
          'idle',
          [
            session('x', 'idle', { project: '/p/a', label: 'deploy' }),
            session('y', 'idle', { project: '/p/b' }),
          ],
        ],
      ]),
      'DEPLOY',
    );
    assert.deepEqual(
      text.projects.map((p) => p.key),
      ['/p/a'],
    );
  });

  it('breaks ties in activity by name, and sessions without a time count as oldest', () => {
    const { projects } = buildProjectGroups(
      byStatus([
        [
          'idle',
          [
            session('b', 'idle', { project: '/p/beta' }),
            session('a', 'idle', { project: '/p/alpha' }),
            at('c', 'idle', '/p/gamma', '1'),
          ],
        ],
      ]),
    );
    assert.deepEqual(
      projects.map((p) => p.name),
      ['gamma', 'alpha', 'beta'],
    );
  });
});

describe('pageOfGroup', () => {
  const items = Array.from({ length: 450 }, (_, i) => i);

  it('shows GROUP_PAGE rows at first and counts the rest', () => {
    assert.equal(GROUP_PAGE, 200);
    const { visible, remaining } = pageOfGroup(items, 0);
    assert.equal(visible.length, GROUP_PAGE);
    assert.deepEqual(visible.slice(0, 3), [0, 1, 2]);
    assert.equal(remaining, 250);
  });

  it('never shows fewer than one page, even when asked for less', () => {
    const { visible, remaining } = pageOfGroup(items, 10);
    assert.equal(visible.length, 200);
    assert.equal(remaining, 250);
  });

  it('shows as many as asked past the first page', () => {
    const { visible, remaining } = pageOfGroup(items, 400);
    assert.equal(visible.length, 400);
    assert.equal(visible.at(-1), 399);
    assert.equal(remaining, 50);
  });

  it('stops at the end of the group with nothing remaining', () => {
    const all = pageOfGroup(items, 600);
    assert.equal(all.visible.length, 450);
    assert.equal(all.remaining, 0);
    const small = pageOfGroup(['a', 'b'], 0);
    assert.deepEqual(small, { visible: ['a', 'b'], remaining: 0 });
    assert.deepEqual(pageOfGroup([], 0), { visible: [], remaining: 0 });
  });
});

describe('sessionRow', () => {
  const NOW = Date.parse('2026-08-01T12:00:00.000Z');
  const labels: RowLabels = {
    status: (s) => `<${s}>`,
    field: {
      status: 'Status',
      started: 'Started',
      lastActivity: 'Last activity',
      ended: 'Ended',
      tokens: 'Tokens',
      cost: 'Cost',
      user: 'User',
      repository: 'Repository',
      branch: 'Branch',
      tasks: 'Tasks',
    },
    unknownWaiting: 'could not tell whether a human is needed',
  };
  const tooltip = (row: { tooltip: [string, string][] }) => new Map(row.tooltip);

  it('builds id, label and contextValue from the session', () => {
    const row = sessionRow(session('s1', 'waiting', { label: 'Refactor parser' }), labels, NOW);
    assert.equal(row.id, 'session:conn:s1');
    assert.equal(row.label, 'Refactor parser');
    assert.equal(row.contextValue, 'session.waiting');
  });

  it('describes harness · model · repository · last activity, skipping missing parts', () => {
    const full = sessionRow(
      session('s', 'active', {
        harness: 'claude-code',
        model: 'opus',
        repository: 'acme/api',
        startedAt: '2026-08-01T09:00:00.000Z',
        lastActivityAt: '2026-08-01T11:50:00.000Z',
      }),
      labels,
      NOW,
    );
    assert.equal(full.description, 'claude-code · opus · acme/api · 10m ago');
    const sparse = sessionRow(
      session('s', 'active', { model: 'opus', startedAt: '2026-08-01T09:00:00.000Z' }),
      labels,
      NOW,
    );
    assert.equal(sparse.description, 'opus · 3h ago', 'falls back to startedAt');
    assert.equal(sessionRow(session('s', 'active'), labels, NOW).description, '');
  });

  it('lists only known values in the tooltip (cost always, as "cost unknown" when undefined)', () => {
    const row = sessionRow(session('s', 'active'), labels, NOW);
    assert.deepEqual(
      row.tooltip.map(([name]) => name),
      ['Status', 'Cost'],
    );
    assert.equal(tooltip(row).get('Cost'), 'cost unknown');
  });

  it('shows every field that is known, in order, with tokens and cost formatted', () => {
    const row = sessionRow(
      session('s', 'finished', {
        startedAt: '2026-08-01T09:00:00.000Z',
        lastActivityAt: '2026-08-01T11:00:00.000Z',
        endedAt: '2026-08-01T11:05:00.000Z',
        inputTokens: 1500,
        outputTokens: 200,
        cacheReadTokens: 2_500_000,
        cacheWriteTokens: 0,
        estimatedCost: 1.234,
        user: 'Ada',
        repository: 'acme/api',
        branch: 'main',
      }),
      labels,
      NOW,
    );
    assert.deepEqual(
      row.tooltip.map(([name]) => name),
      [
        'Status',
        'Started',
        'Last activity',
        'Ended',
        'Tokens',
        'Cost',
        'User',
        'Repository',
        'Branch',
      ],
    );
    const t = tooltip(row);
    assert.equal(t.get('Tokens'), 'in 1.5k · out 200 · cache read 2.50M · cache write 0');
    assert.equal(t.get('Cost'), '$1.23');
    assert.equal(t.get('Ended'), '2026-08-01T11:05:00.000Z');
  });

  it('a zero cost is known ($0.00), not "cost unknown"', () => {
    const row = sessionRow(session('s', 'finished', { estimatedCost: 0 }), labels, NOW);
    assert.equal(tooltip(row).get('Cost'), '$0.00');
  });

  it('keeps the raw status next to the derived one', () => {
    const row = sessionRow(session('s', { status: 'active', raw: 'PAUSING' }), labels, NOW);
    assert.equal(tooltip(row).get('Status'), '<active> — raw: PAUSING');
    const empty = sessionRow(session('s', { status: 'unknown', raw: '' }), labels, NOW);
    assert.equal(tooltip(empty).get('Status'), '<unknown> — raw: ∅');
  });

  it('shows a canceled or interrupted outcome, never just "finished"', () => {
    const canceled = sessionRow(
      session('s', { status: 'finished', outcome: 'canceled', raw: 'CANCELED' }),
      labels,
      NOW,
    );
    assert.equal(tooltip(canceled).get('Status'), '<finished> (canceled) — raw: CANCELED');
    const interrupted = sessionRow(
      session('s', { status: 'idle', outcome: 'interrupted', raw: 'stopped' }),
      labels,
      NOW,
    );
    assert.equal(tooltip(interrupted).get('Status'), '<idle> (interrupted) — raw: stopped');
  });

  it('lists manual tasks with title (or id) and view type (or ?)', () => {
    const row = sessionRow(
      session('s', 'waiting', {
        pendingTasks: [
          { id: 't1', title: 'Approve change', viewType: 'ViewData', completionSupported: true },
          { id: 't2', completionSupported: false },
        ],
      }),
      labels,
      NOW,
    );
    assert.equal(tooltip(row).get('Tasks'), 'Approve change (ViewData); t2 (?)');
    assert.equal(row.tooltip[1]?.[0], 'Tasks', 'tasks come right after the status');
  });

  it('no tasks row for an empty task list', () => {
    const row = sessionRow(session('s', 'active', { pendingTasks: [] }), labels, NOW);
    assert.equal(tooltip(row).has('Tasks'), false);
  });

  it('says the waiting state is unknown when the backend could not tell, even with tasks', () => {
    const row = sessionRow(
      session('s', 'active', {
        waitingUnknown: true,
        pendingTasks: [{ id: 't1', completionSupported: true }],
      }),
      labels,
      NOW,
    );
    assert.equal(tooltip(row).get('Tasks'), 'could not tell whether a human is needed');
  });
});
