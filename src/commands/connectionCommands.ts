import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { connectionIdOf } from './commandArgs.ts';
import type { ConnectionRegistry } from '../config/connectionRegistry.ts';
import {
  DETAIL_MAX_LENGTH,
  plainSurfaceText,
  surfaceError,
  surfaceLabel,
} from '../domain/surfaceText.ts';
import type { TokenStore } from '../config/tokenStore.ts';
import type { ConnectionConfig, ConnectionKind, SessionSource } from '../sources/sessionSource.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import { showError, showInformation, showWarning } from '../views/safeMessage.ts';

interface Deps {
  registry: ConnectionRegistry;
  tokens: TokenStore;
  store: SessionStore;
  /** Builds a throwaway source, so a connection can be tested before it is saved. */
  createSource: (config: ConnectionConfig) => SessionSource;
}

/** Add, sign in/out, test and remove connections. */
export function registerConnectionCommands(deps: Deps): vscode.Disposable[] {
  return [
    // 'local' skips the kind question (the local usage report offers to add one).
    vscode.commands.registerCommand('sessionInspector.addConnection', (kind?: unknown) =>
      kind === 'local' ? addLocalConnection(deps) : addConnection(deps),
    ),
    vscode.commands.registerCommand('sessionInspector.signIn', (arg?: unknown) =>
      withConnection(deps, arg, (c) => signIn(deps, c)),
    ),
    vscode.commands.registerCommand('sessionInspector.signOut', (arg?: unknown) =>
      withConnection(deps, arg, (c) => signOut(deps, c)),
    ),
    vscode.commands.registerCommand('sessionInspector.removeConnection', (arg?: unknown) =>
      withConnection(deps, arg, (c) => removeConnection(deps, c)),
    ),
    vscode.commands.registerCommand('sessionInspector.editConnection', (arg?: unknown) =>
      withConnection(deps, arg, (c) => editConnection(deps, c)),
    ),
    vscode.commands.registerCommand('sessionInspector.testConnection', (arg?: unknown) =>
      withConnection(deps, arg, (c) => testConnection(deps, c)),
    ),
  ];
}

/** Commands run from a node, with an id, or from the palette (then we ask). */
async function withConnection(
  deps: Deps,
  arg: unknown,
  action: (config: ConnectionConfig) => Promise<void>,
): Promise<void> {
  const config = await resolveConnection(deps, arg);
  if (config) await action(config);
}

async function resolveConnection(deps: Deps, arg: unknown): Promise<ConnectionConfig | undefined> {
  const id = connectionIdOf(arg);
  if (id) return deps.registry.get(id);
  const all = deps.registry.all();
  if (all.length <= 1) return all[0];
  const picked = await vscode.window.showQuickPick(
    all.map((c) => ({
      label: surfaceLabel(c.label),
      description: plainSurfaceText(c.url ?? c.kind, { maxLength: DETAIL_MAX_LENGTH }),
      config: c,
    })),
    { placeHolder: vscode.l10n.t('Select a connection') },
  );
  return picked?.config;
}

async function addConnection(deps: Deps): Promise<void> {
  const picked = await pickConnectionKind();
  if (!picked) return;
  const kind = picked.connectionKind;
  if (kind === 'local') {
    await addLocalConnection(deps);
    return;
  }
  const answers = await askRemoteConnection(kind);
  if (!answers) return;
  const { url, label, token } = answers;
  let agents: string[] | undefined;
  if (kind === 'rest') {
    agents = await askAgents();
    if (agents === undefined) return;
  }
  const config: ConnectionConfig = { id: randomUUID(), label, kind, url, agents };
  if (token) await deps.tokens.set(config.id, url, token);
  await saveTested(deps, config, url, token);
}

/** Step 1: MCP server, agents REST API or local transcripts. */
function pickConnectionKind(): Thenable<{ connectionKind: ConnectionKind } | undefined> {
  return vscode.window.showQuickPick(
    [
      {
        label: vscode.l10n.t('MCP server'),
        detail: vscode.l10n.t('Reporting, session and session_complete tools over Streamable HTTP'),
        connectionKind: 'mcp' as ConnectionKind,
      },
      {
        label: vscode.l10n.t('Agents REST API'),
        detail: vscode.l10n.t('/v2/agents/… sessions, authenticated with an x-api-key'),
        connectionKind: 'rest' as ConnectionKind,
      },
      {
        label: vscode.l10n.t('Local transcripts'),
        detail: vscode.l10n.t(
          'Claude Code and Codex sessions on this machine (CLAUDE_CONFIG_DIR, ~/.claude, CODEX_HOME, ~/.codex)',
        ),
        connectionKind: 'local' as ConnectionKind,
      },
    ],
    { title: vscode.l10n.t('Add Connection (1/4): kind'), ignoreFocusOut: true },
  );
}

/** Steps 2-4 of a remote connection: URL, name and token (empty for none). */
async function askRemoteConnection(
  kind: ConnectionKind,
): Promise<{ url: string; label: string; token: string } | undefined> {
  const url = await vscode.window.showInputBox({
    title: vscode.l10n.t('Add Connection (2/4): URL'),
    prompt:
      kind === 'mcp'
        ? vscode.l10n.t('The MCP endpoint, e.g. https://example.com/mcp')
        : vscode.l10n.t('The API base URL, e.g. https://api.example.com'),
    ignoreFocusOut: true,
    validateInput: (value) =>
      validUrl(value) ? undefined : vscode.l10n.t('Enter an http(s) URL.'),
  });
  if (!url) return undefined;
  const label = await vscode.window.showInputBox({
    title: vscode.l10n.t('Add Connection (3/4): name'),
    value: new URL(url).host,
    ignoreFocusOut: true,
  });
  if (!label) return undefined;
  const token = await vscode.window.showInputBox({
    title: vscode.l10n.t('Add Connection (4/4): token'),
    prompt: vscode.l10n.t(
      'Stored in VS Code secret storage, never in settings. Leave empty for none.',
    ),
    password: true,
    ignoreFocusOut: true,
  });
  if (token === undefined) return undefined;
  return { url, label, token };
}

/** The agents a REST connection watches: keys or aliases; empty for every agent. */
async function askAgents(): Promise<string[] | undefined> {
  const keys = await vscode.window.showInputBox({
    title: vscode.l10n.t('Add Connection: agents to watch'),
    prompt: vscode.l10n.t(
      'Agent keys or aliases, comma-separated. Leave empty to watch every agent.',
    ),
    ignoreFocusOut: true,
  });
  if (keys === undefined) return undefined;
  return keys
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
}

/** Tests the connection and saves it; a failed test asks first, and "no" forgets the token. */
async function saveTested(
  deps: Deps,
  config: ConnectionConfig,
  url: string,
  token: string,
): Promise<void> {
  const tested = await runTest(deps, config);
  if (!tested) {
    const save = vscode.l10n.t('Save Anyway');
    const answer = await showWarning(
      vscode.l10n.t('The connection test failed. Save "{0}" anyway?', surfaceLabel(config.label)),
      { modal: true },
      save,
    );
    if (answer !== save) {
      if (token) await deps.tokens.delete(config.id, url);
      return;
    }
  }
  await deps.registry.save(config);
}

function validUrl(value: string): boolean {
  try {
    return /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** Tests a connection with a throwaway source; shows the outcome, returns success. */
async function runTest(deps: Deps, config: ConnectionConfig): Promise<boolean> {
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('Testing {0}…', surfaceLabel(config.label)),
      cancellable: true,
    },
    async (_progress, cancellation) => {
      const abort = new AbortController();
      const listener = cancellation.onCancellationRequested(() => abort.abort());
      const source = deps.createSource(config);
      try {
        const detail = await source.test(abort.signal);
        // The detail is the server's own description of itself.
        void showInformation(
          vscode.l10n.t(
            '{0}: connected ({1}).',
            surfaceLabel(config.label),
            plainSurfaceText(detail, { maxLength: DETAIL_MAX_LENGTH }),
          ),
        );
        return true;
      } catch (error) {
        void showError(vscode.l10n.t('{0}: {1}', surfaceLabel(config.label), surfaceError(error)));
        return false;
      } finally {
        listener.dispose();
        await source.dispose();
      }
    },
  );
}

async function signIn(deps: Deps, config: ConnectionConfig): Promise<void> {
  if (!config.url) return;
  const token = await vscode.window.showInputBox({
    title: vscode.l10n.t('Sign in to {0}', surfaceLabel(config.label)),
    prompt: vscode.l10n.t('Token for {0}', new URL(config.url).origin),
    password: true,
    ignoreFocusOut: true,
  });
  if (!token) return;
  await deps.tokens.set(config.id, config.url, token);
  await deps.store.reconnect(config.id);
}

async function signOut(deps: Deps, config: ConnectionConfig): Promise<void> {
  if (!config.url) return;
  await deps.tokens.delete(config.id, config.url);
  await deps.store.reconnect(config.id);
}

async function removeConnection(deps: Deps, config: ConnectionConfig): Promise<void> {
  const remove = vscode.l10n.t('Remove');
  const answer = await showWarning(
    vscode.l10n.t('Remove the connection "{0}" and its stored token?', surfaceLabel(config.label)),
    { modal: true },
    remove,
  );
  if (answer !== remove) return;
  if (config.url) await deps.tokens.delete(config.id, config.url);
  await deps.registry.remove(config.id);
}

/** Local transcripts need no URL or token: the folders are found from the environment. */
async function addLocalConnection(deps: Deps): Promise<void> {
  if (deps.registry.all().some((c) => c.kind === 'local')) {
    void showInformation(vscode.l10n.t('Local transcripts are already connected.'));
    return;
  }
  const config: ConnectionConfig = {
    id: randomUUID(),
    label: vscode.l10n.t('This machine'),
    kind: 'local',
  };
  await runTest(deps, config);
  await deps.registry.save(config);
}

async function testConnection(deps: Deps, config: ConnectionConfig): Promise<void> {
  await runTest(deps, config);
}

/**
 * Renames or re-points a connection. Tokens are keyed by origin, so a URL on another
 * origin starts without one: the old token is never sent to the new server.
 */
async function editConnection(deps: Deps, config: ConnectionConfig): Promise<void> {
  if (config.ephemeral) {
    void showInformation(
      vscode.l10n.t(
        '"{0}" is a temporary connection and cannot be edited.',
        surfaceLabel(config.label),
      ),
    );
    return;
  }
  const label = await vscode.window.showInputBox({
    title: vscode.l10n.t('Edit Connection: name'),
    value: config.label,
    ignoreFocusOut: true,
  });
  if (!label) return;
  // Local transcripts have no server address: the name is all there is to edit.
  if (config.url === undefined) {
    await deps.registry.save({ ...config, label });
    return;
  }
  const url = await vscode.window.showInputBox({
    title: vscode.l10n.t('Edit Connection: URL'),
    value: config.url,
    ignoreFocusOut: true,
    validateInput: (value) =>
      validUrl(value) ? undefined : vscode.l10n.t('Enter an http(s) URL.'),
  });
  if (!url) return;
  const movedOrigin =
    config.url !== undefined && new URL(config.url).origin !== new URL(url).origin;
  await deps.registry.save({ ...config, label, url });
  if (movedOrigin) {
    const signIn = vscode.l10n.t('Sign In…');
    const answer = await showInformation(
      vscode.l10n.t(
        '{0} is a different server: sign in to it. The token for the old address is not sent there.',
        new URL(url).origin,
      ),
      signIn,
    );
    if (answer === signIn)
      await vscode.commands.executeCommand('sessionInspector.signIn', config.id);
  }
}
