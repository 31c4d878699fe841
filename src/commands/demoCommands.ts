import * as vscode from 'vscode';
import type { ConnectionRegistry } from '../config/connectionRegistry.ts';
import type { TokenStore } from '../config/tokenStore.ts';
import type { DemoBackend } from '../services/demoBackend.ts';
import { addReferenceBackend, referenceBackendConnections } from '../config/demoConnections.ts';

export const DEMO_CONNECTION_ID = 'demo';

/** "Open Demo": the bundled reference backend with realistic data, no account needed. */
export function registerDemoCommands(deps: {
  demo: DemoBackend;
  registry: ConnectionRegistry;
  tokens: TokenStore;
}): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('sessionInspector.openDemo', async () => {
      try {
        const { url, token } = await vscode.window.withProgress(
          {
            location: vscode.ProgressLocation.Window,
            title: vscode.l10n.t('Starting the demo backend…'),
          },
          () => deps.demo.start(),
        );
        await addReferenceBackend(
          deps.registry,
          deps.tokens,
          referenceBackendConnections(url, DEMO_CONNECTION_ID, vscode.l10n.t('Demo')),
          token,
        );
        await vscode.commands.executeCommand('sessionInspector.sessions.focus');
      } catch (error) {
        void vscode.window.showErrorMessage(
          vscode.l10n.t('The demo backend could not start: {0}', (error as Error).message),
        );
      }
    }),
  ];
}
