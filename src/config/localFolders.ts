import * as vscode from 'vscode';
import { LOCAL_PRICES_SETTING } from './localPrices.ts';

/** Folders read before CLAUDE_CONFIG_DIR / CODEX_HOME (machine-scoped settings). */
export const CLAUDE_DIRS_SETTING = 'sessionInspector.local.claudeConfigDirs';
export const CODEX_HOME_SETTING = 'sessionInspector.local.codexHome';

/** The raw values; the source factory validates them (folderOptions in discovery.ts). */
export function readLocalFolders(): unknown {
  const config = vscode.workspace.getConfiguration();
  return {
    claudeConfigDirs: config.get<unknown>(CLAUDE_DIRS_SETTING),
    codexHome: config.get<unknown>(CODEX_HOME_SETTING),
  };
}

/**
 * Calls `reload` when a setting that local connections are built from changes: the
 * folders (they then read the new ones) or the prices (they rebuild their costs).
 */
export function onLocalSettingsChange(reload: () => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (
      e.affectsConfiguration(CLAUDE_DIRS_SETTING) ||
      e.affectsConfiguration(CODEX_HOME_SETTING) ||
      e.affectsConfiguration(LOCAL_PRICES_SETTING)
    )
      reload();
  });
}
