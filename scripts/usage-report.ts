/**
 * `npm run usage-report -- [--json] [--utc] [--timings] [--helpers threads|processes|none]
 * [--claude-dir DIR]… [--codex-home DIR]`: token and cost totals of the local Claude Code
 * and Codex transcripts, per day and model, without VS Code — the same scan and
 * de-duplication as the extension's usage report. Folders default to CLAUDE_CONFIG_DIR
 * (else ~/.config/claude and ~/.claude) and CODEX_HOME (else ~/.codex). `--timings` adds
 * how long the scan and the output took, on stderr. `--helpers processes` scans in helper
 * processes, as the extension does, `--helpers none` on this thread alone (default: worker
 * threads of this process, for more than HELPER_MIN_BYTES to read and on cores idle when
 * they start, see idleCoresNow). The ccusage benchmark runs this as a fresh process.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LocalIndex } from '../src/sources/local/localIndex.ts';
import { ScanCache } from '../src/sources/local/scanCache.ts';
import { idleCoresNow } from '../src/sources/local/engine/parallelScan.ts';
import { useScanProcessFlags } from '../src/sources/local/engine/v8Flags.ts';
import {
  localDay,
  scanUsage,
  utcDay,
  type UsageReport,
  type UsageTotals,
} from '../src/sources/local/usageReport.ts';
import type { RootReport } from '../src/sources/local/discovery.ts';

const USAGE =
  'usage: node scripts/usage-report.ts [--json] [--utc] [--timings] [--helpers threads|processes|none] [--claude-dir DIR]... [--codex-home DIR]';

function parse() {
  try {
    return parseArgs({
      options: {
        json: { type: 'boolean', default: false },
        utc: { type: 'boolean', default: false },
        timings: { type: 'boolean', default: false },
        helpers: { type: 'string', default: 'threads' },
        'claude-dir': { type: 'string', multiple: true },
        'codex-home': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: false,
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
}

const args = parse();
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const helpers = args.helpers;
if (helpers !== 'threads' && helpers !== 'processes' && helpers !== 'none') {
  process.stderr.write(
    `--helpers must be threads, processes or none, not "${helpers}"\n${USAGE}\n`,
  );
  process.exit(2);
}

/**
 * The scan worker for cold scans in parallel: dist/scanWorker.cjs next to the bundled CLI
 * (dist/cli/usage-report.cjs, where esbuild.mjs defines import.meta.filename and dirname);
 * unbundled, the TypeScript source.
 */
function scanWorker(): string {
  const bundled = join(import.meta.dirname, '../scanWorker.cjs');
  if (import.meta.filename.endsWith('.cjs') && existsSync(bundled)) return bundled;
  return join(import.meta.dirname, '../src/sources/local/engine/scanWorker.ts');
}

/**
 * Unread bytes below which this process scans on its main thread alone: at ~200 MB a
 * helper thread cost about +30 MB of peak memory and 1.4x the CPU for at most 10-15% less
 * wall time on an idle machine (docs/performance.md).
 */
const HELPER_MIN_BYTES = 512 << 20;

const dayOf = args.utc ? utcDay : localDay;
const index = new LocalIndex({
  // This process only scans: blocking reads and folder listing on its main thread too (see
  // ScanCacheOptions and LocalRootsOptions).
  // It shows no session's status: that work is skipped (ScanCacheOptions.status); and it
  // scans once (readOnce).
  cache: new ScanCache({
    scanWorker: scanWorker(),
    ...(helpers === 'none'
      ? { workers: 0 }
      : helpers === 'threads'
        ? // Idle cores counted when the helpers start, not over the last minute (see
          // idleCoresNow).
          {
            helpers,
            parallelMinBytes: HELPER_MIN_BYTES,
            lateWorkers: true,
            idleCores: idleCoresNow,
          }
        : { helpers }),
    blockingReads: true,
    status: false,
    readOnce: true,
  }),
  blockingReads: true,
  // Nothing is kept for a later refresh, and subagent labels are not read (LocalIndexOptions).
  oneShot: true,
  ...(args['claude-dir'] ? { claudeConfigDirs: args['claude-dir'] } : {}),
  ...(args['codex-home'] ? { codexHome: args['codex-home'] } : {}),
});
// This process lives for one scan: it takes the V8 flags of the extension's helper
// processes (V8's optimising tier costs more to compile than it saves in that time; see
// src/sources/local/engine/v8Flags.ts), which its worker threads share. Set once the
// scan's threads have started (Node's built-in code cache, which speeds a thread's
// start-up, is only used under the default flags) and before the hot code has run long.
// (Helper threads start late here, after the listing: then the flags are set at once.)
index.cache.startWorkers();
void index.cache.helpersOnline().then(useScanProcessFlags);
// The bundle is CommonJS, which starts quicker than an ES module but has no top-level await.
// A failure is said in one line with exit code 1, not as an unhandled rejection's trace.
main().catch((error: unknown) => {
  process.stderr.write(`usage-report: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

async function main(): Promise<void> {
  const scanStarted = performance.now();
  const report = await scanUsage({ index, dayOf });
  const scanMs = performance.now() - scanStarted;
  const roots = index.snapshot!.roots;
  const problemKinds: Record<string, number> = {};
  for (const p of report.problems) problemKinds[p.kind] = (problemKinds[p.kind] ?? 0) + 1;
  const timezone = args.utc ? 'UTC' : Intl.DateTimeFormat().resolvedOptions().timeZone;
  process.stdout.write(
    args.json
      ? json(report, problemKinds, timezone, roots)
      : table(report, problemKinds, timezone, roots),
  );
  if (args.timings) {
    // performance.now() counts from the process start: the rest is start-up and output.
    const total = performance.now();
    process.stderr.write(
      `timings: scan ${scanMs.toFixed(0)} ms (discovery, files, totals), ` +
        `start-up ${scanStarted.toFixed(0)} ms, output ${(total - scanStarted - scanMs).toFixed(0)} ms, ` +
        `total ${total.toFixed(0)} ms\n`,
    );
  }
  // Done: exit once the output is written, without waiting for the scan's worker threads to
  // wind down and every heap to be torn down one by one (the system frees the memory).
  process.stdout.write('', () => process.exit(0));
}

function json(
  report: UsageReport,
  problemKinds: Record<string, number>,
  timezone: string,
  roots: readonly RootReport[],
): string {
  const byHarness = Object.fromEntries(
    Object.keys(report.byHarness)
      .sort()
      .map((harness) => [
        harness,
        { totals: report.byHarness[harness], ...report.harnesses[harness] },
      ]),
  );
  const out = {
    timezone,
    roots: roots.map((r) => ({ harness: r.harness, path: r.path, state: r.state })),
    files: report.files,
    bytes: report.bytes,
    sessions: report.sessions,
    sessionsWithoutTokenInfo: report.sessionsWithoutTokenInfo,
    totals: report.totals,
    byDay: report.byDay,
    byModel: report.byModel,
    byDayModel: report.byDayModel,
    byProject: report.byProject,
    byHarness,
    unpricedModels: report.unpricedModels,
    prices: report.prices,
    problems: { count: report.problems.length, byKind: problemKinds },
  };
  // An unknown cost is null ("cost unknown"), not a missing key; set in place rather than
  // by a replacer, which JSON.stringify would call for every value.
  undefinedToNull(out);
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** Replaces every undefined property value in `value`'s objects with null (in place). */
function undefinedToNull(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) undefinedToNull(item);
    return;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) {
    const item = object[key];
    if (item === undefined) object[key] = null;
    else undefinedToNull(item);
  }
}

function table(
  r: UsageReport,
  problemKinds: Record<string, number>,
  timezone: string,
  roots: readonly RootReport[],
): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const count = (v: number, one: string, many: string) => `${n(v)} ${v === 1 ? one : many}`;
  const cost = (t: UsageTotals) =>
    t.cost === undefined
      ? `≥ $${t.knownCost.toFixed(2)} (some cost unknown)`
      : `$${t.cost.toFixed(2)}`;
  const row = (label: string, t: UsageTotals) =>
    [
      label.padEnd(34),
      n(t.inputTokens).padStart(13),
      n(t.outputTokens).padStart(13),
      n(t.cacheReadTokens).padStart(16),
      n(t.cacheWriteTokens).padStart(14),
      `  ${cost(t)}`,
    ].join('');
  const lines = [
    `Local agent usage by day (${timezone}): ${count(r.sessions, 'session', 'sessions')}, ${count(r.files, 'file', 'files')}`,
    [
      'Day / model'.padEnd(34),
      'Input'.padStart(13),
      'Output'.padStart(13),
      'Cache read'.padStart(16),
      'Cache write'.padStart(14),
      '  Cost',
    ].join(''),
  ];
  for (const day of Object.keys(r.byDay).sort()) {
    lines.push(row(day, r.byDay[day]!));
    const models = r.byDayModel[day] ?? {};
    for (const model of Object.keys(models).sort()) lines.push(row(`  ${model}`, models[model]!));
  }
  lines.push(row('Total', r.totals));
  lines.push(`Prices: ${r.prices}, each response priced on its own`);
  if (r.unpricedModels.length > 0) lines.push(`No price for: ${r.unpricedModels.join(', ')}`);
  if (r.sessionsWithoutTokenInfo > 0) {
    lines.push(
      `${count(r.sessionsWithoutTokenInfo, 'session has', 'sessions have')} no token information (Codex legacy)`,
    );
  }
  if (r.problems.length > 0) {
    const kinds = Object.entries(problemKinds)
      .map(([kind, count]) => `${kind} ×${count}`)
      .join(', ');
    lines.push(`${count(r.problems.length, 'problem', 'problems')} in the files: ${kinds}`);
  }
  for (const root of roots) {
    if (root.state !== 'ok') lines.push(`${root.harness} folder ${root.path}: ${root.state}`);
  }
  return `${lines.join('\n')}\n`;
}
