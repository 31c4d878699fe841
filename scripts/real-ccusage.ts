/**
 * ccusage's own count of each real transcript case (test/fixtures/real, cases in
 * test/unit/conformance/realFiles.ts), printed as the `CCUSAGE` table the conformance test
 * keeps. Run it again when a case is added: `node scripts/real-ccusage.ts`.
 *
 * Per case: the case's files alone in a fresh CLAUDE_CONFIG_DIR or CODEX_HOME, an empty
 * HOME (no other agents' data), TZ=UTC, and
 *   ccusage claude daily --json --offline --timezone UTC   (Claude Code cases)
 *   ccusage codex daily --json --offline --timezone UTC    (Codex cases)
 * with ccusage 20.0.24, the pinned dev dependency (its native binary).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { CASES, layOut } from '../test/unit/conformance/realFiles.ts';
import { projectRoot } from './lib/tools.ts';

const require = createRequire(path.join(projectRoot, 'package.json'));
const version = (require('ccusage/package.json') as { version: string }).version;
const bin = require.resolve(`@ccusage/ccusage-${process.platform}-${process.arch}/bin/ccusage`);
if ((statSync(bin).mode & 0o111) === 0) chmodSync(bin, 0o755);

type Obj = Record<string, unknown>;
type Cell = [number, number, number, number, number];
const num = (v: unknown) => (typeof v === 'number' ? v : Number.NaN);
/** [input, output, cache read, cache write, cost USD (7 decimals)], as the test keeps it. */
const cell = (m: Obj, cost: unknown): Cell => [
  num(m.inputTokens),
  num(m.outputTokens),
  num(m.cacheReadTokens),
  num(m.cacheCreationTokens),
  Math.round(num(cost) * 1e7) / 1e7,
];
const out: Record<string, Record<string, Cell>> = {};
for (const c of CASES) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'asi-real-ccusage-'));
  const home = path.join(root, 'home');
  const data = path.join(root, 'data');
  try {
    await layOut(c, data);
    const agent = c.harness === 'codex' ? 'codex' : 'claude';
    const stdout = execFileSync(bin, [agent, 'daily', '--json', '--offline', '--timezone', 'UTC'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        TZ: 'UTC',
        NO_COLOR: '1',
        ...(agent === 'codex' ? { CODEX_HOME: data } : { CLAUDE_CONFIG_DIR: data }),
      },
      encoding: 'utf8',
    });
    const report = JSON.parse(stdout) as { daily?: Obj[] };
    const cells: Record<string, Cell> = {};
    for (const day of report.daily ?? []) {
      const period = String(day.date ?? day.period);
      for (const m of (day.modelBreakdowns as Obj[] | undefined) ?? []) {
        cells[`${period}|${String(m.modelName)}`] = cell(m, m.cost);
      }
      // `ccusage codex daily` lists models as an object, with the cost per day only.
      const models = Object.entries((day.models as Record<string, Obj> | undefined) ?? {});
      for (const [name, m] of models) {
        cells[`${period}|${name}`] = cell(m, models.length === 1 ? day.costUSD : undefined);
      }
    }
    out[c.id] = cells;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
const lines = [`// ccusage ${version}`, 'const CCUSAGE = {'];
for (const [id, cells] of Object.entries(out)) {
  lines.push(`  '${id}': {`);
  for (const [key, c] of Object.entries(cells)) lines.push(`    '${key}': [${c.join(', ')}],`);
  lines.push('  },');
}
lines.push('};');
console.log(lines.join('\n'));
