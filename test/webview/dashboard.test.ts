/**
 * <usage-dashboard>: headline totals, cost and tokens over time, a horizontal bar chart
 * per breakdown with one accessible bar per row and a table alternative, range buttons
 * that post setRange, the failed state, and backend names that stay text.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { DashboardView, HostToDashboard } from '../../src/shared/dashboardProtocol.ts';
import { isDashboardMessage } from '../../src/shared/dashboardProtocol.ts';
import type { DashboardData } from '../../src/sources/usage/dashboardTypes.ts';
import { toDashboardView } from '../../src/webview/dashboardView.ts';
import { openHarness, until } from './support/harness.ts';
import type { Harness } from './support/harness.ts';
import { SHORT_PAYLOADS, XSS_PAYLOADS } from './support/xssCorpus.ts';

let h: Harness;
before(async () => {
  h = await openHarness({ dashboard: true });
});
after(() => h?.close());

const DAYS = 30;
function data(names?: {
  model: string;
  repo: string;
  tool: string;
  problem: string;
}): DashboardData {
  const points = Array.from({ length: DAYS }, (_, i) => ({
    day: new Date(Date.UTC(2026, 6, 2 + i)).toISOString().slice(0, 10),
    sessionCount: (i % 5) + 1,
    estimatedCost: i === 3 ? 0 : 1.5 + i * 0.25,
    inputTokens: 10_000 + i * 1_000,
    outputTokens: 2_000 + i * 100,
    unknownCostSessions: i === 3 ? 2 : 0,
  }));
  const usageRow = (key: string, cost: number, sessions: number) => ({
    key,
    label: key,
    sessionCount: sessions,
    inputTokens: sessions * 10_000,
    outputTokens: sessions * 1_000,
    estimatedCost: cost,
  });
  return {
    viewerScope: 'organization',
    totals: {
      sessions: 90,
      inputTokens: 1_234_567,
      outputTokens: 234_567,
      cacheReadTokens: 3_000_000,
      cacheWriteTokens: 45_000,
      estimatedCost: 151.25,
      subscriptionCost: 100,
      apiCost: 51.25,
    },
    byUser: [
      { ...usageRow('u1', 100, 60), label: 'Ada Lovelace' },
      { ...usageRow('u2', 51.25, 30), label: 'grace@example.com' },
    ],
    byModel: [
      usageRow('claude-sonnet-4', 90, 50),
      usageRow(names?.model ?? 'gpt-5-codex', 50, 30),
      usageRow('claude-haiku', 11.25, 10),
    ],
    byHarness: [usageRow('claude-code', 100, 60), usageRow('codex', 51.25, 30)],
    byRepository: [
      usageRow(names?.repo ?? 'acme/api', 80, 40),
      usageRow('acme/web', 60, 35),
      usageRow('acme/infra', 11.25, 15),
      usageRow('', 0, 0),
    ],
    analytics: {
      totalSessions: 90,
      byTool: [
        { tool: 'Bash', useCount: 1200, sessionCount: 80 },
        { tool: 'Edit', useCount: 800, sessionCount: 70 },
        { tool: names?.tool ?? 'Read', useCount: 650, sessionCount: 85 },
        { tool: 'WebFetch', useCount: 1, sessionCount: 1 },
      ],
      byAgentType: [
        { agentType: 'general-purpose', agentCount: 40, sessionCount: 30 },
        { agentType: 'Explore', agentCount: 25, sessionCount: 20 },
      ],
      byRepository: [],
      byProject: [
        { key: 'api', label: 'api', sessionCount: 40, toolUseCount: 900, errorCount: 3 },
        { key: 'web', label: 'web', sessionCount: 35, toolUseCount: 700, errorCount: 0 },
      ],
    },
    costOverTime: {
      source: 'sessions',
      basis: 'lastActivityAt',
      points,
      sessionsRead: 90,
      complete: true,
    },
    invalidRows: 0,
    problems: names ? [names.problem] : [],
  };
}

const view: DashboardView = toDashboardView(data(), {
  connectionLabel: 'Closedloop (prod)',
  range: 30,
  filters: { startDate: '2026-07-03', harness: 'claude-code' },
});

async function show(message: HostToDashboard): Promise<void> {
  await h.probe.send(message);
}

const root = (selector: string) => h.page.locator(`usage-dashboard ${selector}`);
/** The range buttons shown pressed. */
const pressed = async () =>
  (await root('button.range[aria-pressed="true"]').allInnerTexts()).map((t) => t.trim());
/** What the host sends for the webview to keep (a restored tab starts from it). */
const STATE = { connectionId: 'c1', range: 30 } as const;

test('the dashboard says ready, then renders totals, both time charts and every breakdown', async () => {
  await h.load();
  // The load() above cleared nothing the page posted: ready is the first message.
  const posted = await h.probe.posted();
  assert.deepEqual(posted[0], { type: 'ready' });
  assert.ok(posted.every(isDashboardMessage), 'only protocol messages');

  await show({ type: 'data', view, state: STATE });
  await root('section.breakdown').first().waitFor();
  assert.match(await root('h1').innerText(), /Usage — Closedloop \(prod\)/);
  const header = await root('header').innerText();
  assert.match(
    header,
    /Last 30 days; harness claude-code; since 2026-07-03; viewer scope organization/,
  );

  const totals = await root('dl.totals').innerText();
  for (const expected of ['90', '$151.25', '1,234,567', '234,567', '3,000,000', '45,000'])
    assert.ok(totals.includes(expected), `${expected} in ${totals}`);
  assert.equal(
    await h.page
      .getByRole('img', { name: 'Cost split: Subscriptions $100.00, API $51.25' })
      .count(),
    1,
  );
  assert.equal(await root('.split rect.sub').getAttribute('width'), '66.1%');

  // Cost and tokens over time: one column per day, each named.
  const cost = h.page.getByRole('group', { name: 'Estimated cost per day' });
  const tokens = h.page.getByRole('group', { name: 'Tokens per day' });
  assert.equal(await cost.locator('g.bar').count(), DAYS);
  assert.equal(await tokens.locator('g.bar').count(), DAYS);
  assert.equal(
    await cost.locator('g.bar').nth(0).getAttribute('aria-label'),
    'Jul 2, 2026: $1.50, 1 session',
  );
  assert.equal(
    await cost.locator('g.bar').nth(3).getAttribute('aria-label'),
    'Jul 5, 2026: $0.00, 4 sessions, 2 without a cost',
  );
  assert.equal(
    await tokens.locator('g.bar').nth(29).getAttribute('aria-label'),
    'Jul 31, 2026: 39,000 input, 4,900 output tokens',
  );
  assert.equal(
    await tokens.locator('g.bar').nth(29).locator('title').textContent(),
    'Jul 31, 2026: 39,000 input, 4,900 output tokens',
  );
  // Heights follow the numbers: the most expensive day fills the chart.
  const heights = await cost
    .locator('rect')
    .evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('height'))));
  assert.equal(Math.round(heights[29] ?? 0), 120);
  assert.equal(heights[3], 0);
  assert.match(
    await root('p.muted').first().innerText(),
    /summed from 90 sessions.*2 sessions without a cost are not counted as \$0/,
  );

  // A bar chart per breakdown, in order, one named bar per row.
  const ids = await root('section.breakdown').evaluateAll((s) =>
    s.map((e) => e.getAttribute('data-breakdown')),
  );
  assert.deepEqual(ids, ['model', 'harness', 'repository', 'user', 'tool', 'agentType', 'project']);
  const rows = { model: 3, harness: 2, repository: 4, user: 2, tool: 4, agentType: 2, project: 2 };
  for (const [id, count] of Object.entries(rows)) {
    const bars = root(`section[data-breakdown="${id}"] .hbar`);
    assert.equal(await bars.count(), count, id);
    for (const label of await bars.evaluateAll((b) => b.map((e) => e.getAttribute('aria-label'))))
      assert.match(label ?? '', /^.+: .+$/, `${id}: ${label}`);
    assert.equal(
      await root(`section[data-breakdown="${id}"] .hbar[role="img"]`).count(),
      count,
      `${id}: every bar is an image`,
    );
  }
  assert.equal(await h.page.getByRole('group', { name: 'Estimated cost by model' }).count(), 1);
  assert.equal(await h.page.getByRole('img', { name: 'claude-sonnet-4: $90.00' }).count(), 1);
  assert.equal(await h.page.getByRole('img', { name: 'Bash: 1,200 uses' }).count(), 1);
  assert.equal(await h.page.getByRole('img', { name: 'WebFetch: 1 use' }).count(), 1);
  assert.equal(await h.page.getByRole('img', { name: 'Ada Lovelace: $100.00' }).count(), 1);
  assert.equal(await h.page.getByRole('img', { name: '(none): $0.00' }).count(), 1);
  assert.equal(await h.page.getByRole('img', { name: 'general-purpose: 40 agents' }).count(), 1);
  assert.equal(await h.page.getByRole('img', { name: 'api: 40 sessions' }).count(), 1);
  // Widths follow the numbers: the first (largest) row fills the track.
  const widths = await root('section[data-breakdown="tool"] rect.fill').evaluateAll((r) =>
    r.map((e) => e.getAttribute('width')),
  );
  assert.deepEqual(widths, ['100%', '66.7%', '54.2%', '0.1%']);
  assert.equal(await root('.problems').count(), 0, 'no problem notice without problems');
  const health = await h.probe.health();
  assert.deepEqual(health.violations, [], 'nothing blocked by the CSP');
  assert.deepEqual(health.errors, []);
  assert.deepEqual(h.pageErrors, []);
  await h.shot('dashboard');
});

test('every chart has a table alternative behind "Show as table"', async () => {
  await h.load();
  await show({ type: 'data', view, state: STATE });
  await root('section.breakdown').first().waitFor();
  const summaries = root('summary');
  // 2 time charts + 7 breakdowns.
  assert.equal(await summaries.count(), 9);
  assert.equal(await root('details[open]').count(), 0);
  assert.equal(await root('table').first().isVisible(), false);

  const model = root('section[data-breakdown="model"]');
  await model.locator('summary').click();
  assert.equal(await model.locator('details').getAttribute('open'), '');
  const table = h.page.getByRole('table', { name: 'Estimated cost by model' });
  assert.equal(await table.locator('tbody tr').count(), 3);
  assert.deepEqual(await table.locator('thead th').allInnerTexts(), [
    'Model',
    'Sessions',
    'Input tokens',
    'Output tokens',
    'Estimated cost',
  ]);
  assert.deepEqual(await table.locator('tbody tr').first().locator('th, td').allInnerTexts(), [
    'claude-sonnet-4',
    '50',
    '500,000',
    '50,000',
    '$90.00',
  ]);
  await model.locator('summary').click();
  assert.equal(await model.locator('details').getAttribute('open'), null);

  await root('summary').first().click();
  const perDay = h.page.getByRole('table', { name: 'Estimated cost per day' });
  assert.equal(await perDay.locator('tbody tr').count(), DAYS);
  assert.deepEqual(await perDay.locator('tbody tr').nth(3).locator('th, td').allInnerTexts(), [
    'Jul 5, 2026',
    '$0.00',
    '4',
    '2',
  ]);
  await root('summary').nth(1).click();
  assert.equal(
    await h.page.getByRole('table', { name: 'Tokens per day' }).locator('tbody tr').count(),
    DAYS,
  );
  // Keyboard: a summary is focusable and toggles with Enter.
  const tool = root('section[data-breakdown="tool"] summary');
  await tool.focus();
  await h.page.keyboard.press('Enter');
  assert.equal(
    await h.page.getByRole('table', { name: 'Uses by tool' }).locator('tbody tr').count(),
    4,
  );
});

test('range buttons post setRange and show the pressed range; Refresh posts refresh', async () => {
  await h.load();
  await show({ type: 'data', view, state: STATE });
  await root('section.breakdown').first().waitFor();
  await h.probe.clearPosted();
  assert.deepEqual(await pressed(), ['30 days']);
  assert.deepEqual(
    (await root('button.range').allInnerTexts()).map((t) => t.trim()),
    ['7 days', '30 days', '90 days', 'All'],
  );

  await h.page.getByRole('button', { name: '7 days' }).click();
  await h.page.getByRole('button', { name: '90 days' }).click();
  await h.page.getByRole('button', { name: 'All' }).click();
  await h.page.getByRole('button', { name: 'Refresh' }).click();
  await until(
    () => h.probe.posted(),
    (p) => p.length === 4,
    'four messages',
  );
  assert.deepEqual(await h.probe.posted(), [
    { type: 'setRange', days: 7 },
    { type: 'setRange', days: 90 },
    { type: 'setRange', days: null },
    { type: 'refresh' },
  ]);
  assert.ok((await h.probe.posted()).every(isDashboardMessage));
  assert.deepEqual(await pressed(), ['All'], 'the asked-for range shows until its data arrives');

  await show({ type: 'loading' });
  await until(
    () => h.page.getByRole('status').innerText(),
    (t) => t.includes('Loading usage for all time'),
    'loading status',
  );
  await show({
    type: 'data',
    view: { ...view, range: 7, rangeText: 'Last 7 days' },
    state: { ...STATE, range: 7 },
  });
  await until(pressed, (p) => p.join() === '7 days', 'the range of the data');
  assert.equal((await h.page.getByRole('status').innerText()).trim(), '');
});

test('the page keeps the connection and range it shows, for VS Code to restore the tab', async () => {
  await h.load();
  const saved = () =>
    h.page.evaluate(() =>
      (globalThis as unknown as { __probe: { savedState(): unknown } }).__probe.savedState(),
    );
  assert.equal(await saved(), undefined, 'nothing before data');
  await show({ type: 'data', view, state: STATE });
  await until(saved, (s) => JSON.stringify(s) === JSON.stringify(STATE), 'the state kept');
  await show({
    type: 'data',
    view: { ...view, range: 7, rangeText: 'Last 7 days' },
    state: { ...STATE, range: 7 },
  });
  await until(saved, (s) => (s as { range?: unknown }).range === 7, 'the new range kept');
  // A malformed state from the host is not kept (its view still shows).
  await h.probe.send({
    type: 'data',
    view: { ...view, range: 90, rangeText: 'Last 90 days' },
    state: { connectionId: '', range: 5 },
  });
  await until(pressed, (p) => p.join() === '90 days', 'the malformed message was handled');
  assert.deepEqual(await saved(), { ...STATE, range: 7 });
});

test('failed state: the message as an alert, with Retry; problems as a notice', async () => {
  await h.load();
  const message =
    'Monitoring is not enabled for this account (403). Agent-session monitoring is not enabled for this account or organization.';
  await show({ type: 'failed', message });
  const alert = h.page.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.innerText(), /Monitoring is not enabled for this account \(403\)/);
  assert.equal(await root('section.breakdown').count(), 0);
  await h.probe.clearPosted();
  await alert.getByRole('button', { name: 'Retry' }).click();
  assert.deepEqual(await h.probe.posted(), [{ type: 'refresh' }]);

  // Data after a failure replaces the alert; the parts that could not load are listed.
  const partial: DashboardView = {
    ...view,
    series: undefined,
    breakdowns: view.breakdowns.filter((b) => b.id === 'model'),
    problems: ['This server has no analytics tool; tool and project breakdowns are not shown.'],
  };
  await show({ type: 'data', view: partial, state: STATE });
  await root('.problems').waitFor();
  assert.equal(await h.page.getByRole('alert').count(), 0);
  assert.match(await root('.problems').innerText(), /no analytics tool/);
  assert.equal(await h.page.getByRole('group', { name: 'Tokens per day' }).count(), 0);
  assert.equal(await root('section.breakdown').count(), 1);
});

test('model, repository, tool names and problems from the backend stay text', async () => {
  for (const payloads of [
    SHORT_PAYLOADS,
    XSS_PAYLOADS.filter((p) => !SHORT_PAYLOADS.includes(p)),
  ]) {
    if (payloads.length === 0) continue;
    await h.load();
    for (const payload of payloads) {
      const hostile = toDashboardView(
        data({ model: payload, repo: payload, tool: payload, problem: payload }),
        { connectionLabel: payload, range: null, filters: { harness: payload } },
      );
      await show({ type: 'data', view: hostile, state: STATE });
      await until(
        () => h.page.getByRole('img', { name: `${payload}: 650 uses` }).count(),
        (n) => n === 1,
        'the hostile tool row',
      );
      const scan = await h.page.evaluate(() =>
        (
          globalThis as unknown as {
            __probe: { dashboardScan(): { tags: string[]; problems: string[]; text: string } };
          }
        ).__probe.dashboardScan(),
      );
      assert.deepEqual(scan.problems, [], payload);
      const allowed = new Set([
        'button',
        'caption',
        'dd',
        'details',
        'div',
        'dl',
        'dt',
        'g',
        'h1',
        'h2',
        'header',
        'li',
        'p',
        'rect',
        'section',
        'span',
        'summary',
        'svg',
        'table',
        'tbody',
        'td',
        'th',
        'thead',
        'title',
        'tr',
        'ul',
      ]);
      assert.deepEqual(
        scan.tags.filter((t) => !allowed.has(t)),
        [],
        payload,
      );
      // The payload is shown as text: in the title, the problems, and the rows.
      const normalized = payload.replace(/\s+/g, ' ');
      assert.ok(scan.text.includes(normalized), `shown as text: ${payload}`);
    }
    const health = await h.probe.health();
    assert.equal(health.xss, undefined, 'no payload ran');
    assert.deepEqual(h.dialogs, []);
    assert.deepEqual(health.errors, []);
  }
});

test("the host's init translates the dashboard and dates its days in the display language", async () => {
  await h.load();
  await show({
    type: 'init',
    l10n: {
      language: 'fr',
      bundle: { Totals: 'Totaux', 'Usage — {0}': 'Utilisation — {0}', '{0} days': '{0} jours' },
    },
  });
  await show({ type: 'data', view, state: STATE });
  await root('section.breakdown').first().waitFor();
  assert.equal((await root('h2#totals').innerText()).trim(), 'Totaux');
  assert.match(await root('h1').innerText(), /^Utilisation — Closedloop \(prod\)$/);
  assert.deepEqual(
    (await root('button.range').allInnerTexts()).map((t) => t.trim()),
    ['7 jours', '30 jours', '90 jours', 'All'],
  );
  // Days through Intl in French (2 juil. 2026), in the chart's labels and its first axis tick.
  const cost = h.page.getByRole('group', { name: 'Estimated cost per day' });
  assert.match(
    (await cost.locator('g.bar').nth(0).getAttribute('aria-label')) ?? '',
    /^2 juil\. 2026: /,
  );
  assert.match(await root('.axis span').first().innerText(), /^2 juil\. 2026$/);
});
