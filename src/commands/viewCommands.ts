import * as vscode from 'vscode';
import { connectionIdOf } from './commandArgs.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import type { SessionsTreeProvider } from '../views/sessionsTree.ts';

/** Refresh, paging, grouping and the log: commands that only touch the store and the view. */
export function registerViewCommands(
  store: SessionStore,
  log: vscode.LogOutputChannel,
  tree: SessionsTreeProvider,
): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('sessionInspector.refresh', async (arg?: unknown) => {
      const id = connectionIdOf(arg);
      const ids = id ? [id] : store.connections().map((c) => c.config.id);
      // A load already under way (a poll, the tree's first load) may have asked before
      // what the user wants to see now: refresh after it rather than not at all.
      await Promise.all(ids.map((connectionId) => store.refreshAfterCurrent(connectionId)));
    }),
    vscode.commands.registerCommand('sessionInspector.loadMore', async (arg?: unknown) => {
      const id = connectionIdOf(arg);
      if (id) await store.loadMore(id);
    }),
    vscode.commands.registerCommand('sessionInspector.showLog', () => log.show()),
    vscode.commands.registerCommand('sessionInspector.groupByProject', () =>
      tree.setGroupBy('project'),
    ),
    vscode.commands.registerCommand('sessionInspector.groupByStatus', () =>
      tree.setGroupBy('status'),
    ),
  ];
}
