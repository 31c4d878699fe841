import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { TokenStore } from '../../src/config/tokenStore.ts';
import { extensionApi } from './support/extensionApi.ts';

/**
 * "Open Demo" stores a token per demo connection, keyed by connection and origin, on a
 * new random port each time; "Stop Demo" takes its connections and those tokens away,
 * so nothing is left behind in secret storage run after run.
 */
const DEMO_IDS = ['demo-reporting', 'demo-platform', 'demo-agents'];

describe('Open Demo cleans up after itself', () => {
  it('Stop Demo removes its connections and deletes their tokens; a new run uses a new port', async () => {
    const api = await extensionApi();
    const demoUrls = () =>
      DEMO_IDS.map((id) => api.registry.get(id)?.url).filter((u): u is string => !!u);
    const stored = async (urls: string[]) =>
      (
        await Promise.all(
          DEMO_IDS.map((id, i) => api.secrets.get(TokenStore.key(id, urls[i] ?? 'http://x'))),
        )
      ).filter(Boolean).length;

    await vscode.commands.executeCommand('sessionInspector.openDemo');
    const first = demoUrls();
    assert.equal(first.length, 3, 'three demo connections');
    assert.equal(await stored(first), 3, 'a token per connection in secret storage');

    await vscode.commands.executeCommand('sessionInspector.stopDemo');
    assert.deepEqual(demoUrls(), [], 'the connections are gone');
    assert.equal(await stored(first), 0, 'and so are their tokens');

    await vscode.commands.executeCommand('sessionInspector.openDemo');
    const second = demoUrls();
    assert.equal(await stored(second), 3);
    assert.notEqual(new URL(second[0]!).port, new URL(first[0]!).port, 'a new port');
    await vscode.commands.executeCommand('sessionInspector.stopDemo');
    assert.equal(await stored(second), 0);
    assert.equal(await stored(first), 0, 'nothing of the first run came back');
  });
});
