/**
 * The upgrade test: phase one leaves what an older version (agentSessions.* ids) had —
 * user settings, a workspace value, a token under the old key — and the window reloads,
 * so phase two's extension host starts on them exactly as after an update.
 */
import * as vscode from 'vscode';
import { legacyTokenKey } from '../../../src/config/legacyMigration.ts';
import type { ExtensionApi } from '../../../src/extension.ts';
import { UPGRADED_TOKEN } from './upgradeValues.ts';

export { UPGRADED_TOKEN };

export const OLD = 'agentSessions';
export const NEW = 'sessionInspector';

export const UPGRADED_CONNECTION = {
  id: 'upgraded-mcp',
  label: 'Upgraded server',
  kind: 'mcp',
  url: 'http://127.0.0.1:9/mcp/upgraded',
} as const;

export function userSettingsUri(api: ExtensionApi): vscode.Uri {
  // <user-data>/User/globalStorage/<extension id> → <user-data>/User/settings.json
  return vscode.Uri.joinPath(api.globalStorageUri, '..', '..', 'settings.json');
}

export function workspaceSettingsUri(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the reload scenario runs with a workspace folder');
  return vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json');
}

export async function readSettings(uri: vscode.Uri): Promise<Record<string, unknown>> {
  try {
    const text = Buffer.from(await vscode.workspace.fs.readFile(uri)).toString();
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** Writes the older version's state (the workbench reads the files again after the reload). */
export async function seedOlderVersion(api: ExtensionApi): Promise<void> {
  const user = await readSettings(userSettingsUri(api));
  Object.assign(user, {
    [`${OLD}.connections`]: [UPGRADED_CONNECTION],
    [`${OLD}.pageSize`]: 10,
    [`${NEW}.pageSize`]: 50, // already moved (e.g. by Settings Sync): the new value wins
    [`${OLD}.requestTimeoutSeconds`]: 45,
    [`${OLD}.pollIntervalSeconds`]: 120,
    [`${OLD}.notifyWhenWaiting`]: false,
    [`${OLD}.local.prices`]: { 'my-model': { input: 1, output: 2 } },
  });
  await vscode.workspace.fs.writeFile(
    userSettingsUri(api),
    Buffer.from(JSON.stringify(user, null, 2)),
  );
  const workspace = await readSettings(workspaceSettingsUri());
  workspace[`${OLD}.pollIntervalSeconds`] = 5;
  await vscode.workspace.fs.writeFile(
    workspaceSettingsUri(),
    Buffer.from(JSON.stringify(workspace, null, 2)),
  );
  await api.secrets.store(
    legacyTokenKey(UPGRADED_CONNECTION.id, UPGRADED_CONNECTION.url),
    UPGRADED_TOKEN,
  );
}
