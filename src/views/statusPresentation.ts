import * as vscode from 'vscode';
import type { DerivedStatus, FinishOutcome } from '../domain/derivedStatus.ts';

export function statusLabel(status: DerivedStatus): string {
  switch (status) {
    case 'waiting':
      return vscode.l10n.t('Waiting on you');
    case 'active':
      return vscode.l10n.t('Active');
    case 'idle':
      return vscode.l10n.t('Idle');
    case 'error':
      return vscode.l10n.t('Error');
    case 'finished':
      return vscode.l10n.t('Finished');
    case 'stale':
      return vscode.l10n.t('Stale');
    case 'unknown':
      return vscode.l10n.t('Unknown');
  }
}

/** Theme icons and colours, so light, dark and high-contrast themes all read right. */
export function statusIcon(status: DerivedStatus, outcome?: FinishOutcome): vscode.ThemeIcon {
  switch (status) {
    case 'waiting':
      return new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('charts.yellow'));
    case 'active':
      return new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('charts.blue'));
    case 'idle':
      return outcome === 'interrupted'
        ? new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('charts.orange'))
        : new vscode.ThemeIcon('circle-outline');
    case 'error':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    case 'finished':
      return outcome === 'canceled' || outcome === 'interrupted'
        ? new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('charts.orange'))
        : new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
    case 'stale':
      return new vscode.ThemeIcon('watch', new vscode.ThemeColor('disabledForeground'));
    case 'unknown':
      return new vscode.ThemeIcon('question');
  }
}
