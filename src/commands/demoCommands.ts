import * as vscode from 'vscode';
import type { ConnectionRegistry } from '../config/connectionRegistry.ts';
import type { TokenStore } from '../config/tokenStore.ts';
import type { DemoBackend } from '../services/demoBackend.ts';

export const DEMO_CONNECTION_ID = 'demo';

/** "Open Demo": the bundled reference backend with realistic data, no account needed. */
export function registerDemoCommands(deps: {
  demo: DemoBackend;
  registry: ConnectionRegistry;
  tokens: TokenStore;
}): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('agentSessions.openDemo', async () => {
      try {
        const { url, token } = await vscode.window.withProgress(
          {
            location: vscode.ProgressLocation.Window,
            title: vscode.l10n.t('Starting the demo backend…'),
          },
          () => deps.demo.start(),
        );
        const mcpUrl = `${url}/mcp`;
        await deps.tokens.set(DEMO_CONNECTION_ID, mcpUrl, token);
        deps.registry.addEphemeral({
          id: DEMO_CONNECTION_ID,
          label: vscode.l10n.t('Demo'),
          kind: 'mcp',
          url: mcpUrl,
        });
        await vscode.commands.executeCommand('agentSessions.sessions.focus');
      } catch (error) {
        void vscode.window.showErrorMessage(
          vscode.l10n.t('The demo backend could not start: {0}', (error as Error).message),
        );
      }
    }),
  ];
}
