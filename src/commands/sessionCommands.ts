import * as vscode from 'vscode';
import { sessionOf } from './commandArgs.ts';
import type { SessionSummary } from '../domain/session.ts';
import { formatCost, relativeTime } from '../domain/format.ts';
import { DETAIL_MAX_LENGTH, plainSurfaceText, surfaceLabel } from '../domain/surfaceText.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import { showInformation } from '../views/safeMessage.ts';
import { statusLabel } from '../views/statusPresentation.ts';

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

async function pickSession(store: SessionStore): Promise<SessionSummary | undefined> {
  const sessions = store.connections().flatMap((c) => c.sessions);
  if (sessions.length === 0) {
    void showInformation(
      vscode.l10n.t('No sessions are loaded yet. Open the Sessions view or add a connection.'),
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    sessions.map((session) => ({
      label: surfaceLabel(session.label),
      description: `${statusLabel(session.status.status)} · ${plainSurfaceText(
        [session.harness, session.repository].filter(Boolean).join(' · '),
        { maxLength: DETAIL_MAX_LENGTH, breakUrls: true },
      )}`,
      detail: `${relativeTime(session.lastActivityAt) ?? ''} · ${formatCost(session.estimatedCost)}`,
      session,
    })),
    {
      placeHolder: vscode.l10n.t('Open which session?'),
      matchOnDescription: true,
      matchOnDetail: true,
    },
  );
  return picked?.session;
}
