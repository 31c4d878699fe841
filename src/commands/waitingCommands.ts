import * as vscode from 'vscode';
import { relativeTime } from '../domain/format.ts';
import { DETAIL_MAX_LENGTH, plainSurfaceText, surfaceLabel } from '../domain/surfaceText.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import { showInformation } from '../views/safeMessage.ts';
import type { TreeNode } from '../views/sessionsTree.ts';

/** The status-bar click: pick a waiting session and reveal it in the tree. */
export function registerWaitingCommands(
  store: SessionStore,
  view: vscode.TreeView<TreeNode>,
): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('sessionInspector.showWaiting', async () => {
      const waiting = store.waiting();
      if (waiting.length === 0) {
        void showInformation(vscode.l10n.t('No session is waiting on you.'));
        return;
      }
      const picked = await vscode.window.showQuickPick(
        waiting.map((session) => ({
          label: surfaceLabel(session.label),
          description: plainSurfaceText(
            [session.harness, session.repository].filter(Boolean).join(' · '),
            { maxLength: DETAIL_MAX_LENGTH, breakUrls: true },
          ),
          detail: vscode.l10n.t('waiting since {0}', relativeTime(session.waitingSince) ?? '?'),
          session,
        })),
        { placeHolder: vscode.l10n.t('Sessions waiting on you') },
      );
      if (picked) {
        await view.reveal(
          { kind: 'session', session: picked.session },
          { select: true, focus: true, expand: true },
        );
      }
    }),
  ];
}
