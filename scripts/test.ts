/**
 * `npm test`: every tier in order — unit (node:test), webview (the webview app in
 * Chromium with a fake host), integration (mocha in a real VS Code extension host),
 * ui (Playwright + Chromium against code-server with the packaged .vsix) — then one
 * summary line. `npm test -- unit` runs one tier.
 */
import { spawn } from 'node:child_process';
import { chromiumPath, projectRoot } from './lib/tools.ts';

interface TierResult {
  tier: string;
  passed: number;
  failed: number;
  exitCode: number;
  seconds: number;
}

/** Runs a command, echoing its output, and returns output + exit code. */
function run(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const relay = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
      output += chunk.toString();
      stream.write(chunk);
    };
    child.stdout.on('data', relay(process.stdout));
    child.stderr.on('data', relay(process.stderr));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

const node = (args: string[], env?: Record<string, string>) => run(process.execPath, args, env);

/** Sums every report line of a kind (the integration tier runs more than one suite). */
function count(output: string, pattern: RegExp): number {
  let total = 0;
  for (const match of output.matchAll(pattern)) total += Number(match[1]);
  return total;
}

const tiers: Record<string, () => Promise<Omit<TierResult, 'tier' | 'seconds'>>> = {
  async unit() {
    const { code, output } = await node([
      '--test',
      '--test-reporter=spec',
      '--test-concurrency=2',
      'test/unit/**/*.test.ts',
    ]);
    return {
      passed: count(output, /ℹ pass (\d+)/g),
      failed: count(output, /ℹ fail (\d+)/g),
      exitCode: code,
    };
  },
  async webview() {
    const { code, output } = await node([
      '--test',
      '--test-reporter=spec',
      'test/webview/*.test.ts',
    ]);
    return {
      passed: count(output, /ℹ pass (\d+)/g),
      failed: count(output, /ℹ fail (\d+)/g),
      exitCode: code,
    };
  },
  async integration() {
    const build = await node(['esbuild.mjs', '--tests']);
    if (build.code !== 0) return { passed: 0, failed: 1, exitCode: build.code };
    // One window runs every file; the hostile-data suite alone takes a minute or two on a
    // busy machine, past the harness's default bound of 5 minutes for the whole window.
    const { code, output } = await node(['test/integration/main.ts'], {
      EXT_TEST_TIMEOUT_MS: process.env.EXT_TEST_TIMEOUT_MS ?? String(15 * 60_000),
    });
    return {
      passed: count(output, /(\d+) passing/g),
      failed: count(output, /(\d+) failing/g) + (code !== 0 && !/failing/.test(output) ? 1 : 0),
      exitCode: code,
    };
  },
  async ui() {
    const pack = await node(['scripts/package.ts']);
    if (pack.code !== 0) return { passed: 0, failed: 1, exitCode: pack.code };
    const { code, output } = await node(['test/ui/main.ts']);
    return {
      passed: count(output, /ui: (\d+) passed/g),
      failed:
        count(output, /ui: \d+ passed, (\d+) failed/g) +
        (code !== 0 && !/ui: \d+ passed/.test(output) ? 1 : 0),
      exitCode: code,
    };
  },
};

const requested = process.argv.slice(2);
const order = requested.length ? requested : Object.keys(tiers);
const unknown = order.find((tier) => !tiers[tier]);
if (unknown) {
  console.error(`unknown tier "${unknown}"; tiers: ${Object.keys(tiers).join(', ')}`);
  process.exit(2);
}
// Every tier but unit drives Chromium: without one, stop before running anything rather
// than let each test fail on its own (and a test file keep its server open).
const needsChromium = order.filter((tier) => tier !== 'unit');
if (needsChromium.length) {
  try {
    chromiumPath();
  } catch (error) {
    console.error(
      `${(error as Error).message}\nNeeded by the ${needsChromium.join(', ')} tier(s).`,
    );
    process.exit(2);
  }
}
const results: TierResult[] = [];
for (const tier of order) {
  const runTier = tiers[tier]!;
  console.log(`\n━━ ${tier} tests ━━`);
  const started = Date.now();
  const result = await runTier();
  results.push({ tier, ...result, seconds: Math.round((Date.now() - started) / 100) / 10 });
}

console.log('\n━━ summary ━━');
for (const r of results) {
  console.log(
    `${r.tier.padEnd(12)} ${String(r.passed).padStart(4)} passed ${String(r.failed).padStart(3)} failed  ${r.seconds}s${r.exitCode !== 0 ? `  (exit ${r.exitCode})` : ''}`,
  );
}
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce(
  (n, r) => n + r.failed + (r.exitCode !== 0 && r.failed === 0 ? 1 : 0),
  0,
);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || results.some((r) => r.exitCode !== 0) ? 1 : 0);
