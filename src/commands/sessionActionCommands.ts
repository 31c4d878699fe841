import * as vscode from 'vscode';
import type { ArchiveStore } from '../store/archiveStore.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import type { SessionsTreeProvider } from '../views/sessionsTree.ts';
import type { CommandBodies } from './lazyBodies.ts';

export interface SessionActionDeps {
  store: SessionStore;
  tree: SessionsTreeProvider;
  archive: ArchiveStore;
}

/** Options of Archive Session (the integration test answers the question this way). */
export interface ArchiveOptions {
  /** Also finish a remote session through session_complete (the Complete command). */
  complete?: boolean;
}

/** The commands that act on one session (bodies/sessionActions.ts). */
const SESSION_ACTIONS = [
  'sessionInspector.copySessionId',
  'sessionInspector.copyResumeCommand',
  'sessionInspector.copyLink',
  'sessionInspector.archiveSession',
  'sessionInspector.unarchiveSession',
] as const;
export type SessionActionId = (typeof SESSION_ACTIONS)[number];

/**
 * Copy Session ID / Resume Command / Link, and Archive (mark done) / Unarchive with the
 * view's Show Archived toggle: from a session row, the session panel or the palette. What
 * the session actions do is read from dist/commands.cjs on first use.
 */
export function registerSessionActionCommands(
  deps: SessionActionDeps & { bodies: () => CommandBodies },
): vscode.Disposable[] {
  return [
    ...SESSION_ACTIONS.map((id) =>
      vscode.commands.registerCommand(id, (arg?: unknown, ...rest: unknown[]) =>
        deps.bodies().runSessionAction(deps, id, arg, ...rest),
      ),
    ),
    vscode.commands.registerCommand('sessionInspector.showArchived', () =>
      deps.tree.setShowArchived(true),
    ),
    vscode.commands.registerCommand('sessionInspector.hideArchived', () =>
      deps.tree.setShowArchived(false),
    ),
  ];
}
