import type * as vscode from 'vscode';

/**
 * Tokens live only in SecretStorage, keyed by connection AND origin: if a
 * connection's URL moves to another origin, the old token is simply not found
 * there, so it can never be sent to a server it was not given for.
 */
export class TokenStore {
  private readonly secrets: vscode.SecretStorage;

  constructor(secrets: vscode.SecretStorage) {
    this.secrets = secrets;
  }

  static key(connectionId: string, url: string): string {
    return `sessionInspector.token/${connectionId}/${new URL(url).origin}`;
  }

  get(connectionId: string, url: string): Thenable<string | undefined> {
    return this.secrets.get(TokenStore.key(connectionId, url));
  }

  set(connectionId: string, url: string, token: string): Thenable<void> {
    return this.secrets.store(TokenStore.key(connectionId, url), token);
  }

  delete(connectionId: string, url: string): Thenable<void> {
    return this.secrets.delete(TokenStore.key(connectionId, url));
  }
}
