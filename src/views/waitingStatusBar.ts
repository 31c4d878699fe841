import * as vscode from 'vscode';
import { relativeTime } from '../domain/format.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import { LABEL_MAX_LENGTH, markdownSurfaceText } from '../domain/surfaceText.ts';
import { countWaiting } from '../domain/waitingCount.ts';
import { archivedNote, waitingLabel } from './waitingLabel.ts';

/** `$(bell) N`: sessions waiting on a human across connections; hidden at zero. */
export class WaitingStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subscription: { dispose(): void };
  private readonly store: SessionStore;

  constructor(store: SessionStore) {
    this.store = store;
    this.item = vscode.window.createStatusBarItem(
      'sessionInspector.waiting',
      vscode.StatusBarAlignment.Left,
      50,
    );
    this.item.name = vscode.l10n.t('Session Inspector: waiting on you');
    this.item.command = 'sessionInspector.showWaiting';
    this.subscription = store.onDidChange(() => this.update());
    this.update();
  }

  /** What the item shows, or undefined while it is hidden (read by the tests). */
  get shownText(): string | undefined {
    return this.shown ? this.item.text : undefined;
  }

  /** The tooltip's Markdown while shown (read by the tests). */
  get shownTooltip(): vscode.MarkdownString | undefined {
    return this.shown && this.item.tooltip instanceof vscode.MarkdownString
      ? this.item.tooltip
      : undefined;
  }

  private shown = false;

  update(): void {
    const waiting = this.store.waiting();
    const incomplete = this.store.waitingIncomplete();
    // The same count as the view's badge (countWaiting), with the same words for what it counts.
    const counted = countWaiting(waiting);
    const count = counted.total;
    if (count === 0 && !incomplete) {
      this.shown = false;
      this.item.hide();
      return;
    }
    this.item.text = `$(bell) ${count}${incomplete ? '+?' : ''}`;
    // Session names and task titles are the backend's: untrusted Markdown, no HTML, no
    // theme icons, each text through markdownSurfaceText (no link, icon or markup forms).
    const tooltip = new vscode.MarkdownString();
    tooltip.isTrusted = false;
    tooltip.supportHtml = false;
    tooltip.supportThemeIcons = false;
    tooltip.appendMarkdown(`**${markdownSurfaceText(waitingLabel(counted, incomplete))}**\n\n`);
    // Oldest first; sessions whose waiting time the backend does not give go last.
    const byAge = [...waiting].sort((a, b) =>
      (a.waitingSince ?? '\uffff').localeCompare(b.waitingSince ?? '\uffff'),
    );
    for (const s of byAge.slice(0, 15)) {
      const since = s.waitingSince ? relativeTime(s.waitingSince) : undefined;
      const label = markdownSurfaceText(s.label, { maxLength: LABEL_MAX_LENGTH });
      tooltip.appendMarkdown(`- ${label}${since ? ` — ${markdownSurfaceText(since)}` : ''}\n`);
      for (const task of s.pendingTasks ?? []) {
        const title = markdownSurfaceText(task.title ?? task.id, { maxLength: LABEL_MAX_LENGTH });
        tooltip.appendMarkdown(`  - ${title}\n`);
      }
    }
    if (byAge.length > 15) {
      const more = vscode.l10n.t('…and {0} more', byAge.length - 15);
      tooltip.appendMarkdown(`\n\n${markdownSurfaceText(more)}`);
    }
    const archived = archivedNote(this.store);
    if (archived) tooltip.appendMarkdown(`\n\n${markdownSurfaceText(archived)}`);
    if (incomplete) {
      const note = vscode.l10n.t(
        'The count may be incomplete: a connection failed to load or could not look up its manual tasks.',
      );
      tooltip.appendMarkdown(`\n\n${markdownSurfaceText(note)}`);
    }
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = { label: waitingLabel(counted, incomplete) };
    this.shown = true;
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
