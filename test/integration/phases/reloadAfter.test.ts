/**
 * Reload scenario, phase two (a new extension host after the reload): the unfinished
 * intent is offered, and retrying it sends the same key and arguments. The runner
 * then checks the server applied the completion exactly once.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ScriptedUser } from '../support/ui.ts';
import { reloadScenario } from './reloadScenario.ts';
import { checkTreeFromIndex } from './localIndexPhase.ts';
import { legacyTokenKey, LEGACY_SETTINGS } from '../../../src/config/legacyMigration.ts';
import {
  NEW,
  OLD,
  readSettings,
  UPGRADED_CONNECTION,
  UPGRADED_TOKEN,
  userSettingsUri,
  workspaceSettingsUri,
} from './upgradeSeed.ts';
import { extensionApi } from '../support/extensionApi.ts';

describe('window reload between send and answer (after the reload)', () => {
  it('resumes the same intent with the same key, and reports the completion', async () => {
    const scenario = reloadScenario();
    const api = await extensionApi();
    const [intent] = api.completions.unfinished();
    assert.ok(intent, 'the intent survived the reload');
    assert.equal(intent.args.sessionId, scenario.sessionId);
    assert.equal(intent.args.summary, 'Finished before the reload', 'with its arguments');
    // Secret storage of this browser session may not survive; sign in again if needed.
    await api.tokens.set(scenario.connectionId, scenario.mcpUrl, scenario.token);
    const user = new ScriptedUser().pick((items) => items[0]);
    try {
      await vscode.commands.executeCommand('sessionInspector.retryCompletions');
    } finally {
      user.restore();
    }
    assert.ok(
      user.messages.some((m) => m.level === 'info' && /was completed/.test(m.text)),
      JSON.stringify(user.messages),
    );
    assert.equal(api.completions.unfinished().length, 0);
    console.log(`      resumed key ${intent.idempotencyKey}`);
    await api.registry.remove(scenario.connectionId);
  });

  it('moved the older version’s settings of every scope and its token, once', async () => {
    const api = await extensionApi();
    const report = await api.migration;
    assert.equal(report.tokens, 1, JSON.stringify(report));
    const current = vscode.workspace.getConfiguration(NEW);
    // Merged by id into the list that already held this window's connection (which the
    // resume above used, and then removed).
    assert.ok(report.settings.includes('connections (user)'), JSON.stringify(report));
    const connections = current.inspect<{ id: string }[]>('connections')?.globalValue ?? [];
    assert.deepEqual(
      connections.find((c) => c.id === UPGRADED_CONNECTION.id),
      UPGRADED_CONNECTION,
    );
    assert.equal(current.get('pageSize'), 50, 'the value already under the new name wins');
    assert.equal(current.get('requestTimeoutSeconds'), 45);
    assert.equal(
      current.get('pollIntervalSeconds'),
      120,
      'the user value, not the ignored workspace one',
    );
    assert.equal(current.get('notifyWhenWaiting'), false);
    assert.deepEqual(current.get('local.prices'), { 'my-model': { input: 1, output: 2 } });
    assert.equal(
      await api.tokens.get(UPGRADED_CONNECTION.id, UPGRADED_CONNECTION.url),
      UPGRADED_TOKEN,
    );
    assert.ok(api.registry.all().some((c) => c.id === UPGRADED_CONNECTION.id));

    // Nothing left under the old names: not in any scope, not in the files, not in secret storage.
    const old = vscode.workspace.getConfiguration(OLD);
    for (const key of LEGACY_SETTINGS) {
      assert.equal(old.inspect(key)?.globalValue, undefined, `${OLD}.${key} in user settings`);
      assert.equal(old.inspect(key)?.workspaceValue, undefined, `${OLD}.${key} in the workspace`);
    }
    for (const file of [userSettingsUri(api), workspaceSettingsUri()]) {
      const keys = Object.keys(await readSettings(file));
      assert.deepEqual(
        keys.filter((k) => k.startsWith(`${OLD}.`)),
        [],
        file.path,
      );
    }
    assert.equal(
      await api.secrets.get(legacyTokenKey(UPGRADED_CONNECTION.id, UPGRADED_CONNECTION.url)),
      undefined,
    );

    // Idempotent: running it again moves and changes nothing.
    assert.deepEqual(await api.migrateLegacy(), {
      settings: [],
      tokens: 0,
      movedTokenConnections: [],
      dropped: [],
    });
    assert.equal(
      await api.tokens.get(UPGRADED_CONNECTION.id, UPGRADED_CONNECTION.url),
      UPGRADED_TOKEN,
    );
    assert.equal(vscode.workspace.getConfiguration(NEW).get('pageSize'), 50);
    await api.registry.remove(UPGRADED_CONNECTION.id);
  });
});

describe('the persisted local index across the reload (after it)', () => {
  it('fills the local tree from the saved index, reading no transcript', async function () {
    this.timeout(120_000);
    const api = await extensionApi();
    await checkTreeFromIndex(api);
  });
});
