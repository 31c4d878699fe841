import * as vscode from 'vscode';
import type { ConnectionRegistry } from '../config/connectionRegistry.ts';
import type { TokenStore } from '../config/tokenStore.ts';
import type { DemoBackend } from '../background/demoBackend.ts';
import { addReferenceBackend, referenceBackendConnections } from '../config/demoConnections.ts';
import { DemoSecrets } from '../config/demoSecrets.ts';
import type { ConnectionConfig } from '../sources/sessionSource.ts';
import { surfaceError } from '../domain/surfaceText.ts';
import { showError } from '../views/safeMessage.ts';

export const DEMO_CONNECTION_ID = 'demo';
const RUNNING_CONTEXT = 'sessionInspector.demoRunning';

/**
 * "Open Demo": the bundled reference backend with realistic data, no account needed.
 * "Stop Demo" (and closing the window) removes its connections and the tokens it stored.
 */
export function registerDemoCommands(deps: {
  demo: DemoBackend;
  registry: ConnectionRegistry;
  tokens: TokenStore;
  /** globalState: where the demo's stored tokens are recorded until deleted. */
  memory: vscode.Memento;
}): vscode.Disposable[] {
  const secrets = new DemoSecrets({ memory: deps.memory, tokens: deps.tokens });
  // Tokens left by demos whose window closed before they were deleted.
  void secrets.forgetLeftovers().catch(() => undefined);
  let connections: ConnectionConfig[] = [];

  const stop = async () => {
    const added = connections;
    connections = [];
    // Only what is still the demo's: the user may have removed a connection already.
    const ours = added.filter((c) => deps.registry.get(c.id)?.ephemeral);
    await Promise.all(ours.map((c) => deps.registry.remove(c.id)));
    await secrets.forgetOwn();
    await deps.demo.stop();
    await vscode.commands.executeCommand('setContext', RUNNING_CONTEXT, false);
  };

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
        connections = referenceBackendConnections(url, DEMO_CONNECTION_ID, vscode.l10n.t('Demo'));
        // Recorded before they are stored, so a crash in between leaves nothing unrecorded.
        await secrets.remember(
          connections.flatMap((c) => (c.url ? [{ connectionId: c.id, url: c.url }] : [])),
        );
        await addReferenceBackend(deps.registry, deps.tokens, connections, token);
        await vscode.commands.executeCommand('setContext', RUNNING_CONTEXT, true);
        await vscode.commands.executeCommand('sessionInspector.sessions.focus');
      } catch (error) {
        void showError(vscode.l10n.t('The demo backend could not start: {0}', surfaceError(error)));
      }
    }),
    vscode.commands.registerCommand('sessionInspector.stopDemo', stop),
    // The window closes: the backend stops with the extension host; the tokens go now
    // if there is time, else at the next activation (forgetLeftovers).
    { dispose: () => void stop().catch(() => undefined) },
  ];
}
