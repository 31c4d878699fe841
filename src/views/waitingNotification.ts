import * as vscode from 'vscode';
import type { SessionSummary } from '../domain/session.ts';
import { surfaceLabel } from '../domain/surfaceText.ts';
import { showInformation } from './safeMessage.ts';

/**
 * A notification when sessions newly start waiting on you (setting: sessionInspector.notifyWhenWaiting).
 * `openPanel` opens a session's panel (the webview host's, handed in by extension.ts).
 */
export async function notifyWaiting(
  sessions: SessionSummary[],
  openPanel: (session: SessionSummary) => void,
): Promise<void> {
  if (!vscode.workspace.getConfiguration('sessionInspector').get('notifyWhenWaiting', true)) return;
  const first = sessions[0];
  if (!first) return;
  const open = vscode.l10n.t('Open');
  const message =
    sessions.length === 1
      ? vscode.l10n.t('"{0}" is waiting on you.', surfaceLabel(first.label))
      : vscode.l10n.t('{0} sessions started waiting on you.', sessions.length);
  const answer = await showInformation(message, open);
  if (answer !== open) return;
  if (sessions.length === 1) openPanel(first);
  else await vscode.commands.executeCommand('sessionInspector.showWaiting');
}
