import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ReferenceBackend } from '../../src/demo/server.ts';
import type { ExtensionApi } from '../../src/extension.ts';
import { startTestBackend } from '../support/backend.ts';
import { ScriptedUser } from './support/ui.ts';
import { until } from './support/until.ts';
import { extensionApi } from './support/extensionApi.ts';

const CONNECTION = 'background-mcp';

// Runs before any test opens the Sessions view (files run in name order): the waiting
// signal must work for a user who never opened it.
describe('waiting signal with the Sessions view never opened', () => {
  let backend: ReferenceBackend;
  let api: ExtensionApi;
  let user: ScriptedUser;

  before(async () => {
    backend = await startTestBackend();
    api = await extensionApi();
    await api.migration;
    user = new ScriptedUser();
    await vscode.workspace
      .getConfiguration('sessionInspector')
      .update('backgroundPollIntervalSeconds', 1, vscode.ConfigurationTarget.Global);
    await api.tokens.set(CONNECTION, backend.mcpUrls.closedloop, backend.token);
    api.registry.addEphemeral({
      id: CONNECTION,
      label: 'Background',
      kind: 'mcp',
      url: backend.mcpUrls.closedloop,
    });
  });

  after(async () => {
    user.restore();
    await vscode.workspace
      .getConfiguration('sessionInspector')
      .update('backgroundPollIntervalSeconds', undefined, vscode.ConfigurationTarget.Global);
    await api.registry.remove(CONNECTION);
    await backend.close();
  });

  it('counts in the status bar and the badge, and notifies when a session starts waiting', async () => {
    assert.equal(api.view.visible, false, 'the Sessions view is not open');
    const waitingBefore = await until(
      'the background poll loads the waiting sessions',
      () => api.store.state(CONNECTION)?.loadedOnce && api.store.waiting().length,
      30_000,
    );
    assert.equal(api.statusBar.shownText, `$(bell) ${waitingBefore}`);
    assert.equal(api.view.badge?.value, waitingBefore, 'badge and status bar agree');
    assert.match(
      String(api.view.badge?.tooltip),
      new RegExp(`^${waitingBefore} sessions waiting on you`),
    );

    const running = api.store
      .state(CONNECTION)
      ?.sessions.find((s) => s.status.status === 'active' && !s.endedAt);
    assert.ok(running, 'a running session that is not waiting');
    assert.ok(backend.setAwaitingInput(running.id, true), 'the agent starts waiting');

    await until(
      'the status bar counts the new waiting session',
      () => api.statusBar.shownText === `$(bell) ${waitingBefore + 1}`,
      30_000,
    );
    assert.equal(api.view.badge?.value, waitingBefore + 1, 'the badge agrees');
    await until('the notification', () =>
      user.messages.some((m) => m.level === 'info' && m.text.includes(running.label)),
    );
    assert.equal(api.view.visible, false, 'still without opening the view');
  });
});
