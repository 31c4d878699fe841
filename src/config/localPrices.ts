import * as vscode from 'vscode';

/** `sessionInspector.local.prices`: model id → USD per million tokens, before the bundled table. */
export const LOCAL_PRICES_SETTING = 'sessionInspector.local.prices';

/** The raw value; the source factory validates it (zod lives in the lazily loaded bundle). */
export function readLocalPrices(): unknown {
  return vscode.workspace.getConfiguration().get<unknown>(LOCAL_PRICES_SETTING);
}
