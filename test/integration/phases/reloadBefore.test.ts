/**
 * Reload scenario, phase one (before the reload): a completion is sent, the server
 * applies it, the connection drops before the answer arrives. The intent must be
 * saved with its key. Then index.ts reloads the window.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ScriptedUser } from '../support/ui.ts';
import { reloadScenario } from './reloadScenario.ts';
import { scanAndSaveIndex } from './localIndexPhase.ts';
import { seedOlderVersion } from './upgradeSeed.ts';
import { extensionApi } from '../support/extensionApi.ts';

describe('window reload between send and answer (before the reload)', () => {
  it('keeps the unanswered intent with its key', async () => {
    const scenario = reloadScenario();
    const api = await extensionApi();
    await api.tokens.set(scenario.connectionId, scenario.mcpUrl, scenario.token);
    await api.registry.save({
      id: scenario.connectionId,
      label: 'Reload',
      kind: 'mcp',
      url: scenario.mcpUrl,
    });
    await api.store.refreshAfterCurrent(scenario.connectionId);
    const session = api.store
      .state(scenario.connectionId)
      ?.sessions.find((s) => s.id === scenario.sessionId);
    assert.ok(session, 'the session to complete is listed');
    // The user completes it (no instructions to acknowledge; no review); the runner's
    // backend drops the connection after applying it.
    const user = new ScriptedUser().type('Finished before the reload').pick((items) => items[0]);
    try {
      await vscode.commands.executeCommand('sessionInspector.completeSession', {
        kind: 'session',
        session,
      });
    } finally {
      user.restore();
    }
    const intents = api.completions.unfinished();
    assert.equal(intents.length, 1, JSON.stringify(user.messages));
    assert.equal(intents[0]?.args.sessionId, scenario.sessionId);
    assert.ok(user.messages.some((m) => /Not confirmed/.test(m.text)));
    console.log(`      intent key ${intents[0]?.idempotencyKey}`);
  });

  it('leaves an older version’s settings and token for the upgrade after the reload', async () => {
    const api = await extensionApi();
    await seedOlderVersion(api);
  });
});

describe('the persisted local index across the reload (before it)', () => {
  it('scans the local transcripts once and saves the index in the global storage', async function () {
    this.timeout(120_000);
    const api = await extensionApi();
    await scanAndSaveIndex(api);
  });
});
