/**
 * <usage-view>: token numbers, cost, one SVG bar per turn with an accessible name,
 * a table alternative and the context gauge.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { UsageView } from '../../src/shared/protocol.ts';
import { openHarness, until } from './support/harness.ts';
import type { Harness } from './support/harness.ts';

let h: Harness;
before(async () => {
  h = await openHarness();
});
after(() => h?.close());

const usage: UsageView = {
  input: 12_345,
  output: 678,
  cacheRead: 90_000,
  cacheWrite: 1_000,
  cost: '$0.42',
  turns: Array.from({ length: 24 }, (_, i) => ({
    label: String(i + 1),
    input: 1000 + i * 500,
    output: 100 + i * 20,
  })),
  context: { used: 150_000, window: 200_000 },
};

test('one bar per turn, each with an accessible label', async () => {
  await h.load();
  await h.probe.send({ type: 'usage', view: usage });
  const bars = h.page.locator('usage-view svg.chart g.bar');
  await until(
    () => bars.count(),
    (n) => n === 24,
    '24 bars',
  );
  assert.equal(await bars.nth(0).getAttribute('role'), 'img');
  assert.equal(
    await bars.nth(0).getAttribute('aria-label'),
    'Turn 1: 1,000 input, 100 output tokens',
  );
  assert.equal(
    await bars.nth(23).getAttribute('aria-label'),
    'Turn 24: 12,500 input, 560 output tokens',
  );
  assert.equal(
    await bars.nth(23).locator('title').textContent(),
    'Turn 24: 12,500 input, 560 output tokens',
  );
  // Heights follow the numbers: the tallest stack is the last turn's, filling the chart.
  const heights = await bars.evaluateAll((gs) =>
    gs.map((g) =>
      [...g.querySelectorAll('rect')].reduce((sum, r) => sum + Number(r.getAttribute('height')), 0),
    ),
  );
  assert.equal(Math.round(heights[23] ?? 0), 120);
  assert.ok((heights[0] ?? 0) < (heights[23] ?? 0));
  const chart = h.page.getByRole('group', { name: 'Tokens per turn' });
  assert.equal(await chart.count(), 1);
  assert.equal(await h.page.getByRole('img', { name: /^Turn \d+:/ }).count(), 24);
  // The table alternative has a row per turn.
  await h.page.locator('usage-view summary').click();
  assert.equal(await h.page.locator('usage-view tbody tr').count(), 24);
  await h.shot('usage');
});

test('token numbers, cost and the context gauge', async () => {
  await h.load();
  await h.probe.send({ type: 'usage', view: usage });
  const totals = h.page.locator('usage-view dl');
  await totals.waitFor();
  const text = await totals.innerText();
  for (const expected of [
    'Input',
    '12,345',
    'Output',
    '678',
    'Cache read',
    '90,000',
    'Cache write',
    '1,000',
    '$0.42',
  ]) {
    assert.ok(text.includes(expected), `${expected} in ${text}`);
  }
  assert.ok(!text.includes('Reasoning'), 'kinds the source does not report are left out');
  const meter = h.page.getByRole('meter', { name: 'Context window use' });
  assert.equal(await meter.getAttribute('aria-valuenow'), '150000');
  assert.equal(await meter.getAttribute('aria-valuemax'), '200000');
  assert.equal(await meter.getAttribute('aria-valuetext'), '150,000 of 200,000 tokens (75%)');
  assert.equal(await h.page.locator('usage-view rect.fill').getAttribute('width'), '75%');
  assert.match((await h.page.locator('usage-view rect.fill').getAttribute('class')) ?? '', /high/);

  // Without context the gauge is absent; bad numbers from the host draw as zero.
  await h.probe.send({
    type: 'usage',
    view: { cost: '', turns: [{ label: 'x', input: Number.NaN, output: -5 }] },
  });
  await until(
    () => h.page.getByRole('meter').count(),
    (n) => n === 0,
    'no gauge',
  );
  assert.equal(
    await h.page.locator('usage-view g.bar').getAttribute('aria-label'),
    'Turn x: 0 input, 0 output tokens',
  );
  assert.match(await h.page.locator('usage-view dl').innerText(), /Estimated cost\s+unknown/);
});
