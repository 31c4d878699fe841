import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension.ts';
import { LEGACY_SETTINGS, legacyTokenKey } from '../../src/config/legacyMigration.ts';
import { until } from './support/until.ts';

const EXTENSION_ID = 'agent-session-inspector.agent-session-inspector';
const OLD = 'agentSessions';
const NEW = 'sessionInspector';

/** Reads, edits and writes a settings.json (the test host writes plain JSON). */
async function editSettings(
  uri: vscode.Uri,
  edit: (settings: Record<string, unknown>) => void,
): Promise<void> {
  let settings: Record<string, unknown> = {};
  try {
    settings = JSON.parse(
      Buffer.from(await vscode.workspace.fs.readFile(uri)).toString(),
    ) as Record<string, unknown>;
  } catch {
    // no file yet
  }
  edit(settings);
  await vscode.workspace.fs.writeFile(uri, Buffer.from(JSON.stringify(settings, null, 2)));
}

describe('upgrade from the agentSessions.* names', () => {
  let api: ExtensionApi;
  let userSettings: vscode.Uri;
  let workspaceSettings: vscode.Uri;
  const connection = {
    id: 'upgraded-mcp',
    label: 'Upgraded server',
    kind: 'mcp',
    url: 'http://127.0.0.1:9/mcp/upgraded',
  };

  before(async () => {
    api = (await vscode.extensions
      .getExtension<ExtensionApi>(EXTENSION_ID)
      ?.activate()) as ExtensionApi;
    await api.migration;
    // <user-data>/User/globalStorage/<extension id> → <user-data>/User/settings.json
    userSettings = vscode.Uri.joinPath(api.globalStorageUri, '..', '..', 'settings.json');
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder);
    workspaceSettings = vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json');
  });

  let savedUser: Uint8Array | undefined;
  let savedWorkspace: Uint8Array | undefined;
  before(async () => {
    savedUser = await Promise.resolve(vscode.workspace.fs.readFile(userSettings)).catch(
      () => undefined,
    );
    savedWorkspace = await vscode.workspace.fs.readFile(workspaceSettings);
  });

  // The other tests find the settings as they were.
  after(async () => {
    await vscode.workspace.fs.writeFile(userSettings, savedUser ?? Buffer.from('{}'));
    if (savedWorkspace) await vscode.workspace.fs.writeFile(workspaceSettings, savedWorkspace);
    await api.tokens.delete(connection.id, connection.url);
    await until('the moved connection is gone again', () =>
      api.registry.all().every((c) => c.id !== connection.id),
    );
  });

  it('moves settings of every scope and the tokens once, and leaves nothing under the old names', async () => {
    // An older version's state: user settings, a workspace value and a token under the old key.
    await editSettings(userSettings, (s) => {
      s[`${OLD}.connections`] = [connection];
      s[`${OLD}.pageSize`] = 25;
      s[`${OLD}.requestTimeoutSeconds`] = 45;
      s[`${OLD}.pollIntervalSeconds`] = 120;
      s[`${OLD}.notifyWhenWaiting`] = false;
      s[`${OLD}.local.prices`] = { 'my-model': { input: 1, output: 2 } };
    });
    await editSettings(workspaceSettings, (s) => (s[`${OLD}.pollIntervalSeconds`] = 5));
    await api.secrets.store(legacyTokenKey(connection.id, connection.url), 'old-token-value');
    await until('VS Code reads the old settings', () => {
      const old = vscode.workspace.getConfiguration(OLD);
      return (
        old.inspect('pageSize')?.globalValue === 25 &&
        old.inspect('pollIntervalSeconds')?.workspaceValue === 5
      );
    });

    const report = await api.migrateLegacy();
    assert.equal(report.tokens, 1, 'one token moved');

    const current = vscode.workspace.getConfiguration(NEW);
    assert.deepEqual(current.inspect('connections')?.globalValue, [connection]);
    assert.equal(current.get('pageSize'), 25);
    assert.equal(current.get('requestTimeoutSeconds'), 45);
    assert.equal(
      current.get('pollIntervalSeconds'),
      120,
      'the user value, not the ignored workspace one',
    );
    assert.equal(current.get('notifyWhenWaiting'), false);
    assert.deepEqual(current.get('local.prices'), { 'my-model': { input: 1, output: 2 } });
    assert.equal(await api.tokens.get(connection.id, connection.url), 'old-token-value');
    await until('the registry lists the moved connection', () =>
      api.registry.all().some((c) => c.id === connection.id),
    );

    const old = vscode.workspace.getConfiguration(OLD);
    for (const key of LEGACY_SETTINGS) {
      const inspected = old.inspect(key);
      assert.equal(inspected?.globalValue, undefined, `${OLD}.${key} left in user settings`);
      assert.equal(inspected?.workspaceValue, undefined, `${OLD}.${key} left in the workspace`);
    }
    assert.equal(await api.secrets.get(legacyTokenKey(connection.id, connection.url)), undefined);
    const file = Buffer.from(await vscode.workspace.fs.readFile(userSettings)).toString();
    assert.equal(file.includes(`"${OLD}.`), false, 'no old key left in settings.json');

    // Idempotent: a second run moves nothing and changes nothing.
    const again = await api.migrateLegacy();
    assert.deepEqual(again, { settings: [], tokens: 0, dropped: [] });
    assert.equal(await api.tokens.get(connection.id, connection.url), 'old-token-value');
    assert.equal(vscode.workspace.getConfiguration(NEW).get('pageSize'), 25);
  });

  it('keeps a value already under the new name and still removes the old one', async () => {
    await editSettings(userSettings, (s) => {
      s[`${NEW}.pageSize`] = 50;
      s[`${OLD}.pageSize`] = 10;
    });
    await until(
      'VS Code reads both',
      () => vscode.workspace.getConfiguration(OLD).inspect('pageSize')?.globalValue === 10,
    );
    const report = await api.migrateLegacy();
    assert.deepEqual(report.dropped, ['pageSize (user)']);
    assert.equal(vscode.workspace.getConfiguration(NEW).get('pageSize'), 50);
    assert.equal(
      vscode.workspace.getConfiguration(OLD).inspect('pageSize')?.globalValue,
      undefined,
    );
  });
});
