import * as vscode from 'vscode';
import type { SessionSummary } from '../domain/session.ts';
import type { SourceAdapters } from '../sources/sourceFactory.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import type { Logger } from '../util/logger.ts';
import type { ChangesController } from './bodies/changes.ts';
import type { CommandBodies } from './lazyBodies.ts';

/** Read-only virtual documents: a changed file's text before and after the session. */
export const CHANGE_SCHEME = 'session-inspector-change';
export const SHOW_CHANGES_COMMAND = 'sessionInspector.showChanges';
/** Internal (the session panel's Changes tab): the list, one file's diff, workspace comparisons. */
export const LIST_CHANGES_COMMAND = 'sessionInspector.changes.list';
export const OPEN_CHANGE_COMMAND = 'sessionInspector.changes.open';
export const COMPARE_CHANGES_COMMAND = 'sessionInspector.changes.compareWithWorkspace';

export interface ChangesDeps {
  store: SessionStore;
  adapters: () => SourceAdapters;
  storageDir: string;
  log: Logger;
}

/**
 * Show Changes, the Changes tab's commands and the `session-inspector-change:` documents
 * (a diff restored after a reload asks for its text): registered now, their bodies read
 * from dist/commands.cjs on first use.
 */
export function registerChangesCommands(
  deps: ChangesDeps & { bodies: () => CommandBodies },
): vscode.Disposable[] {
  let loaded: ChangesController | undefined;
  const changes = () => (loaded ??= deps.bodies().createChangesController(deps));
  const register = vscode.commands.registerCommand;
  return [
    vscode.workspace.registerTextDocumentContentProvider(CHANGE_SCHEME, {
      provideTextDocumentContent: (uri) => changes().documents.provideTextDocumentContent(uri),
    }),
    register(SHOW_CHANGES_COMMAND, (arg?: unknown) => changes().show(arg)),
    register(LIST_CHANGES_COMMAND, (session: SessionSummary) => changes().list(session)),
    register(OPEN_CHANGE_COMMAND, (session: SessionSummary, index?: number) =>
      changes().open(session, index),
    ),
    register(COMPARE_CHANGES_COMMAND, (session: SessionSummary, index?: number) =>
      changes().compareWithWorkspace(session, index),
    ),
  ];
}
