/**
 * `npm run bench`: prints one row per figure (name, value, unit); `-- --json FILE`
 * also writes them as JSON; `-- tree transcript` runs only those groups. Groups:
 * bundles, activation (in a real VS Code extension host), tree (10k sessions),
 * transcript (200 MB JSONL index vs a JSON.parse baseline), local (200 MB scan), local-2gb
 * (window open from the persisted index on ~2 GB), ccusage
 * (`ccusage daily --json --offline` and our usage-report CLI on the local corpus and the
 * heavy-user corpus, ~200 MB each), ccusage-2gb (the same on ~2 GB of each), search
 * (a 2 GB corpus: a literal and a regex, ours next to plain ripgrep on the same files).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from './lib/tools.ts';
import { localCorpusEnv, runIntegrationTests } from '../test/integration/runTests.ts';
import { benchTree } from './bench/tree.ts';
import { benchTranscript } from './bench/transcript.ts';
import { benchLocal, benchLocal2gb } from './bench/local.ts';
import { benchCcusage, CCUSAGE_200MB, CCUSAGE_2GB } from './bench/ccusage.ts';
import { CORPORA_200MB, CORPORA_2GB } from './bench/corpora.ts';
import { benchSearch } from './bench/search.ts';

interface Row {
  name: string;
  value: number;
  unit: string;
  /** Set on a row that stands for a measurement that failed: what went wrong. */
  error?: string;
}
const rows: Row[] = [];
const failedGroups: string[] = [];
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

/**
 * Runs one group of measurements. A group that fails becomes one failed row (printed and
 * in the JSON, value NaN) and the bench goes on with the others: one broken measurement
 * must not lose every other figure of the run.
 */
async function group(name: string, measure: () => Promise<void> | void): Promise<void> {
  if (!wants(name)) return;
  try {
    await measure();
  } catch (error) {
    const message = String((error as Error)?.message ?? error).split('\n')[0] ?? '';
    failedGroups.push(name);
    rows.push({ name: `${name}: FAILED`, value: Number.NaN, unit: 'failed', error: message });
    console.log(`${`${name}: FAILED`.padEnd(48)} ${message}`);
  }
}

function run(command: string, commandArgs: string[], env: Record<string, string> = {}) {
  const result = spawnSync(command, commandArgs, {
    cwd: projectRoot,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (result.status !== 0) throw new Error(`${command} ${commandArgs.join(' ')} failed`);
}

await group('bundles', async () => {
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
});

await group('activation', async () => {
  // Activation of the shipped (production) bundle; only the tests are rebuilt.
  run(process.execPath, ['esbuild.mjs', '--production']);
  run(process.execPath, ['esbuild.mjs', '--tests-only']);
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'asi-bench-')), 'activation.json');
  // Only the activation test: a failure elsewhere in the integration tier is not a bench figure.
  process.env.ASI_TEST_FILTER = 'activation';
  const code = await runIntegrationTests({ ...(await localCorpusEnv()), ASI_BENCH_FILE: out });
  delete process.env.ASI_TEST_FILTER;
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
});

await group('tree', async () => {
  for (const row of benchTree()) add(row.name, row.value, row.unit);
});

await group('transcript', async () => {
  for (const row of await benchTranscript()) add(row.name, row.value, row.unit);
});

await group('local', async () => {
  // The cold scan uses the bundled scan worker, as the extension does.
  run(process.execPath, ['esbuild.mjs', '--production']);
  for (const row of await benchLocal()) add(row.name, row.value, row.unit);
});

await group('local-2gb', async () => {
  run(process.execPath, ['esbuild.mjs', '--production']);
  for (const row of await benchLocal2gb()) add(row.name, row.value, row.unit);
});

await group('search', async () => {
  for (const row of await benchSearch()) add(row.name, row.value, row.unit);
});

for (const [name, corpora, options] of [
  ['ccusage', CORPORA_200MB, CCUSAGE_200MB],
  ['ccusage-2gb', CORPORA_2GB, CCUSAGE_2GB],
] as const) {
  await group(name, async () => {
    // Our side runs as the bundled CLI (dist/cli/usage-report.cjs), as ccusage runs its binary.
    run(process.execPath, ['esbuild.mjs', '--production']);
    // The 2 GB rows all carry their corpus's name; the first 200 MB corpus keeps the names
    // earlier runs printed.
    const result = await benchCcusage(corpora, options, name === 'ccusage');
    for (const row of result.rows) add(row.name, row.value, row.unit);
    for (const note of result.notes) console.log(note);
    notes.push(...result.notes);
  });
}

if (jsonOut) {
  writeFileSync(jsonOut, JSON.stringify({ date: new Date().toISOString(), rows, notes }, null, 2));
  console.log(`wrote ${jsonOut}`);
}
if (failedGroups.length) {
  console.log(`failed groups: ${failedGroups.join(', ')} (their rows say why; the others stand)`);
  process.exitCode = 1;
}
