/** The older version's values the upgrade test seeds, without vscode (the runner reads them too). */
export const UPGRADED_TOKEN = 'token-saved-by-an-older-version';
