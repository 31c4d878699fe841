/**
 * Reload scenario, phase two (a new extension host after the reload): the unfinished
 * intent is offered, and retrying it sends the same key and arguments. The runner
 * then checks the server applied the completion exactly once.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/extension.ts';
import { ScriptedUser } from '../support/ui.ts';
import { reloadScenario } from './reloadScenario.ts';

describe('window reload between send and answer (after the reload)', () => {
  it('resumes the same intent with the same key, and reports the completion', async () => {
    const scenario = reloadScenario();
    const api = (await vscode.extensions
      .getExtension<ExtensionApi>('agent-session-inspector.agent-session-inspector')
      ?.activate()) as ExtensionApi;
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
});
