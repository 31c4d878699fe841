import * as vscode from 'vscode';
import {
  NO_FILTERS,
  dayStartMs,
  isUnfiltered,
  readFilters,
  regexProblem,
  type SearchFilters,
  type SearchQuery,
} from '../domain/search/searchQuery.ts';
import type { KindFilter } from '../domain/search/classifyMatch.ts';
import { plainSurfaceText, surfaceError } from '../domain/surfaceText.ts';
import type { SessionSummary } from '../domain/session.ts';
import type { SourceAdapters } from '../sources/sourceFactory.ts';
import type { SearchSummary, SessionHits } from '../sources/search/sessionSearch.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import type { Logger } from '../util/logger.ts';
import { showError } from '../views/safeMessage.ts';
import {
  OPEN_SEARCH_RESULT,
  summaryText,
  type SearchNode,
  type SearchResultsTree,
} from '../views/searchResultsTree.ts';

export const SEARCH_VIEW = 'sessionInspector.searchResults';
const LAST_SEARCH_KEY = 'search/last';

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

export interface SearchCommandDeps {
  store: SessionStore;
  tree: SearchResultsTree;
  view: vscode.TreeView<SearchNode>;
  memory: vscode.Memento;
  adapters: () => SourceAdapters;
  storageDir: string;
  log: Logger;
  /** Opens the session's panel at the match's entry, with the match highlighted. */
  openMatch: (target: SearchMatchTarget) => void | Promise<void>;
}

/** What an integration test (or another command) can pass to skip the prompts. */
export interface SearchArgs {
  query: string;
  regex?: boolean;
  caseSensitive?: boolean;
  filters?: Partial<SearchFilters>;
}

/** Search Sessions…, its filters, cancel, clear, and opening a result. */
export function registerSearchCommands(deps: SearchCommandDeps): {
  disposables: vscode.Disposable[];
  /** Resolves when the search running now (if any) ends (integration tests). */
  idle: () => Promise<SearchSummary | undefined>;
} {
  let running:
    | { cancel: vscode.CancellationTokenSource; done: Promise<SearchSummary | undefined> }
    | undefined;
  const setSearching = (on: boolean) =>
    void vscode.commands.executeCommand('setContext', 'sessionInspector.searching', on);

  const run = async (search: SavedSearch): Promise<SearchSummary | undefined> => {
    running?.cancel.cancel();
    await running?.done.catch(() => undefined);
    const cancel = new vscode.CancellationTokenSource();
    const done = execute(deps, search, cancel.token);
    running = { cancel, done };
    setSearching(true);
    try {
      return await done;
    } finally {
      if (running?.done === done) {
        running = undefined;
        setSearching(false);
      }
      cancel.dispose();
    }
  };

  const disposables = [
    vscode.commands.registerCommand('sessionInspector.searchSessions', async (arg?: unknown) => {
      const last = lastSearch(deps.memory);
      let search: SavedSearch | undefined;
      if (isSearchArgs(arg)) {
        search = {
          text: arg.query,
          regex: arg.regex ?? false,
          caseSensitive: arg.caseSensitive ?? false,
          filters: readFilters({ ...NO_FILTERS, ...arg.filters }),
        };
      } else {
        search = await promptSearch(deps, last);
      }
      if (!search || !search.text) return undefined;
      await deps.memory.update(LAST_SEARCH_KEY, search);
      return run(search);
    }),
    vscode.commands.registerCommand('sessionInspector.searchFilters', async () => {
      const last = lastSearch(deps.memory);
      const filters = await editFilters(deps, last.filters);
      if (filters) await deps.memory.update(LAST_SEARCH_KEY, { ...last, filters });
    }),
    vscode.commands.registerCommand('sessionInspector.cancelSearch', () =>
      running?.cancel.cancel(),
    ),
    vscode.commands.registerCommand('sessionInspector.clearSearchResults', () => {
      running?.cancel.cancel();
      deps.tree.clear();
      deps.view.message = undefined;
      void vscode.commands.executeCommand('setContext', 'sessionInspector.hasSearchResults', false);
    }),
    vscode.commands.registerCommand(OPEN_SEARCH_RESULT, async (node?: SearchNode) => {
      if (!node || node.kind !== 'hit') return;
      const search = lastSearch(deps.memory);
      const session = freshSession(deps.store, node.results.target.session);
      await deps.openMatch({
        session,
        line: node.hit.line,
        text: node.hit.text,
        caseSensitive: search.caseSensitive,
      });
    }),
  ];
  return { disposables, idle: async () => running?.done };
}

/** The store's current row for the session when it has one (fresher status and label). */
function freshSession(store: SessionStore, session: SessionSummary): SessionSummary {
  return store.state(session.connectionId)?.sessions.find((s) => s.id === session.id) ?? session;
}

function isSearchArgs(arg: unknown): arg is SearchArgs {
  return typeof arg === 'object' && arg !== null && typeof (arg as SearchArgs).query === 'string';
}

function lastSearch(memory: vscode.Memento): SavedSearch {
  const raw = memory.get<Partial<SavedSearch>>(LAST_SEARCH_KEY) ?? {};
  return {
    text: typeof raw.text === 'string' ? raw.text : '',
    regex: raw.regex === true,
    caseSensitive: raw.caseSensitive === true,
    filters: readFilters(raw.filters),
  };
}

async function execute(
  deps: SearchCommandDeps,
  search: SavedSearch,
  token: vscode.CancellationToken,
): Promise<SearchSummary | undefined> {
  const generation = deps.tree.start();
  deps.view.message = vscode.l10n.t('Searching…');
  void vscode.commands.executeCommand('setContext', 'sessionInspector.hasSearchResults', true);
  void vscode.commands.executeCommand(`${SEARCH_VIEW}.focus`);
  const controller = new AbortController();
  const sub = token.onCancellationRequested(() => controller.abort());
  try {
    return await vscode.window.withProgress(
      { location: { viewId: SEARCH_VIEW }, cancellable: true },
      async (progress, progressToken) => {
        const sub2 = progressToken.onCancellationRequested(() => controller.abort());
        try {
          const adapters = deps.adapters();
          const connections = deps.store.connections().map((c) => ({
            connectionId: c.config.id,
            source: deps.store.source(c.config.id),
            sessions: c.sessions,
          }));
          const targets = await adapters.collectSearchTargets({
            connections,
            storageDir: deps.storageDir,
            signal: controller.signal,
          });
          const rg = adapters.findRipgrep(vscode.env.appRoot);
          if (!rg)
            deps.log.info("Search: no ripgrep under VS Code's appRoot; using the Node scanner");
          let reported = 0;
          const summary = await adapters.searchSessions({
            targets,
            query: search,
            filters: search.filters,
            ...(rg && { rg }),
            signal: controller.signal,
            onHits: (update: SessionHits) => deps.tree.update(generation, update),
            onProgress: ({ filesDone, filesTotal }) => {
              const pct = filesTotal ? (filesDone / filesTotal) * 100 : 100;
              progress.report({ increment: pct - reported });
              reported = pct;
            },
          });
          deps.tree.flush();
          deps.view.message = summaryText(summary, search.text);
          deps.log.info(
            `Search: ${summary.results} results in ${summary.sessions} sessions, ${summary.files} files, ` +
              `${summary.engine}, first result ${summary.firstResultMs?.toFixed(0) ?? '-'} ms`,
          );
          return summary;
        } finally {
          sub2.dispose();
        }
      },
    );
  } catch (error) {
    deps.tree.flush();
    deps.view.message = vscode.l10n.t('The search failed: {0}', surfaceError(error));
    void showError(vscode.l10n.t('The search failed: {0}', surfaceError(error)));
    return undefined;
  } finally {
    sub.dispose();
  }
}

/**
 * The query box: the last query selected, toggles for match case and regex in its title
 * bar (the prompt line says which are on, with the filters), and a button that edits the
 * filters (then comes back here).
 */
async function promptSearch(
  deps: SearchCommandDeps,
  last: SavedSearch,
): Promise<SavedSearch | undefined> {
  let state = { ...last };
  for (;;) {
    const result = await new Promise<'filters' | 'cancel' | SavedSearch>((resolve) => {
      const box = vscode.window.createInputBox();
      box.title = vscode.l10n.t('Search Sessions');
      box.value = state.text;
      box.valueSelection = [0, state.text.length];
      box.placeholder = vscode.l10n.t('Text to find in every local and downloaded transcript');
      const render = () => {
        box.prompt = describeFilters(state);
        box.buttons = [
          {
            iconPath: new vscode.ThemeIcon('case-sensitive'),
            tooltip: state.caseSensitive
              ? vscode.l10n.t('Match Case: on')
              : vscode.l10n.t('Match Case: off'),
          },
          {
            iconPath: new vscode.ThemeIcon('regex'),
            tooltip: state.regex
              ? vscode.l10n.t('Use Regular Expression: on')
              : vscode.l10n.t('Use Regular Expression: off'),
          },
          { iconPath: new vscode.ThemeIcon('filter'), tooltip: vscode.l10n.t('Filters…') },
        ];
        box.validationMessage = regexProblem({ ...state, text: box.value });
      };
      render();
      let settled = false;
      const finish = (value: 'filters' | 'cancel' | SavedSearch) => {
        if (settled) return;
        settled = true;
        resolve(value);
        box.dispose();
      };
      box.onDidChangeValue((value) => {
        state = { ...state, text: value };
        box.validationMessage = regexProblem(state);
      });
      box.onDidTriggerButton((button) => {
        const index = box.buttons.indexOf(button);
        if (index === 0) state = { ...state, caseSensitive: !state.caseSensitive };
        else if (index === 1) state = { ...state, regex: !state.regex };
        else return finish('filters');
        render();
      });
      box.onDidAccept(() => {
        if (!box.value || regexProblem(state)) return;
        finish({ ...state, text: box.value });
      });
      box.onDidHide(() => finish('cancel'));
      box.show();
    });
    if (result === 'cancel') return undefined;
    if (result !== 'filters') return result;
    const filters = await editFilters(deps, state.filters);
    if (filters) state = { ...state, filters };
  }
}

function describeFilters(search: SavedSearch): string {
  const mode = [
    search.regex ? vscode.l10n.t('regex') : vscode.l10n.t('text'),
    search.caseSensitive ? vscode.l10n.t('match case') : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  const f = search.filters;
  if (isUnfiltered(f)) return vscode.l10n.t('{0} · all sessions, all entries', mode);
  const parts = [
    f.harnesses.length ? f.harnesses.join(', ') : undefined,
    f.projects.length ? f.projects.map((p) => p.split(/[\\/]/).pop()).join(', ') : undefined,
    f.from || f.to ? `${f.from ?? '…'} – ${f.to ?? '…'}` : undefined,
    f.kind !== 'all' ? kindFilterLabel(f.kind) : undefined,
  ].filter(Boolean);
  return plainSurfaceText(`${mode} · ${parts.join(' · ')}`, { maxLength: 300 });
}

function kindFilterLabel(kind: KindFilter): string {
  switch (kind) {
    case 'all':
      return vscode.l10n.t('All entries');
    case 'user':
      return vscode.l10n.t('User messages');
    case 'assistant':
      return vscode.l10n.t('Assistant messages and thinking');
    case 'tool':
      return vscode.l10n.t('Tool calls and their output');
  }
}

type FilterPick = vscode.QuickPickItem & {
  edit: 'harness' | 'project' | 'dates' | 'kind' | 'clear' | 'done';
};

/** The filters, one pick per filter; returns the edited filters (undefined: left unchanged). */
async function editFilters(
  deps: SearchCommandDeps,
  start: SearchFilters,
): Promise<SearchFilters | undefined> {
  let filters = { ...start };
  const all = vscode.l10n.t('All');
  for (;;) {
    const items: FilterPick[] = [
      {
        label: vscode.l10n.t('Harness'),
        description: filters.harnesses.join(', ') || all,
        edit: 'harness',
      },
      {
        label: vscode.l10n.t('Project'),
        description:
          plainSurfaceText(filters.projects.join(', '), { maxLength: 200, breakUrls: true }) || all,
        edit: 'project',
      },
      {
        label: vscode.l10n.t('Dates'),
        description:
          filters.from || filters.to ? `${filters.from ?? '…'} – ${filters.to ?? '…'}` : all,
        edit: 'dates',
      },
      {
        label: vscode.l10n.t('Entry kind'),
        description: kindFilterLabel(filters.kind),
        edit: 'kind',
      },
      { label: vscode.l10n.t('Clear all filters'), edit: 'clear' },
      { label: vscode.l10n.t('Done'), edit: 'done' },
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: vscode.l10n.t('Search Filters'),
      placeHolder: vscode.l10n.t('Pick a filter to change'),
    });
    if (!picked) return undefined;
    switch (picked.edit) {
      case 'done':
        return filters;
      case 'clear':
        filters = { ...NO_FILTERS };
        break;
      case 'kind': {
        const kinds = (['all', 'user', 'assistant', 'tool'] as const).map(
          (kind): vscode.QuickPickItem & { value: KindFilter } => ({
            label: kindFilterLabel(kind),
            value: kind,
            picked: kind === filters.kind,
          }),
        );
        const kind = await vscode.window.showQuickPick(kinds, {
          title: vscode.l10n.t('Entry kind'),
        });
        if (kind) filters = { ...filters, kind: kind.value };
        break;
      }
      case 'harness':
      case 'project': {
        const values = knownValues(deps.store, picked.edit);
        const chosen = picked.edit === 'harness' ? filters.harnesses : filters.projects;
        for (const v of chosen) if (!values.includes(v)) values.push(v);
        const selected = await vscode.window.showQuickPick(
          values.map((value) => ({
            label: plainSurfaceText(value, { maxLength: 200, breakUrls: true }),
            value,
            picked: chosen.includes(value),
          })),
          {
            title:
              picked.edit === 'harness' ? vscode.l10n.t('Harnesses') : vscode.l10n.t('Projects'),
            placeHolder: vscode.l10n.t('None checked: all'),
            canPickMany: true,
          },
        );
        if (selected) {
          const list = selected.map((s) => s.value);
          filters =
            picked.edit === 'harness'
              ? { ...filters, harnesses: list }
              : { ...filters, projects: list };
        }
        break;
      }
      case 'dates': {
        const range = await vscode.window.showInputBox({
          title: vscode.l10n.t('Dates'),
          prompt: vscode.l10n.t(
            'From and to as YYYY-MM-DD..YYYY-MM-DD (either side may be empty); empty: any date',
          ),
          value: filters.from || filters.to ? `${filters.from ?? ''}..${filters.to ?? ''}` : '',
          validateInput: (value) =>
            parseRange(value) ? undefined : vscode.l10n.t('Use YYYY-MM-DD..YYYY-MM-DD'),
        });
        if (range === undefined) break;
        const parsed = parseRange(range)!;
        filters = { ...filters };
        delete filters.from;
        delete filters.to;
        if (parsed.from) filters.from = parsed.from;
        if (parsed.to) filters.to = parsed.to;
        break;
      }
    }
  }
}

/** `from..to`, a single day, or empty. Undefined when malformed. */
export function parseRange(value: string): { from?: string; to?: string } | undefined {
  const text = value.trim();
  if (!text) return {};
  const [a = '', b] = text.includes('..') ? text.split('..') : [text, text];
  const from = a.trim();
  const to = (b ?? '').trim();
  if (from && dayStartMs(from) === undefined) return undefined;
  if (to && dayStartMs(to) === undefined) return undefined;
  if (from && to && from > to) return undefined;
  return { ...(from && { from }), ...(to && { to }) };
}

/** Harnesses or projects of the sessions the store has loaded, for the filter picks. */
function knownValues(store: SessionStore, which: 'harness' | 'project'): string[] {
  const values = new Set<string>();
  if (which === 'harness') {
    values.add('claude-code');
    values.add('codex');
  }
  for (const c of store.connections())
    for (const s of c.sessions) {
      const v = which === 'harness' ? s.harness : (s.project ?? s.repository);
      if (v) values.add(v);
    }
  return [...values].sort();
}
