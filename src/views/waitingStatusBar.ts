import * as vscode from 'vscode';
import { relativeTime } from '../domain/format.ts';
import type { SessionStore } from '../store/sessionStore.ts';

/** `$(bell) N`: sessions waiting on a human across connections; hidden at zero. */
export class WaitingStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subscription: { dispose(): void };
  private readonly store: SessionStore;

  constructor(store: SessionStore) {
    this.store = store;
    this.item = vscode.window.createStatusBarItem(
      'agentSessions.waiting',
      vscode.StatusBarAlignment.Left,
      50,
    );
    this.item.name = vscode.l10n.t('Agent Sessions: waiting on you');
    this.item.command = 'agentSessions.showWaiting';
    this.subscription = store.onDidChange(() => this.update());
    this.update();
  }

  update(): void {
    const waiting = this.store.waiting();
    const incomplete = this.store.waitingIncomplete();
    // A platform session with manual tasks counts each task; any other waiting session counts once.
    const count = waiting.reduce((n, s) => n + Math.max(1, s.pendingTasks?.length ?? 0), 0);
    if (count === 0 && !incomplete) {
      this.item.hide();
      return;
    }
    this.item.text = `$(bell) ${count}${incomplete ? '+?' : ''}`;
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**${vscode.l10n.t('Waiting on you')}**\n\n`);
    // Oldest first; sessions whose waiting time the backend does not give go last.
    const byAge = [...waiting].sort((a, b) =>
      (a.waitingSince ?? '\uffff').localeCompare(b.waitingSince ?? '\uffff'),
    );
    for (const s of byAge.slice(0, 15)) {
      tooltip
        .appendMarkdown('- ')
        .appendText(s.waitingSince ? `${s.label} — ${relativeTime(s.waitingSince) ?? ''}` : s.label)
        .appendMarkdown('\n');
      for (const task of s.pendingTasks ?? []) {
        tooltip
          .appendMarkdown('  - ')
          .appendText(task.title ?? task.id)
          .appendMarkdown('\n');
      }
    }
    if (byAge.length > 15)
      tooltip.appendMarkdown('\n\n').appendText(vscode.l10n.t('…and {0} more', byAge.length - 15));
    if (incomplete) {
      tooltip
        .appendMarkdown('\n\n')
        .appendText(
          vscode.l10n.t(
            'The count may be incomplete: a connection failed to load or could not look up its manual tasks.',
          ),
        );
    }
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = {
      label: vscode.l10n.t('{0} items waiting on you', count),
    };
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
