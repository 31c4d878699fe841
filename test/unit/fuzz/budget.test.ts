/**
 * The fuzz budget: at least 10^5 generated and mutated inputs per `npm test`, every
 * target in the budget fuzzed by exactly one test file, and no file fuzzing a target the
 * budget does not list (fuzz() takes its run count from the budget).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BUDGET } from './support.ts';

test('the fuzz tests get at least 100,000 inputs per run', (t) => {
  const total = Object.values(BUDGET).reduce((n, runs) => n + runs, 0);
  t.diagnostic(`fuzz budget: ${Object.keys(BUDGET).length} targets, ${total} inputs`);
  assert.ok(total >= 100_000, `only ${total} inputs`);
});

test('every budgeted target is fuzzed by one test file', () => {
  const dir = import.meta.dirname;
  const sources = readdirSync(dir)
    .filter((f) => f.endsWith('.test.ts') && f !== 'budget.test.ts')
    .map((f) => readFileSync(join(dir, f), 'utf8'));
  // Targets written out, or made from a template over both formats / harnesses.
  const expand = (name: string) => [
    name,
    name.replace(/claude-code|codex|claude/, '${adapter.format}'),
    name.replace(/claude-code|codex/, '${format}'),
    name.replace(/claude|codex/, '${harness}'),
  ];
  for (const target of Object.keys(BUDGET)) {
    const files = sources.filter((text) =>
      expand(target).some((form) => text.includes(`'${form}'`) || text.includes(`\`${form}\``)),
    );
    assert.equal(files.length, 1, `${target} is fuzzed in ${files.length} files`);
  }
});
