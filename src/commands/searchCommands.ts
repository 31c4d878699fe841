import * as vscode from 'vscode';
import type { SearchFilters, SearchQuery } from '../domain/search/searchQuery.ts';
import type { SessionSummary } from '../domain/session.ts';
import type { SourceAdapters } from '../sources/sourceFactory.ts';
import type { SearchSummary } from '../sources/search/sessionSearch.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import type { Logger } from '../util/logger.ts';
import {
  OPEN_SEARCH_RESULT,
  type SearchNode,
  type SearchResultsTree,
} from '../views/searchResultsTree.ts';
import type { SearchController } from './bodies/search.ts';
import type { CommandBodies } from './lazyBodies.ts';

export const SEARCH_VIEW = 'sessionInspector.searchResults';

/** What the last search asked, remembered across windows and reloads. */
export interface SavedSearch extends SearchQuery {
  filters: SearchFilters;
}

/** Where a search result should open: the session, its line and the text to mark. */
export interface SearchMatchTarget {
  session: SessionSummary;
  line: number;
  text: string;
  caseSensitive: boolean;
}

/** What an integration test (or another command) can pass to skip the prompts. */
export interface SearchArgs {
  query: string;
  regex?: boolean;
  caseSensitive?: boolean;
  filters?: Partial<SearchFilters>;
}

export interface SearchCommandDeps {
  store: SessionStore;
  view: vscode.TreeView<SearchNode>;
  memory: vscode.Memento;
  adapters: () => SourceAdapters;
  storageDir: string;
  log: Logger;
  /** Opens the session's panel at the match's entry, with the match highlighted. */
  openMatch: (target: SearchMatchTarget) => void | Promise<void>;
}

/**
 * The Search Results view's data at activation: empty until the first search loads the
 * real tree with the command bodies (dist/commands.cjs), then that tree's rows and events.
 */
export class SearchResultsView implements vscode.TreeDataProvider<SearchNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SearchNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private tree: SearchResultsTree | undefined;
  private forwarding: vscode.Disposable | undefined;

  attach(tree: SearchResultsTree): void {
    this.tree = tree;
    this.forwarding = tree.onDidChangeTreeData((node) => this.changed.fire(node));
    this.changed.fire(undefined);
  }

  getChildren(node?: SearchNode): SearchNode[] {
    return this.tree?.getChildren(node) ?? [];
  }

  getParent(node: SearchNode): SearchNode | undefined {
    return this.tree?.getParent(node);
  }

  getTreeItem(node: SearchNode): vscode.TreeItem {
    // Every node came from the attached tree.
    return this.tree!.getTreeItem(node);
  }

  dispose(): void {
    this.forwarding?.dispose();
    this.tree?.dispose();
    this.changed.dispose();
  }
}

/**
 * Search Sessions…, its filters, cancel, clear, and opening a result. The ids are
 * registered now; what they do is read from dist/commands.cjs when one is first run.
 */
export function registerSearchCommands(
  deps: SearchCommandDeps & { results: SearchResultsView; bodies: () => CommandBodies },
): {
  disposables: vscode.Disposable[];
  /** Resolves when the search running now (if any) ends (integration tests). */
  idle: () => Promise<SearchSummary | undefined>;
} {
  let loaded: SearchController | undefined;
  const search = () => {
    if (!loaded) {
      loaded = deps.bodies().createSearchController(deps);
      deps.results.attach(loaded.tree);
    }
    return loaded;
  };
  const register = vscode.commands.registerCommand;
  const disposables = [
    register('sessionInspector.searchSessions', (arg?: unknown) => search().searchSessions(arg)),
    register('sessionInspector.searchFilters', () => search().editSavedFilters()),
    register('sessionInspector.cancelSearch', () => loaded?.cancel()),
    register('sessionInspector.clearSearchResults', () => search().clear()),
    register(OPEN_SEARCH_RESULT, (node?: SearchNode) => search().openResult(node)),
  ];
  return { disposables, idle: async () => loaded?.idle() };
}
