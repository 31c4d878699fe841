import * as vscode from 'vscode';
import { pickSessionFrom } from './sessionPicker.ts';
import { relativeTime } from '../domain/format.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import type { TreeNode } from '../views/sessionsTree.ts';

/** The status-bar click: pick a waiting session and reveal it in the tree. */
export function registerWaitingCommands(
  store: SessionStore,
  view: vscode.TreeView<TreeNode>,
): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('sessionInspector.showWaiting', async () => {
      const session = await pickSessionFrom(store.waiting(), {
        empty: vscode.l10n.t('No session is waiting on you.'),
        detail: (waiting) =>
          vscode.l10n.t('waiting since {0}', relativeTime(waiting.waitingSince) ?? '?'),
        quickPick: { placeHolder: vscode.l10n.t('Sessions waiting on you') },
      });
      if (session) {
        await view.reveal(
          { kind: 'session', session },
          { select: true, focus: true, expand: true },
        );
      }
    }),
  ];
}
