// Entry for `npm test -- integration`: the extension tests in a real VS Code, then the
// reload scenario (a window reload between send and answer of a completion), then the
// token-leak check over everything those windows wrote.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startReferenceBackend } from '../../src/demo/server.ts';
import { TEST_TOKEN } from '../support/backend.ts';
import { FaultInjector } from '../support/faults.ts';
import { UPGRADED_TOKEN } from './phases/upgradeValues.ts';
import { localCorpusEnv, runIntegrationTests } from './runTests.ts';
import { scanForSecrets, type Secret } from './tokenLeak.ts';

/** The user-data folders of the windows this run opened (kept after they close). */
const dataDirs: string[] = [];
function newDataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'asi-user-data-'));
  dataDirs.push(dir);
  return dir;
}

/** Tokens the tests hand to the extension; demo backends mint `sk_live_demo_` + 24 chars. */
const secrets: Secret[] = [
  { name: 'TEST_TOKEN (test/support/backend.ts)', value: TEST_TOKEN },
  { name: 'UPGRADED_TOKEN (the upgrade test)', value: UPGRADED_TOKEN },
  { name: 'a demo or dev backend token', value: /sk_live_demo_[A-Za-z0-9_-]{24}/ },
];

/**
 * Reported like a mocha suite (scripts/test.ts counts its passing/failing lines). Runs
 * after the windows closed: only what they left on disk counts. The folders are removed
 * when everything passed (they hold tens of MB each), kept to look at otherwise.
 */
function tokenLeakCheck(othersFailed: boolean): number {
  const report = scanForSecrets(dataDirs, secrets);
  const mb = (report.bytes / 1_048_576).toFixed(1);
  const ok = report.findings.length === 0 && report.files > 0;
  console.log('\n  token leak check, after the windows closed');
  console.log(
    `    ${ok ? '✔' : '✘'} no test token in ${report.files} files (${mb} MB, ${report.tables} LevelDB tables decompressed) of ${dataDirs.length} user-data folders: settings, logs, workbench and webview state, secret storage`,
  );
  console.log(`  ${ok ? 1 : 0} passing`);
  if (!ok) {
    console.log('  1 failing');
    if (report.files === 0) console.log(`      nothing was written to ${dataDirs.join(', ')}`);
    for (const f of report.findings) console.log(`      ${f.secret} in ${f.file} (${f.form})`);
  }
  if (ok && !othersFailed)
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  return ok ? 0 : 1;
}

// ASI_TEST_FILTER (while developing): only the files whose name contains it, without the
// reload scenario; ASI_TEST_FILTER=reload runs only the reload scenario.
const filter = process.env.ASI_TEST_FILTER;
const suite =
  filter === 'reload' ? 0 : await runIntegrationTests(await localCorpusEnv(), newDataDir());
if (filter && filter !== 'reload') process.exit(tokenLeakCheck(suite !== 0) || suite);

// The backend lives in this process so it outlasts the window reload.
const faults = new FaultInjector();
const keys: string[] = [];
const backend = await startReferenceBackend({
  seed: 7,
  interceptor: (request, next) => {
    if (request.toolName === 'session_complete') {
      keys.push(String((request.toolArguments as { idempotencyKey?: string }).idempotencyKey));
    }
    return faults.interceptor(request, next);
  },
});
faults.add({ match: { tool: 'session_complete' }, fault: { kind: 'dropAfterHandler' }, times: 1 });
secrets.push({ name: 'the reload scenario backend token', value: backend.token });
const sessionId = backend.fixtures.closedloop.openWithoutInstructions;
const scenario = {
  connectionId: 'reload',
  mcpUrl: backend.mcpUrl,
  token: backend.token,
  sessionId,
};
const reload = await runIntegrationTests(
  {
    ASI_RELOAD_MARKER: path.join(mkdtempSync(path.join(os.tmpdir(), 'asi-reload-')), 'reloaded'),
    ASI_RELOAD_SCENARIO: JSON.stringify(scenario),
  },
  newDataDir(),
);
// The server's side of the story, which the extension host cannot see.
const checks: [string, boolean][] = [
  [
    'the server applied the completion exactly once',
    backend.state.appliedCompletions(sessionId) === 1,
  ],
  ['both sends carried the same idempotency key', keys.length === 2 && keys[0] === keys[1]],
];
console.log('\n  reload scenario, server side');
for (const [name, ok] of checks) console.log(`    ${ok ? '✔' : '✘'} ${name}`);
const failed = checks.filter(([, ok]) => !ok).length;
console.log(`  ${checks.length - failed} passing`);
if (failed) console.log(`  ${failed} failing (keys: ${JSON.stringify(keys)})`);
await backend.close();
const leaks = tokenLeakCheck(suite !== 0 || reload !== 0 || failed > 0);
process.exit(suite || reload || (failed ? 1 : 0) || leaks);
