import * as vscode from 'vscode';
import { sessionOf } from './commandArgs.ts';
import { pickSessionFrom } from './sessionPicker.ts';
import type { SessionSummary } from '../domain/session.ts';
import { formatCost, relativeTime } from '../domain/format.ts';
import type { SessionStore } from '../store/sessionStore.ts';

/**
 * Open a session's panel: from the tree (node argument) or the palette (QuickPick).
 * `openPanel` is the webview host's, handed in by extension.ts (the host sits above commands).
 */
export function registerSessionCommands(
  store: SessionStore,
  openPanel: (session: SessionSummary) => void,
): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('sessionInspector.openSession', async (arg?: unknown) => {
      const session = sessionOf(arg) ?? (await pickSession(store));
      if (session) openPanel(session);
    }),
  ];
}

function pickSession(store: SessionStore): Promise<SessionSummary | undefined> {
  return pickSessionFrom(
    store.connections().flatMap((c) => c.sessions),
    {
      empty: vscode.l10n.t(
        'No sessions are loaded yet. Open the Sessions view or add a connection.',
      ),
      withStatus: true,
      detail: (session) =>
        `${relativeTime(session.lastActivityAt) ?? ''} · ${formatCost(session.estimatedCost)}`,
      quickPick: {
        placeHolder: vscode.l10n.t('Open which session?'),
        matchOnDescription: true,
        matchOnDetail: true,
      },
    },
  );
}
