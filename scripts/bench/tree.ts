/**
 * Sessions tree figures on 10,000 sessions of one connection: derive statuses
 * (parse + validate the rows), group, and build the rows the tree shows — each
 * group's first page. Also: expanding one group of 5,000 builds only its first page.
 */
import { SeededRandom } from '../../src/demo/random.ts';
import type { RowLabels } from '../../src/domain/treeModel.ts';
import { GROUP_PAGE, buildGroups, pageOfGroup, sessionRow } from '../../src/domain/treeModel.ts';
import { parseListAgentSessions } from '../../src/sources/mcp/reportingRows.ts';
import { groupByStatus } from '../../src/store/sessionStore.ts';

const labels: RowLabels = {
  status: (s) => s,
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
    tasks: 'Manual tasks',
  },
  unknownWaiting: 'unknown',
};

function rows(count: number, statuses: readonly string[]): unknown[] {
  const random = new SeededRandom(42);
  const now = Date.parse('2026-11-30T00:00:00Z');
  return Array.from({ length: count }, (_, i) => ({
    id: random.uuid(),
    slug: `SES-${i}`,
    name: `Session ${i}: refactor the ${random.pick(['billing', 'auth', 'search', 'etl'])} module`,
    status: random.pick(statuses),
    harness: random.pick(['claude-code', 'codex']),
    model: random.pick(['claude-sonnet-4-5', 'gpt-5-codex', 'claude-opus-4-1']),
    repositoryFullName: `acme/${random.pick(['api', 'web', 'infra', 'data'])}`,
    baseBranch: 'main',
    startedAt: new Date(now - random.int(0, 30 * 86400) * 1000).toISOString(),
    lastActivityAt: new Date(now - random.int(0, 86400) * 1000).toISOString(),
    estimatedCost: random.next() * 20,
    inputTokens: random.int(1000, 2_000_000),
    outputTokens: random.int(100, 200_000),
    user: { id: random.uuid(), firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
  }));
}

function median(fn: () => void, runs = 15): number {
  fn(); // warm up the JIT
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    fn();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return Math.round((times[Math.floor(runs / 2)] ?? 0) * 100) / 100;
}

export function benchTree(): { name: string; value: number; unit: string }[] {
  const raw = rows(10_000, [
    'waiting',
    'active',
    'inactive',
    'error',
    'stale',
    'unknown',
    'abandoned',
  ]);
  let built = 0;
  const full = median(() => {
    const page = parseListAgentSessions({ items: raw, total: raw.length }, 'bench', 0);
    const groups = buildGroups(groupByStatus(page.sessions));
    built = 0;
    for (const group of groups.groups) {
      for (const session of pageOfGroup(group.sessions, GROUP_PAGE).visible) {
        sessionRow(session, labels);
        built++;
      }
    }
  });
  const every = median(() => {
    const page = parseListAgentSessions({ items: raw, total: raw.length }, 'bench', 0);
    for (const session of page.sessions) sessionRow(session, labels);
  }, 5);

  const big = parseListAgentSessions(
    { items: rows(5_000, ['active']), total: 5_000 },
    'bench',
    0,
  ).sessions;
  let expandedRows = 0;
  const expand = median(() => {
    const { visible } = pageOfGroup(big, GROUP_PAGE);
    expandedRows = visible.map((s) => sessionRow(s, labels)).length;
  });
  return [
    { name: 'tree: 10k sessions derive+group+first-page rows', value: full, unit: 'ms' },
    { name: 'tree: rows built for that view', value: built, unit: 'rows' },
    { name: 'tree: 10k sessions derive + every row built', value: every, unit: 'ms' },
    { name: 'tree: expand a group of 5,000', value: expand, unit: 'ms' },
    { name: 'tree: rows built on that expand', value: expandedRows, unit: 'rows' },
  ];
}
