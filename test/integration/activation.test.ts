import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension.ts';

const EXTENSION_ID = 'agent-session-inspector.agent-session-inspector';

describe('activation', () => {
  it('makes no network request and registers every contributed command', async () => {
    const extension = vscode.extensions.getExtension<ExtensionApi>(EXTENSION_ID);
    assert.ok(extension, 'the extension under test is installed');
    // onStartupFinished may have activated it before this test ran, or not yet.
    const activatedAtStartup = extension.isActive;

    // Count every outgoing request the extension host makes while activating and for the
    // first background poll after it: with no connection configured there must be none.
    const requests: string[] = [];
    const originalFetch = globalThis.fetch;
    const originalHttp = http.request;
    const originalHttps = https.request;
    globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
      requests.push(String(input instanceof Request ? input.url : input));
      return originalFetch(input, init);
    }) as typeof fetch;
    (http as { request: unknown }).request = (...args: Parameters<typeof http.request>) => {
      requests.push(`http ${String(args[0])}`);
      return originalHttp(...args);
    };
    (https as { request: unknown }).request = (...args: Parameters<typeof https.request>) => {
      requests.push(`https ${String(args[0])}`);
      return originalHttps(...args);
    };
    try {
      const started = performance.now();
      await extension.activate();
      const elapsed = performance.now() - started;
      const own = extension.exports.timing;
      // Past the first background poll (2 s after activation).
      await new Promise((r) => setTimeout(r, 3_000));
      if (activatedAtStartup) {
        console.log('      activated at startup (onStartupFinished), before this test');
      } else {
        console.log(`      activation took ${elapsed.toFixed(1)} ms`);
      }
      console.log(
        `      of which the extension's own: evaluate ${own.evaluateMs?.toFixed(1)} ms, activate() ${own.activateMs.toFixed(1)} ms`,
      );
      assert.ok(own.activateMs >= 0);
      if (process.env.ASI_BENCH_FILE) {
        // Activated at startup, only the extension's own share can be timed.
        const total = activatedAtStartup ? (own.evaluateMs ?? 0) + own.activateMs : elapsed;
        writeFileSync(
          process.env.ASI_BENCH_FILE,
          JSON.stringify({ activationMs: total, activatedAtStartup, ...own }),
        );
      }
      assert.deepEqual(requests, [], 'no request during activation or the first background poll');
    } finally {
      globalThis.fetch = originalFetch;
      (http as { request: unknown }).request = originalHttp;
      (https as { request: unknown }).request = originalHttps;
    }

    const contributed = (extension.packageJSON.contributes.commands as { command: string }[]).map(
      (c) => c.command,
    );
    assert.ok(contributed.length >= 10, 'the manifest contributes the commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], 'every contributed command is registered');
  });

  it('ignores connections a workspace settings.json tries to add', async () => {
    const api = vscode.extensions.getExtension<ExtensionApi>(EXTENSION_ID)?.exports;
    assert.ok(api);
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the tests run with a workspace folder');
    const file = await vscode.workspace.fs.readFile(
      vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json'),
    );
    assert.match(
      Buffer.from(file).toString(),
      /Workspace-injected/,
      'the workspace does try to add one',
    );
    const effective =
      vscode.workspace.getConfiguration('sessionInspector').get<unknown[]>('connections') ?? [];
    assert.equal(JSON.stringify(effective).includes('evil'), false, 'VS Code does not apply it');
    assert.equal(
      api.registry.all().some((c) => c.id === 'evil'),
      false,
      'the extension does not use it',
    );
  });
});
