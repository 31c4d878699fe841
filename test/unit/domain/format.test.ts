import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCost, formatTokens, relativeTime } from '../../../src/domain/format.ts';

test('unknown cost is never shown as $0', () => {
  assert.equal(formatCost(undefined), 'cost unknown');
  assert.equal(formatCost(0), '$0.00');
  assert.equal(formatCost(0.004), '<$0.01');
  assert.equal(formatCost(12.345), '$12.35');
});

test("a negative cost is shown as the server's error, never as a cost", () => {
  const shown = formatCost(-12.5);
  assert.doesNotMatch(shown, /\$/);
  assert.match(shown, /^cost unknown/);
  assert.match(shown, /negative/);
  assert.match(shown, /-12\.50/);
  assert.equal(formatCost(-0.001).startsWith('cost unknown'), true, 'not "<$0.01"');
});

test('token counts are compact', () => {
  assert.equal(formatTokens(999), '999');
  assert.equal(formatTokens(1500), '1.5k');
  assert.equal(formatTokens(2_500_000), '2.50M');
  assert.equal(formatTokens(undefined), undefined);
});

test('relative times', () => {
  const now = Date.parse('2026-07-01T12:00:00Z');
  assert.equal(relativeTime('2026-07-01T11:59:50Z', now), 'just now');
  assert.equal(relativeTime('2026-07-01T11:30:00Z', now), '30m ago');
  assert.equal(relativeTime('2026-07-01T06:00:00Z', now), '6h ago');
  assert.equal(relativeTime('2026-06-28T12:00:00Z', now), '3d ago');
  assert.equal(relativeTime('not a date', now), undefined);
});
