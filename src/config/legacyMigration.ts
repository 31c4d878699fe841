import * as vscode from 'vscode';
import type { Logger } from '../util/logger.ts';
import { isRecord } from '../shared/json.ts';

/**
 * Until 0.2 every id of ours started with `agentSessions.`, the prefix VS Code core now
 * uses for its own Agent Sessions view. This moves what a user of an older version has —
 * settings in every scope and the tokens in secret storage — to `sessionInspector.`, once
 * and idempotently: a value already under the new name wins, and the old one is removed,
 * so running it again finds nothing to do. Memento keys (filters, tree choices,
 * unconfirmed completion intents) never carried the prefix and stay where they are:
 * the extension id did not change, so VS Code keeps them for us.
 *
 * This file is the one place in the code that still names the old prefix.
 */
const LEGACY_SECTION = 'agentSessions';
const SECTION = 'sessionInspector';

/** Every setting the old versions contributed (all application-scoped). */
export const LEGACY_SETTINGS = [
  'connections',
  'pageSize',
  'requestTimeoutSeconds',
  'pollIntervalSeconds',
  'notifyWhenWaiting',
  'local.prices',
] as const;

export function legacyTokenKey(connectionId: string, url: string): string {
  return `${LEGACY_SECTION}.token/${connectionId}/${new URL(url).origin}`;
}

const TOKENS_MOVED_KEY = 'migration.tokensMovedToSessionInspector';

/** What the migration moved, for the log and the tests. */
export interface MigrationReport {
  settings: string[];
  tokens: number;
  /** Connections whose token moved (a source made before the move reconnects). */
  movedTokenConnections: string[];
  /** Old values that were removed without a copy (a newer value existed, or the scope is not honoured). */
  dropped: string[];
}

interface Scope {
  name: 'user' | 'workspace' | 'folder';
  target: vscode.ConfigurationTarget;
  folder?: vscode.WorkspaceFolder;
}

function scopes(): Scope[] {
  return [
    { name: 'user', target: vscode.ConfigurationTarget.Global },
    ...(vscode.workspace.workspaceFile || vscode.workspace.workspaceFolders?.length
      ? [{ name: 'workspace' as const, target: vscode.ConfigurationTarget.Workspace }]
      : []),
    ...(vscode.workspace.workspaceFolders ?? []).map((folder) => ({
      name: 'folder' as const,
      target: vscode.ConfigurationTarget.WorkspaceFolder,
      folder,
    })),
  ];
}

function valueIn(inspected: ReturnType<vscode.WorkspaceConfiguration['inspect']>, scope: Scope) {
  if (!inspected) return undefined;
  if (scope.name === 'user') return inspected.globalValue;
  if (scope.name === 'workspace') return inspected.workspaceValue;
  return inspected.workspaceFolderValue;
}

/** Moves one setting in one scope; returns what happened to the old value. */
async function moveSetting(
  key: string,
  scope: Scope,
  report: MigrationReport,
  log: Logger,
): Promise<void> {
  const legacy = vscode.workspace.getConfiguration(LEGACY_SECTION, scope.folder?.uri);
  const old = valueIn(legacy.inspect(key), scope);
  if (old === undefined) return;
  const current = vscode.workspace.getConfiguration(SECTION, scope.folder?.uri);
  const label = `${key} (${scope.name}${scope.folder ? ` ${scope.folder.name}` : ''})`;
  const existing = valueIn(current.inspect(key), scope);
  const merged = existing === undefined ? old : mergeCollections(key, existing, old);
  if (merged !== undefined) {
    try {
      await current.update(key, merged, scope.target);
      report.settings.push(label);
    } catch (error) {
      // Our settings are application-scoped: VS Code never honoured a workspace value of
      // them, and refuses to write one. Nothing is lost by not copying it.
      report.dropped.push(label);
      log.info(`settings migration: ${label} not copied: ${(error as Error).message}`);
    }
  } else {
    report.dropped.push(label);
  }
  await legacy.update(key, undefined, scope.target);
}

/**
 * Both names hold a value (Settings Sync brought old ones back after the new version ran):
 * connections are merged by id and prices by model, the new name winning on a clash, so no
 * connection the user set up is lost; for single values the new name simply wins (undefined).
 */
export function mergeCollections(key: string, current: unknown, old: unknown): unknown {
  if (key === 'connections' && Array.isArray(current) && Array.isArray(old)) {
    const ids = new Set(current.map((c) => (c as { id?: unknown } | null)?.id));
    const added = old.filter((c) => !ids.has((c as { id?: unknown } | null)?.id));
    return added.length ? [...current, ...added] : undefined;
  }
  if (key === 'local.prices' && isRecord(current) && isRecord(old)) {
    const added = Object.keys(old).filter((model) => !(model in current));
    return added.length ? { ...old, ...current } : undefined;
  }
  return undefined;
}

/** The connections (id and URL) in the user settings under `section`: tokens are only theirs. */
function userConnections(section: string): { id: string; url: string }[] {
  const connections = vscode.workspace
    .getConfiguration(section)
    .inspect<unknown[]>('connections')?.globalValue;
  const found: { id: string; url: string }[] = [];
  for (const entry of Array.isArray(connections) ? connections : []) {
    const { id, url } = (entry ?? {}) as { id?: unknown; url?: unknown };
    if (typeof id === 'string' && typeof url === 'string' && URL.canParse(url)) {
      found.push({ id, url });
    }
  }
  return found;
}

/**
 * Moves the old settings and tokens. Tokens are found through the connections of the user
 * settings, old and new, since SecretStorage cannot list its keys in the VS Code versions
 * we support.
 */
export async function migrateLegacyState(deps: {
  secrets: vscode.SecretStorage;
  /** Where a token lives now. */
  newTokenKey: (connectionId: string, url: string) => string;
  /** globalState: remembers that the tokens were moved (one secret-storage read per connection). */
  memory: vscode.Memento;
  log: Logger;
}): Promise<MigrationReport> {
  const { secrets, newTokenKey, memory, log } = deps;
  const report: MigrationReport = {
    settings: [],
    tokens: 0,
    movedTokenConnections: [],
    dropped: [],
  };
  // Read before the move: right after a settings write, the configuration this host sees
  // may still be the one before it (seen under load), so the moved list can lag.
  const legacyConnections = userConnections(LEGACY_SECTION);
  for (const scope of scopes()) {
    for (const key of LEGACY_SETTINGS) {
      try {
        await moveSetting(key, scope, report, log);
      } catch (error) {
        log.warn(`settings migration: ${key} (${scope.name}) failed: ${(error as Error).message}`);
      }
    }
  }
  // Settings are checked at every start (cheap, and Settings Sync may bring old ones back
  // from a machine with an older version); secret storage only until it has been done once.
  if (memory.get(TOKENS_MOVED_KEY) === true && !report.settings.length) return report;
  const seen = new Set<string>();
  for (const { id, url } of [...legacyConnections, ...userConnections(SECTION)]) {
    const oldKey = legacyTokenKey(id, url);
    if (seen.has(oldKey)) continue;
    seen.add(oldKey);
    const token = await secrets.get(oldKey);
    if (token === undefined) continue;
    const newKey = newTokenKey(id, url);
    if ((await secrets.get(newKey)) === undefined) {
      await secrets.store(newKey, token);
      report.tokens++;
      report.movedTokenConnections.push(id);
    }
    await secrets.delete(oldKey);
  }
  await memory.update(TOKENS_MOVED_KEY, true);
  if (report.settings.length || report.tokens || report.dropped.length) {
    log.info(
      `moved from agentSessions.* to sessionInspector.*: settings ${report.settings.join(', ') || 'none'}; ` +
        `${report.tokens} token(s)` +
        (report.dropped.length
          ? `; old values removed without copy: ${report.dropped.join(', ')}`
          : ''),
    );
  }
  return report;
}
