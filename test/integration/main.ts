// Entry for `npm test -- integration`: the extension tests in a real VS Code, then the
// reload scenario (a window reload between send and answer of a completion).
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startReferenceBackend } from '../../src/demo/server.ts';
import { FaultInjector } from '../support/faults.ts';
import { localCorpusEnv, runIntegrationTests } from './runTests.ts';

// ASI_TEST_FILTER (while developing): only the files whose name contains it, without the
// reload scenario; ASI_TEST_FILTER=reload runs only the reload scenario.
const filter = process.env.ASI_TEST_FILTER;
const suite = filter === 'reload' ? 0 : await runIntegrationTests(await localCorpusEnv());
if (filter && filter !== 'reload') process.exit(suite);

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
const sessionId = backend.fixtures.closedloop.openWithoutInstructions;
const scenario = {
  connectionId: 'reload',
  mcpUrl: backend.mcpUrl,
  token: backend.token,
  sessionId,
};
const reload = await runIntegrationTests({
  ASI_RELOAD_MARKER: path.join(mkdtempSync(path.join(os.tmpdir(), 'asi-reload-')), 'reloaded'),
  ASI_RELOAD_SCENARIO: JSON.stringify(scenario),
});
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
process.exit(suite || reload || (failed ? 1 : 0));
