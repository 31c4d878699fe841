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
    const failed = this.store.connections().some((c) => c.error);
    if (waiting.length === 0) {
      this.item.hide();
      return;
    }
    this.item.text = `$(bell) ${waiting.length}${failed ? '+?' : ''}`;
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**${vscode.l10n.t('Waiting on you')}**\n\n`);
    const byAge = [...waiting].sort((a, b) =>
      (a.waitingSince ?? '').localeCompare(b.waitingSince ?? ''),
    );
    for (const s of byAge.slice(0, 15)) {
      tooltip
        .appendMarkdown('- ')
        .appendText(`${s.label} — ${relativeTime(s.waitingSince) ?? ''}`)
        .appendMarkdown('\n');
    }
    if (failed) {
      tooltip.appendMarkdown(
        `\n${vscode.l10n.t('Some connections failed to load: the count may be incomplete.')}`,
      );
    }
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = {
      label: vscode.l10n.t('{0} agent sessions waiting on you', waiting.length),
    };
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
