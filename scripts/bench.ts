/**
 * `npm run bench`: prints one row per figure (name, value, unit); `-- --json FILE`
 * also writes them as JSON; `-- tree transcript` runs only those groups. Groups:
 * bundles, activation (in a real VS Code extension host), tree (10k sessions),
 * transcript (200 MB JSONL index vs a JSON.parse baseline), local (200 MB scan), ccusage
 * (the same corpus through `ccusage daily --json --offline` and our usage-report.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from './lib/tools.ts';
import { localCorpusEnv, runIntegrationTests } from '../test/integration/runTests.ts';
import { benchTree } from './bench/tree.ts';
import { benchTranscript } from './bench/transcript.ts';
import { benchLocal } from './bench/local.ts';
import { benchCcusage } from './bench/ccusage.ts';

interface Row {
  name: string;
  value: number;
  unit: string;
}
const rows: Row[] = [];
/** Free text printed under the rows (e.g. where two reports differ and why). */
const notes: string[] = [];
const add = (name: string, value: number, unit: string) => {
  rows.push({ name, value, unit });
  console.log(`${name.padEnd(48)} ${String(value).padStart(12)} ${unit}`);
};

const args = process.argv.slice(2);
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const only = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--json');
const wants = (group: string) => only.length === 0 || only.includes(group);

function run(command: string, commandArgs: string[], env: Record<string, string> = {}) {
  const result = spawnSync(command, commandArgs, {
    cwd: projectRoot,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (result.status !== 0) throw new Error(`${command} ${commandArgs.join(' ')} failed`);
}

if (wants('bundles')) {
  run(process.execPath, ['esbuild.mjs', '--production']);
  for (const file of readdirSync(path.join(projectRoot, 'dist', 'meta')).sort()) {
    const meta = JSON.parse(readFileSync(path.join(projectRoot, 'dist', 'meta', file), 'utf8')) as {
      outputs: Record<string, { bytes: number }>;
    };
    const bytes = Object.entries(meta.outputs)
      .filter(([name]) => !name.endsWith('.map'))
      .reduce((sum, [, output]) => sum + output.bytes, 0);
    add(`bundle size: ${file.replace('.json', '')}`, Math.round(bytes / 102.4) / 10, 'KiB');
  }
}

if (wants('activation')) {
  // Activation of the shipped (production) bundle; only the tests are rebuilt.
  run(process.execPath, ['esbuild.mjs', '--production']);
  run(process.execPath, ['esbuild.mjs', '--tests-only']);
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'asi-bench-')), 'activation.json');
  const code = await runIntegrationTests({ ...(await localCorpusEnv()), ASI_BENCH_FILE: out });
  if (code !== 0 || !existsSync(out))
    throw new Error('the integration run that measures activation failed');
  const measured = JSON.parse(readFileSync(out, 'utf8')) as {
    activationMs: number;
    evaluateMs?: number;
    activateMs: number;
  };
  const round = (n: number) => Math.round(n * 10) / 10;
  add('activation: extension.activate() in VS Code, total', round(measured.activationMs), 'ms');
  add('activation: bundle evaluation (ours)', round(measured.evaluateMs ?? Number.NaN), 'ms');
  add('activation: activate() body (ours)', round(measured.activateMs), 'ms');
  add(
    'activation: our cost (evaluation + body)',
    round((measured.evaluateMs ?? 0) + measured.activateMs),
    'ms',
  );
}

if (wants('tree')) {
  for (const row of benchTree()) add(row.name, row.value, row.unit);
}

if (wants('transcript')) {
  for (const row of await benchTranscript()) add(row.name, row.value, row.unit);
}

if (wants('local')) {
  // The cold scan uses the bundled scan worker, as the extension does.
  run(process.execPath, ['esbuild.mjs', '--production']);
  for (const row of await benchLocal()) add(row.name, row.value, row.unit);
}

if (wants('ccusage')) {
  // Our side runs as the bundled CLI (dist/cli/usage-report.mjs), as ccusage runs its binary.
  run(process.execPath, ['esbuild.mjs', '--production']);
  const result = await benchCcusage();
  for (const row of result.rows) add(row.name, row.value, row.unit);
  for (const note of result.notes) console.log(note);
  notes.push(...result.notes);
}

if (jsonOut) {
  writeFileSync(jsonOut, JSON.stringify({ date: new Date().toISOString(), rows, notes }, null, 2));
  console.log(`wrote ${jsonOut}`);
}
