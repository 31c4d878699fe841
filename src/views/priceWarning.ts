import * as vscode from 'vscode';
import { LOCAL_PRICES_SETTING } from '../config/localPrices.ts';
import { showWarning } from './safeMessage.ts';

/** Says which entries of the price setting are ignored and why, with a way to the setting. */
export async function warnPriceProblems(lines: readonly string[]): Promise<void> {
  const open = vscode.l10n.t('Open Settings');
  // The lines quote model ids from the setting: through the sanitiser like any message.
  const answer = await showWarning(
    vscode.l10n.t(
      'Some entries of {0} are ignored (the bundled prices apply to those models): {1}',
      LOCAL_PRICES_SETTING,
      lines.join('; '),
    ),
    open,
  );
  if (answer === open) {
    await vscode.commands.executeCommand('workbench.action.openSettings', LOCAL_PRICES_SETTING);
  }
}
