import * as vscode from 'vscode';
import type { WaitingCount } from '../domain/waitingCount.ts';

/** One sentence for the badge's tooltip and the status bar's: the number and what it counts. */
export function waitingLabel(count: WaitingCount, incomplete: boolean): string {
  const what = countSentence(count);
  return incomplete ? vscode.l10n.t('{0} (maybe more: a count is unknown)', what) : what;
}

function countSentence({ sessions, tasks, total }: WaitingCount): string {
  if (sessions && tasks) {
    return vscode.l10n.t(
      '{0} waiting on you: {1} sessions and {2} manual tasks',
      total,
      sessions,
      tasks,
    );
  }
  if (tasks === 1) return vscode.l10n.t('1 manual task waiting on you');
  if (tasks) return vscode.l10n.t('{0} manual tasks waiting on you', tasks);
  if (sessions === 1) return vscode.l10n.t('1 session waiting on you');
  if (sessions) return vscode.l10n.t('{0} sessions waiting on you', sessions);
  return vscode.l10n.t('Nothing known to be waiting on you');
}

/**
 * Archived sessions that wait are not counted (archiving says "not my concern"); the
 * tooltips say how many were left out, so the number never silently disagrees with the tree.
 */
export function archivedNote(store: { waitingNotCounted(): number }): string {
  const n = store.waitingNotCounted();
  if (n === 0) return '';
  return n === 1
    ? vscode.l10n.t('1 archived session is waiting too; archived sessions are not counted.')
    : vscode.l10n.t('{0} archived sessions are waiting too; archived sessions are not counted.', n);
}
