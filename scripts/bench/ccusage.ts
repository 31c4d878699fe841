/**
 * Side by side with ccusage (`ccusage daily --json --offline`, its native binary, a pinned
 * dev dependency) on corpora from two generators (corpora.ts: the local bench's
 * corpus and the heavy-user corpus, each at ~200 MB and ~2 GB): wall-clock time, CPU time
 * and peak memory of both as fresh processes, our first cold scan inside the fresh process
 * (the CLI's --timings: what the extension pays on its first scan), a cold scan again in a
 * process whose code is already optimised, at 200 MB both processes again pinned to one
 * core (the work each does, apart from how many cores it keeps busy), each report's totals
 * against the generator's expected ones, and whether the totals per day and model agree —
 * with the responses and the rule behind every cell where they do not.
 *
 * Fair play: both processes get the same minimal environment (the corpus folders in
 * CLAUDE_CONFIG_DIR/CODEX_HOME, an empty HOME so ccusage finds no other agents' data,
 * TZ=UTC and days bucketed in UTC on both sides); the files are in the page cache for both
 * (one untimed run of each first, which also gives the outputs that are compared); the
 * timed rounds alternate which side runs first. Peak RSS is VmHWM from /proc/<pid>/status
 * and CPU time from /proc/<pid>/stat, sampled every 5 ms while the process runs.
 *
 * Costs are compared on the cells whose tokens are equal: within 0.5%, or the rule that
 * makes them differ is named (ccusagePrices.ts: ccusage's prices are observed on a probe
 * run, both sides modelled response by response).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { LocalIndex } from '../../src/sources/local/localIndex.ts';
import { buildUsageReport, utcDay } from '../../src/sources/local/usageReport.ts';
import { projectRoot } from '../lib/tools.ts';
import {
  cellKey,
  FIELDS,
  modelClaudeRules,
  REASONS,
  type Cells,
  type Field,
  type Reason,
  type Tokens,
} from './ccusageRules.ts';
import {
  COST_RULES,
  modelCellCosts,
  priceDifferences,
  probeCcusagePrices,
  tierDescriptions,
  type CostRule,
} from './ccusagePrices.ts';
import type { BenchCorpus } from './corpora.ts';
import type { LocalCorpus } from '../../test/support/localCorpus.ts';

interface Row {
  name: string;
  value: number;
  unit: string;
}

export interface CcusageBench {
  rows: Row[];
  /** Lines to print under the rows: where and why the totals differ, or why nothing ran. */
  notes: string[];
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The native binary the `ccusage` npm launcher would start, or why there is none. */
function findCcusage(): { bin: string; version: string } | { missing: string } {
  const require = createRequire(path.join(projectRoot, 'package.json'));
  let version: string;
  try {
    version = (require('ccusage/package.json') as { version: string }).version;
  } catch {
    return {
      missing:
        'ccusage is not installed (a dev dependency: `npm ci` installs it, `npm ci --omit=dev` does not)',
    };
  }
  const pkg = `@ccusage/ccusage-${process.platform}-${process.arch}`;
  const exe = process.platform === 'win32' ? 'bin/ccusage.exe' : 'bin/ccusage';
  let bin: string;
  try {
    bin = require.resolve(`${pkg}/${exe}`);
  } catch {
    return {
      missing: `ccusage ${version} is installed but its native binary package ${pkg} is not (not published for this platform, or optional dependencies were skipped)`,
    };
  }
  // npm unpacks it without the execute bit; the launcher sets it on first use, as here.
  if (process.platform !== 'win32' && (statSync(bin).mode & 0o111) === 0) chmodSync(bin, 0o755);
  return { bin, version };
}

interface ProcessRun {
  ms: number;
  /** User + system CPU time of the process and its threads (and waited-for children). */
  cpuMs: number;
  peakMb: number;
  stdout: string;
  stderr: string;
}

/** The scan time the usage report CLI prints with --timings. */
function scanTiming(stderr: string): number {
  const m = /timings: scan (\d+) ms/.exec(stderr);
  if (!m) throw new Error(`no timings from the usage report CLI: ${stderr.slice(0, 500)}`);
  return Number(m[1]);
}

/** Kernel clock ticks per second, the unit of /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS = (() => {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  return Number(out.stdout?.trim()) || 100;
})();

/** Runs a process to its end: wall time to its exit with output drained, peak RSS. */
function timeProcess(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd: projectRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    let peakKb = 0;
    let cpuTicks = 0;
    const status = `/proc/${child.pid}/status`;
    const stat = `/proc/${child.pid}/stat`;
    const sample = () => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(status, 'utf8'));
        if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
        // Fields 14–17 of stat (utime, stime, cutime, cstime), counted after the command name.
        const text = readFileSync(stat, 'utf8');
        const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
        cpuTicks = Math.max(
          cpuTicks,
          Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]),
        );
      } catch {
        // Not started yet, already gone, or no /proc (not Linux): keep the last sample.
      }
    };
    const timer = setInterval(sample, 5);
    child.on('error', (error) => {
      clearInterval(timer);
      reject(error);
    });
    child.on('close', (code) => {
      const ms = performance.now() - started;
      clearInterval(timer);
      if (code !== 0) {
        const text = Buffer.concat(err).toString().trim().slice(0, 2000);
        reject(
          new Error(`${path.basename(command)} ${args.join(' ')} exited with ${code}: ${text}`),
        );
        return;
      }
      resolve({
        ms,
        // Sampled every 5 ms: the last few milliseconds before the exit are not counted.
        cpuMs: (cpuTicks * 1000) / CLOCK_TICKS,
        peakMb: peakKb / 1024,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
      });
    });
  });
}

interface CcusageModel {
  modelName: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  cost: number;
}
export interface CcusageDaily {
  daily: { period: string; agents?: { agent: string; modelBreakdowns: CcusageModel[] }[] }[];
}
interface OurTotals {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  knownCost: number;
}
export interface OurReport {
  byHarness: Record<string, { byDayModel: Record<string, Record<string, OurTotals>> }>;
}

/** ccusage's agent names → ours. */
const HARNESS: Record<string, string> = { claude: 'claude-code', codex: 'codex' };
const HARNESS_LABEL: Record<string, string> = { claude: 'Claude Code', codex: 'Codex' };

function ccusageCells(report: CcusageDaily, costs: Map<string, number>): Cells {
  const cells: Cells = new Map();
  for (const day of report.daily) {
    for (const agent of day.agents ?? []) {
      for (const m of agent.modelBreakdowns) {
        const key = cellKey(agent.agent, day.period, m.modelName);
        cells.set(key, {
          input: m.inputTokens,
          output: m.outputTokens,
          cacheRead: m.cacheReadTokens,
          cacheWrite: m.cacheCreationTokens,
        });
        costs.set(key, m.cost);
      }
    }
  }
  return cells;
}

function ourCells(report: OurReport, costs: Map<string, number>): Cells {
  const cells: Cells = new Map();
  for (const [agent, harness] of Object.entries(HARNESS)) {
    const byDayModel = report.byHarness[harness]?.byDayModel ?? {};
    for (const [day, models] of Object.entries(byDayModel)) {
      for (const [model, t] of Object.entries(models)) {
        const key = cellKey(agent, day, model);
        cells.set(key, {
          input: t.inputTokens,
          output: t.outputTokens,
          cacheRead: t.cacheReadTokens,
          cacheWrite: t.cacheWriteTokens,
        });
        costs.set(key, t.knownCost);
      }
    }
  }
  return cells;
}

const ZERO: Tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
const FIELD_LABEL: Record<Field, string> = {
  input: 'input',
  output: 'output',
  cacheRead: 'cache read',
  cacheWrite: 'cache write',
};
const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

export interface CcusageOptions {
  /** Timed runs of each process (medians are shown). */
  rounds: number;
  /** Cold scans again inside this process (the last one's index explains cost differences). */
  inProcessRounds: number;
  /**
   * Timed runs of each process pinned to one and the same core (0: none). ccusage's native
   * binary scans on every core; pinned, the row compares the work each does per core.
   */
  oneCoreRounds: number;
}

/**
 * 200 MB: five rounds, as runs on a shared machine vary; 2 GB: three (a run takes seconds),
 * and no pinned runs there (they would add about a minute per corpus).
 */
export const CCUSAGE_200MB: CcusageOptions = { rounds: 5, inProcessRounds: 3, oneCoreRounds: 5 };
export const CCUSAGE_2GB: CcusageOptions = { rounds: 3, inProcessRounds: 1, oneCoreRounds: 0 };

/**
 * Every corpus in turn. The first corpus's rows keep their plain names (the figures earlier
 * runs printed); the others' rows end with the corpus's label.
 */
export async function benchCcusage(
  corpora: readonly BenchCorpus[],
  options: CcusageOptions,
  plainNamesFirst = true,
): Promise<CcusageBench> {
  const found = findCcusage();
  if ('missing' in found) {
    return {
      rows: [{ name: 'ccusage: comparison skipped (see below)', value: 0, unit: 'runs' }],
      notes: [`ccusage comparison skipped: ${found.missing}.`],
    };
  }
  const rows: Row[] = [];
  const notes: string[] = [];
  for (let i = 0; i < corpora.length; i++) {
    const c = corpora[i]!;
    const suffix = i === 0 && plainNamesFirst ? '' : ` (${c.label})`;
    const result = await benchOneCorpus(found, c, options);
    rows.push(...result.rows.map((r) => ({ ...r, name: `${r.name}${suffix}` })));
    if (result.notes.length > 0) notes.push(`${c.label}:`, ...result.notes);
  }
  return { rows, notes };
}

async function benchOneCorpus(
  found: { bin: string; version: string },
  bench: BenchCorpus,
  options: CcusageOptions,
): Promise<CcusageBench> {
  const c = await bench.load();
  const runStarted = Date.now();
  const home = mkdtempSync(path.join(os.tmpdir(), 'asi-bench-ccusage-home-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    TZ: 'UTC',
    NO_COLOR: '1',
    CLAUDE_CONFIG_DIR: c.claudeDir,
    CODEX_HOME: c.codexDir,
  };
  const ccusageArgs = ['daily', '--json', '--offline', '--timezone', 'UTC'];
  // The bundled CLI: like the extension's own code, no TypeScript stripping at start-up.
  const oursArgs = [path.join('dist', 'cli', 'usage-report.cjs'), '--json', '--utc', '--timings'];
  const runCcusage = (extra: string[] = []) =>
    timeProcess(found.bin, [...ccusageArgs, ...extra], env);
  const runOurs = () => timeProcess(process.execPath, oursArgs, env);
  const ROUNDS = options.rounds;

  const notes: string[] = [];
  const theirRuns: ProcessRun[] = [];
  const ourRuns: ProcessRun[] = [];
  let oneCoreRows: Row[] = [];
  let theirReport: CcusageDaily;
  let ourReport: OurReport & { byHarness: Record<string, { byDayModel: DayModel }> };
  try {
    // Untimed: warms the page cache for both and gives the outputs to compare.
    theirReport = JSON.parse((await runCcusage(['--by-agent'])).stdout) as CcusageDaily;
    ourReport = JSON.parse((await runOurs()).stdout) as typeof ourReport;
    await alternate(ROUNDS, runCcusage, runOurs, theirRuns, ourRuns);
    // Pinned runs while HOME (empty) still exists, as for the runs above.
    if (options.oneCoreRounds > 0) {
      const pinned = await oneCore(
        found.bin,
        ccusageArgs,
        oursArgs,
        env,
        options.oneCoreRounds,
      ).catch((error: Error) => ({ skipped: `a pinned run failed: ${error.message}` }));
      if ('rows' in pinned) oneCoreRows = pinned.rows;
      else notes.push(`  One-core rows skipped: ${pinned.skipped}.`);
    }
  } catch (error) {
    return {
      rows: [{ name: 'ccusage: comparison failed (see below)', value: 0, unit: 'runs' }],
      notes: [`ccusage comparison failed: ${(error as Error).message}`],
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }

  // In this process: the scan code is already optimised by earlier runs (as in an extension
  // host that has scanned before), the cache is empty, workers start afresh.
  const inProcess: number[] = [];
  let index: LocalIndex | undefined;
  for (let i = 0; i < options.inProcessRounds; i++) {
    global.gc?.();
    index = new LocalIndex({
      claudeConfigDirs: [c.claudeDir],
      codexHome: c.codexDir,
      scanWorker: path.join(projectRoot, 'dist', 'scanWorker.cjs'),
    });
    const started = performance.now();
    buildUsageReport(await index.refresh(), index.pricing, { dayOf: utcDay });
    inProcess.push(performance.now() - started);
  }

  const theirMs = median(theirRuns.map((r) => r.ms));
  const ourMs = median(ourRuns.map((r) => r.ms));
  const inProcessMs = median(inProcess);
  // The CLI's own figure: its first scan, from discovery to totals, without process
  // start-up and output — what the extension pays for its first scan after activation.
  const firstScanMs = median(ourRuns.map((r) => scanTiming(r.stderr)));
  const label = `ccusage ${found.version}`;
  const rows: Row[] = [
    { name: 'corpus: files', value: c.files.length, unit: 'files' },
    { name: 'corpus: size', value: round(c.bytes / 1_048_576, 0), unit: 'MB' },
    {
      name: `${label}: daily --json --offline (UTC days, median of ${ROUNDS})`,
      value: round(theirMs, 0),
      unit: 'ms',
    },
    {
      name: `ours: usage report CLI (bundled) --json process (median of ${ROUNDS})`,
      value: round(ourMs, 0),
      unit: 'ms',
    },
    {
      name: 'ccusage ÷ ours: cold scan, whole process',
      value: round(theirMs / ourMs, 2),
      unit: 'x',
    },
    {
      name: `${label}: process CPU time, user + system (median of ${ROUNDS})`,
      value: round(median(theirRuns.map((r) => r.cpuMs)), 0),
      unit: 'ms',
    },
    {
      name: `ours: usage report CLI process CPU time, user + system (median of ${ROUNDS})`,
      value: round(median(ourRuns.map((r) => r.cpuMs)), 0),
      unit: 'ms',
    },
    {
      // On a shared machine the wall times move with the load; CPU time moves less.
      name: 'ccusage ÷ ours: CPU time, whole process',
      value: round(median(theirRuns.map((r) => r.cpuMs)) / median(ourRuns.map((r) => r.cpuMs)), 2),
      unit: 'x',
    },
    {
      name: `ours: first cold scan in a fresh process, discovery to totals (median of ${ROUNDS})`,
      value: round(firstScanMs, 0),
      unit: 'ms',
    },
    {
      name: 'ccusage ÷ ours: ccusage process vs our first cold scan',
      value: round(theirMs / firstScanMs, 2),
      unit: 'x',
    },
    {
      name: `ours: cold scan again in this process, code already optimised (median of ${options.inProcessRounds})`,
      value: round(inProcessMs, 0),
      unit: 'ms',
    },
    {
      name: `${label}: peak RSS (VmHWM)`,
      value: round(Math.max(...theirRuns.map((r) => r.peakMb)), 0),
      unit: 'MB',
    },
    {
      name: 'ours: usage report CLI process peak RSS (VmHWM)',
      value: round(Math.max(...ourRuns.map((r) => r.peakMb)), 0),
      unit: 'MB',
    },
    {
      name: "ccusage ÷ ours: peak RSS (at least 1: ours at most ccusage's)",
      value: round(
        Math.max(...theirRuns.map((r) => r.peakMb)) / Math.max(...ourRuns.map((r) => r.peakMb)),
        2,
      ),
      unit: 'x',
    },
  ];

  rows.push(...oneCoreRows);
  if (bench.codexPart) rows.push(...(await codexPart(found.bin, c, ROUNDS)));
  // The cached corpora are shared with other bench groups (local-2gb appends to a file and
  // truncates it back): a run that overlapped one reads other bytes than the totals expect.
  const changed = c.files.filter(
    (f) => statSync(f.path, { throwIfNoEntry: false })?.size !== f.bytes,
  );
  if (changed.length > 0 || c.files.some((f) => statSync(f.path).mtimeMs > runStarted)) {
    notes.push(
      `  The corpus's files changed during this run (another bench writing to them?): totals may not match the generator's.`,
    );
  }
  const expected = compareWithExpected(c, ourReport, theirReport);
  rows.push(...expected.rows);
  notes.push(...expected.notes);
  const compared = await compareWithCcusage({
    bin: found.bin,
    theirReport,
    ourReport,
    index: index!,
    files: c.files,
  });
  rows.push(...compared.rows);
  notes.push(...compared.notes);
  return { rows, notes };
}

type DayModel = Record<string, Record<string, OurTotals>>;

/** `rounds` timed runs of each, alternating which runs first (a warming machine favours neither). */
async function alternate(
  rounds: number,
  runTheirs: () => Promise<ProcessRun>,
  runOurs: () => Promise<ProcessRun>,
  theirs: ProcessRun[],
  ours: ProcessRun[],
): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      theirs.push(await runTheirs());
      ours.push(await runOurs());
    } else {
      ours.push(await runOurs());
      theirs.push(await runTheirs());
    }
  }
}

/**
 * Both processes pinned to the same core (`taskset`), alternating as above: how the two
 * compare when neither has a second core, i.e. the work each does rather than how many
 * cores it keeps busy. The last core is used, away from the shell's and this process's.
 */
async function oneCore(
  bin: string,
  ccusageArgs: string[],
  oursArgs: string[],
  env: NodeJS.ProcessEnv,
  rounds: number,
): Promise<{ rows: Row[] } | { skipped: string }> {
  const core = String(os.availableParallelism() - 1);
  if (spawnSync('taskset', ['-c', core, 'true']).status !== 0)
    return { skipped: 'taskset (util-linux) is not available here or cannot pin to a core' };
  const runCcusage = () => timeProcess('taskset', ['-c', core, bin, ...ccusageArgs], env);
  const runOurs = () => timeProcess('taskset', ['-c', core, process.execPath, ...oursArgs], env);
  const theirRuns: ProcessRun[] = [];
  const ourRuns: ProcessRun[] = [];
  await alternate(rounds, runCcusage, runOurs, theirRuns, ourRuns);
  const theirs = theirRuns.map((r) => r.ms);
  const ours = ourRuns.map((r) => r.ms);
  return {
    rows: [
      {
        name: `ccusage, pinned to one core (median of ${rounds})`,
        value: round(median(theirs), 0),
        unit: 'ms',
      },
      {
        name: `ours, pinned to the same core (median of ${rounds})`,
        value: round(median(ours), 0),
        unit: 'ms',
      },
      {
        name: 'ccusage ÷ ours: cold scan, whole process, both on one core',
        value: round(median(theirs) / median(ours), 2),
        unit: 'x',
      },
    ],
  };
}

/**
 * The Codex rollouts alone: `ccusage codex daily` against our CLI with an empty Claude Code
 * folder, alternating rounds as above. Codex lines cost us more per byte than Claude Code
 * lines, and the whole-corpus figure hides that behind the larger Claude Code part.
 */
async function codexPart(bin: string, c: LocalCorpus, rounds: number): Promise<Row[]> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'asi-bench-ccusage-home-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    TZ: 'UTC',
    NO_COLOR: '1',
    CLAUDE_CONFIG_DIR: path.join(home, 'no-claude'),
    CODEX_HOME: c.codexDir,
  };
  const theirs: ProcessRun[] = [];
  const ours: ProcessRun[] = [];
  try {
    mkdirSync(env.CLAUDE_CONFIG_DIR!);
    const runCcusage = () =>
      timeProcess(bin, ['codex', 'daily', '--json', '--offline', '--timezone', 'UTC'], env);
    const runOurs = () =>
      timeProcess(
        process.execPath,
        [path.join('dist', 'cli', 'usage-report.cjs'), '--json', '--utc', '--timings'],
        env,
      );
    await runCcusage();
    await runOurs();
    await alternate(rounds, runCcusage, runOurs, theirs, ours);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  const ms = (runs: ProcessRun[]) => median(runs.map((r) => r.ms));
  const cpu = (runs: ProcessRun[]) => median(runs.map((r) => r.cpuMs));
  const bytes = c.files.filter((f) => f.harness === 'codex').reduce((n, f) => n + f.bytes, 0);
  return [
    { name: 'Codex part: size', value: round(bytes / 1_048_576, 0), unit: 'MB' },
    {
      name: `Codex part: ccusage codex daily process (median of ${rounds})`,
      value: round(ms(theirs), 0),
      unit: 'ms',
    },
    {
      name: `Codex part: ours, usage report CLI process (median of ${rounds})`,
      value: round(ms(ours), 0),
      unit: 'ms',
    },
    {
      name: 'Codex part: ccusage ÷ ours, whole process',
      value: round(ms(theirs) / ms(ours), 2),
      unit: 'x',
    },
    {
      name: 'Codex part: ccusage ÷ ours, CPU time',
      value: round(cpu(theirs) / cpu(ours), 2),
      unit: 'x',
    },
  ];
}

/**
 * Both reports' totals per harness against the generator's expected totals (its plain
 * reading of every line): ours must equal them; ccusage's may differ only where its rules
 * do (the per-cell notes below name the rule).
 */
function compareWithExpected(c: LocalCorpus, ours: OurReport, theirs: CcusageDaily): CcusageBench {
  const rows: Row[] = [];
  const notes: string[] = [];
  const theirTotals = new Map<string, Tokens>();
  for (const day of theirs.daily) {
    for (const agent of day.agents ?? []) {
      const t = theirTotals.get(agent.agent) ?? { ...ZERO };
      for (const m of agent.modelBreakdowns) {
        t.input += m.inputTokens;
        t.output += m.outputTokens;
        t.cacheRead += m.cacheReadTokens;
        t.cacheWrite += m.cacheCreationTokens;
      }
      theirTotals.set(agent.agent, t);
    }
  }
  for (const [agent, harness] of Object.entries(HARNESS)) {
    const e = c.expected.byHarness[harness];
    if (!e) continue;
    const want: Tokens = {
      input: e.input,
      output: e.output,
      cacheRead: e.cacheRead,
      cacheWrite: e.cacheWrite,
    };
    const mine: Tokens = { ...ZERO };
    for (const models of Object.values(ours.byHarness[harness]?.byDayModel ?? {})) {
      for (const t of Object.values(models)) {
        mine.input += t.inputTokens;
        mine.output += t.outputTokens;
        mine.cacheRead += t.cacheReadTokens;
        mine.cacheWrite += t.cacheWriteTokens;
      }
    }
    const theirsT = theirTotals.get(agent) ?? { ...ZERO };
    const off = (x: Tokens) => FIELDS.filter((f) => x[f] !== want[f]);
    rows.push({
      name: `ours: token fields unequal to the generator's expected totals (${HARNESS_LABEL[agent]})`,
      value: off(mine).length,
      unit: 'fields',
    });
    rows.push({
      name: `ccusage: token fields unequal to the generator's expected totals (${HARNESS_LABEL[agent]})`,
      value: off(theirsT).length,
      unit: 'fields',
    });
    for (const [who, t] of [
      ['ours', mine],
      ['ccusage', theirsT],
    ] as const) {
      for (const f of off(t)) {
        notes.push(
          `  ${HARNESS_LABEL[agent]} ${FIELD_LABEL[f]} in total: ${who} ${t[f]}, the generator expects ${want[f]} (${signed(t[f] - want[f])})`,
        );
      }
    }
  }
  return { rows, notes };
}

export interface Comparison {
  /** ccusage's binary (for observing its prices). */
  bin: string;
  /** `ccusage daily --json --offline --timezone UTC --by-agent` on the corpus. */
  theirReport: CcusageDaily;
  /** `usage-report --json --utc` on the same corpus. */
  ourReport: OurReport;
  /** A refreshed index of the same corpus (its responses, for the cost model). */
  index: LocalIndex;
  files: Parameters<typeof modelClaudeRules>[0];
}

/**
 * Totals per harness, day and model of both reports: cells with equal tokens, cells that
 * differ and the rule behind each difference; on cells with equal tokens, the cost within
 * COST_TOLERANCE or the rule that makes it differ.
 */
export async function compareWithCcusage(input: Comparison): Promise<CcusageBench> {
  const { bin, theirReport, ourReport, index } = input;
  const rows: Row[] = [];
  const notes: string[] = [];
  const theirCosts = new Map<string, number>();
  const ourCosts = new Map<string, number>();
  const theirs = ccusageCells(theirReport, theirCosts);
  const ours = ourCells(ourReport, ourCosts);
  const keys = [...new Set([...theirs.keys(), ...ours.keys()])].sort();
  const differing: string[] = [];
  /** Cells with equal tokens whose costs differ by more than COST_TOLERANCE. */
  const costDiffering: string[] = [];
  const counts: Record<string, { equal: number; differ: number }> = {};
  let worstCost = 0;
  for (const key of keys) {
    const agent = key.slice(0, key.indexOf('|'));
    const a = ours.get(key) ?? ZERO;
    const b = theirs.get(key) ?? ZERO;
    if (FIELDS.every((f) => a[f] === 0 && b[f] === 0)) continue;
    const count = (counts[agent] ??= { equal: 0, differ: 0 });
    if (FIELDS.every((f) => a[f] === b[f])) {
      count.equal++;
      const x = ourCosts.get(key) ?? 0;
      const y = theirCosts.get(key) ?? 0;
      const off = Math.max(x, y) > 0 ? Math.abs(x - y) / Math.max(x, y) : 0;
      worstCost = Math.max(worstCost, off);
      if (off > COST_TOLERANCE) costDiffering.push(key);
    } else {
      count.differ++;
      differing.push(key);
    }
  }
  for (const agent of Object.keys(counts).sort()) {
    const name = HARNESS_LABEL[agent] ?? `${agent} (an agent we do not read)`;
    rows.push({
      name: `ccusage: day×model cells equal (${name})`,
      value: counts[agent]!.equal,
      unit: 'cells',
    });
    rows.push({
      name: `ccusage: day×model cells differ (${name})`,
      value: counts[agent]!.differ,
      unit: 'cells',
    });
  }
  rows.push({
    name: 'ccusage: largest cost difference, cells with equal tokens',
    value: round(worstCost * 100, 2),
    unit: '%',
  });
  rows.push({
    name: `ccusage: equal-token cells whose cost differs > ${COST_TOLERANCE * 100}%`,
    value: costDiffering.length,
    unit: 'cells',
  });

  if (differing.length > 0) {
    const explained = await explain(differing, ours, theirs, input.files, notes);
    rows.push({
      name: 'ccusage: differing cells explained by rule',
      value: explained,
      unit: 'cells',
    });
  }
  const costExplained = await explainCosts(bin, costDiffering, ourCosts, theirCosts, index, notes);
  if (costDiffering.length > 0) {
    rows.push({
      name: 'ccusage: cost-differing cells explained by rule',
      value: costExplained,
      unit: 'cells',
    });
  }
  return { rows, notes };
}

/** The target: a cell's cost within 0.5% of ccusage's, or a named rule. */
const COST_TOLERANCE = 0.005;
const COST_RULE_ORDER: CostRule[] = ['tier', 'price', 'unpriced'];
const usd = (n: number) => `$${n.toFixed(4)}`;
const signedUsd = (n: number) => `${n >= 0 ? '+' : '−'}$${Math.abs(n).toFixed(4)}`;

/**
 * One note per equal-token cell whose cost differs by more than COST_TOLERANCE: both costs
 * and the difference split by rule (ccusagePrices.ts), and one line per model whose base
 * prices differ between the two sources. Returns how many cells the cost model reproduces.
 */
async function explainCosts(
  bin: string,
  keys: string[],
  ourCosts: Map<string, number>,
  theirCosts: Map<string, number>,
  index: LocalIndex,
  notes: string[],
): Promise<number> {
  const snapshot = index.snapshot!;
  // Every model of the corpus, with the time of its first response (genai-prices' price
  // may depend on the date: the note shows the price on that day).
  const models = new Map<string, { agent: 'claude' | 'codex'; model: string; ms: number }>();
  for (const s of snapshot.sessions) {
    const agent = s.harness === 'claude-code' ? 'claude' : 'codex';
    for (const r of s.records) {
      if (r.model && !models.has(`${agent}|${r.model}`))
        models.set(`${agent}|${r.model}`, { agent, model: r.model, ms: r.ms });
    }
  }
  let prices;
  try {
    prices = await probeCcusagePrices(bin, [...models.values()]);
  } catch (error) {
    notes.push(`ccusage's prices could not be observed: ${(error as Error).message}`);
    return 0;
  }
  const differences = priceDifferences(index.pricing, prices, [...models.values()]);
  if (keys.length === 0) {
    if (differences.length > 0) notes.push('Base prices (no cell differs by more than 0.5%):');
    for (const line of differences) notes.push(`  ${line}.`);
    return 0;
  }
  const cells = modelCellCosts(snapshot, index.pricing, prices);
  const used = new Set<CostRule>();
  let explained = 0;
  notes.push(
    `Where the cost of a cell with equal tokens differs by more than ${COST_TOLERANCE * 100}% (ours − ccusage, by rule):`,
  );
  for (const key of keys) {
    const [agent, day, model] = key.split('|') as [string, string, string];
    const x = ourCosts.get(key) ?? 0;
    const y = theirCosts.get(key) ?? 0;
    const percent = ((x - y) / Math.max(x, y)) * 100;
    const head = `  ${HARNESS_LABEL[agent] ?? agent} ${day} ${model} cost: ours ${usd(x)}, ccusage ${usd(y)} (${percent >= 0 ? '+' : ''}${percent.toFixed(2)}%)`;
    const cell = cells.get(key);
    const near = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
    if (!cell || !near(cell.ours, x) || !near(cell.ccusage, y)) {
      notes.push(
        `${head} — not explained: the cost model gives ours ${usd(cell?.ours ?? 0)}, ccusage ${usd(cell?.ccusage ?? 0)}`,
      );
      continue;
    }
    explained++;
    const parts = COST_RULE_ORDER.filter((rule) => Math.abs(cell.parts[rule] ?? 0) >= 5e-5).map(
      (rule) => {
        used.add(rule);
        const extra =
          rule === 'tier' ? ` (${cell.tiered} of ${cell.responses} responses over a tier)` : '';
        return `${rule}: ${signedUsd(cell.parts[rule]!)}${extra}`;
      },
    );
    notes.push(`${head} — ${parts.join('; ') || 'rounding'}`);
  }
  for (const rule of COST_RULE_ORDER) {
    if (used.has(rule)) notes.push(`  ${rule}: ${COST_RULES[rule]}.`);
  }
  for (const line of differences) notes.push(`  ${line}.`);
  const tiered = keys
    .filter((key) => Math.abs(cells.get(key)?.parts.tier ?? 0) >= 5e-5)
    .map((key) => {
      const [agent, day, model] = key.split('|') as [string, string, string];
      return { agent, day, model };
    });
  for (const line of tierDescriptions(index.pricing, prices, tiered)) notes.push(`  ${line}.`);
  return explained;
}

/**
 * One note per differing cell and field: both values and the responses behind the
 * difference, by rule. Returns how many differing cells the rule model reproduces exactly.
 */
async function explain(
  differing: string[],
  ours: Cells,
  theirs: Cells,
  files: Parameters<typeof modelClaudeRules>[0],
  notes: string[],
): Promise<number> {
  const model = differing.some((k) => k.startsWith('claude|'))
    ? await modelClaudeRules(files, utcDay)
    : undefined;
  let explained = 0;
  const used = new Set<Reason>();
  notes.push('Where ours and ccusage differ (ours − ccusage, per day, model and field):');
  for (const key of differing) {
    const [agent, day, modelName] = key.split('|') as [string, string, string];
    const a = ours.get(key) ?? ZERO;
    const b = theirs.get(key) ?? ZERO;
    const oursModel = model?.ours.get(key) ?? ZERO;
    const theirModel = model?.ccusage.get(key) ?? ZERO;
    const reproduced =
      model !== undefined &&
      agent === 'claude' &&
      FIELDS.every((f) => oursModel[f] === a[f] && theirModel[f] === b[f]);
    if (reproduced) explained++;
    for (const f of FIELDS) {
      if (a[f] === b[f]) continue;
      const head = `  ${HARNESS_LABEL[agent] ?? agent} ${day} ${modelName} ${FIELD_LABEL[f]}: ours ${a[f]}, ccusage ${b[f]} (${signed(a[f] - b[f])})`;
      if (!reproduced) {
        const why =
          agent !== 'claude'
            ? 'not explained: no rule model for this agent'
            : oursModel[f] !== a[f]
              ? `not explained: our scanner gives ${a[f]} but its documented rules give ${oursModel[f]} — check our scanner`
              : `not explained: ccusage's observed rules give ${theirModel[f]}, it printed ${b[f]}`;
        notes.push(`${head} — ${why}`);
        continue;
      }
      const parts = (model!.why.get(key) ?? [])
        .filter((x) => x.delta[f] !== 0)
        .map((x) => {
          used.add(x.reason);
          const n = `${x.responses} response${x.responses === 1 ? '' : 's'}`;
          return `${x.reason}: ${n}, ${signed(x.delta[f])}`;
        });
      notes.push(`${head} — ${parts.join('; ')}`);
    }
  }
  for (const reason of used) notes.push(`  ${reason}: ${REASONS[reason]}.`);
  return explained;
}
