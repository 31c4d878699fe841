import * as vscode from 'vscode';
import {
  NO_FILTERS,
  dayStartMs,
  isUnfiltered,
  readFilters,
  regexProblem,
  type SearchFilters,
} from '../../domain/search/searchQuery.ts';
import type { KindFilter } from '../../domain/search/classifyMatch.ts';
import { plainSurfaceText, surfaceError } from '../../domain/surfaceText.ts';
import type { SessionSummary } from '../../domain/session.ts';
import type { SearchSummary, SessionHits } from '../../sources/search/sessionSearch.ts';
import type { SessionStore } from '../../store/sessionStore.ts';
import { showError } from '../../views/safeMessage.ts';
import { SearchResultsTree, summaryText, type SearchNode } from '../../views/searchResultsTree.ts';
import {
  SEARCH_VIEW,
  type SavedSearch,
  type SearchArgs,
  type SearchCommandDeps,
} from '../searchCommands.ts';

const LAST_SEARCH_KEY = 'search/last';

/** What the search commands do: the search under way, its results tree, the prompts. */
export class SearchController {
  readonly tree = new SearchResultsTree();
  private running:
    | { cancel: vscode.CancellationTokenSource; done: Promise<SearchSummary | undefined> }
    | undefined;
  private readonly deps: SearchCommandDeps;

  constructor(deps: SearchCommandDeps) {
    this.deps = deps;
  }

  /** Search Sessions…: the prompt (or the arguments given), then the search. */
  async searchSessions(arg?: unknown): Promise<SearchSummary | undefined> {
    let search: SavedSearch | undefined;
    if (isSearchArgs(arg)) {
      search = {
        text: arg.query,
        regex: arg.regex ?? false,
        caseSensitive: arg.caseSensitive ?? false,
        filters: readFilters({ ...NO_FILTERS, ...arg.filters }),
      };
    } else {
      search = await promptSearch(this.deps, lastSearch(this.deps.memory));
    }
    if (!search || !search.text) return undefined;
    await this.deps.memory.update(LAST_SEARCH_KEY, search);
    return this.run(search);
  }

  /** Search Filters…: edits the remembered search's filters. */
  async editSavedFilters(): Promise<void> {
    const last = lastSearch(this.deps.memory);
    const filters = await editFilters(this.deps.store, last.filters);
    if (filters) await this.deps.memory.update(LAST_SEARCH_KEY, { ...last, filters });
  }

  cancel(): void {
    this.running?.cancel.cancel();
  }

  clear(): void {
    this.cancel();
    this.tree.clear();
    this.deps.view.message = undefined;
    void vscode.commands.executeCommand('setContext', 'sessionInspector.hasSearchResults', false);
  }

  async openResult(node?: SearchNode): Promise<void> {
    if (!node || node.kind !== 'hit') return;
    const search = lastSearch(this.deps.memory);
    const session = freshSession(this.deps.store, node.results.target.session);
    await this.deps.openMatch({
      session,
      line: node.hit.line,
      text: node.hit.text,
      caseSensitive: search.caseSensitive,
    });
  }

  /** Resolves when the search running now (if any) ends. */
  async idle(): Promise<SearchSummary | undefined> {
    return this.running?.done;
  }

  private async run(search: SavedSearch): Promise<SearchSummary | undefined> {
    this.running?.cancel.cancel();
    await this.running?.done.catch(() => undefined);
    const cancel = new vscode.CancellationTokenSource();
    const done = execute(this.deps, this.tree, search, cancel.token);
    this.running = { cancel, done };
    setSearching(true);
    try {
      return await done;
    } finally {
      if (this.running?.done === done) {
        this.running = undefined;
        setSearching(false);
      }
      cancel.dispose();
    }
  }
}

const setSearching = (on: boolean) =>
  void vscode.commands.executeCommand('setContext', 'sessionInspector.searching', on);

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
  tree: SearchResultsTree,
  search: SavedSearch,
  token: vscode.CancellationToken,
): Promise<SearchSummary | undefined> {
  const generation = tree.start();
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
            onHits: (update: SessionHits) => tree.update(generation, update),
            onProgress: ({ filesDone, filesTotal }) => {
              const pct = filesTotal ? (filesDone / filesTotal) * 100 : 100;
              progress.report({ increment: pct - reported });
              reported = pct;
            },
          });
          tree.flush();
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
    tree.flush();
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
    const filters = await editFilters(deps.store, state.filters);
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

type FilterEdit = 'harness' | 'project' | 'dates' | 'kind' | 'clear' | 'done';
type FilterPick = vscode.QuickPickItem & { edit: FilterEdit };

/** The filters, one pick per filter; returns the edited filters (undefined: left unchanged). */
async function editFilters(
  store: SessionStore,
  start: SearchFilters,
): Promise<SearchFilters | undefined> {
  let filters = { ...start };
  for (;;) {
    const picked = await vscode.window.showQuickPick(filterPicks(filters), {
      title: vscode.l10n.t('Search Filters'),
      placeHolder: vscode.l10n.t('Pick a filter to change'),
    });
    if (!picked) return undefined;
    if (picked.edit === 'done') return filters;
    filters = await editFilter(store, filters, picked.edit);
  }
}

/** One row per filter with its current value, then Clear and Done. */
function filterPicks(filters: SearchFilters): FilterPick[] {
  const all = vscode.l10n.t('All');
  return [
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
}

/** Asks for one filter's new value; the filters unchanged when the question is dismissed. */
async function editFilter(
  store: SessionStore,
  filters: SearchFilters,
  edit: Exclude<FilterEdit, 'done'>,
): Promise<SearchFilters> {
  switch (edit) {
    case 'clear':
      return { ...NO_FILTERS };
    case 'kind':
      return pickKind(filters);
    case 'harness':
    case 'project':
      return pickValues(store, filters, edit);
    case 'dates':
      return askDates(filters);
  }
}

async function pickKind(filters: SearchFilters): Promise<SearchFilters> {
  const kinds = (['all', 'user', 'assistant', 'tool'] as const).map(
    (kind): vscode.QuickPickItem & { value: KindFilter } => ({
      label: kindFilterLabel(kind),
      value: kind,
      picked: kind === filters.kind,
    }),
  );
  const kind = await vscode.window.showQuickPick(kinds, { title: vscode.l10n.t('Entry kind') });
  return kind ? { ...filters, kind: kind.value } : filters;
}

/** Harnesses or projects, several at once, from those of the loaded sessions. */
async function pickValues(
  store: SessionStore,
  filters: SearchFilters,
  which: 'harness' | 'project',
): Promise<SearchFilters> {
  const values = knownValues(store, which);
  const chosen = which === 'harness' ? filters.harnesses : filters.projects;
  for (const v of chosen) if (!values.includes(v)) values.push(v);
  const selected = await vscode.window.showQuickPick(
    values.map((value) => ({
      label: plainSurfaceText(value, { maxLength: 200, breakUrls: true }),
      value,
      picked: chosen.includes(value),
    })),
    {
      title: which === 'harness' ? vscode.l10n.t('Harnesses') : vscode.l10n.t('Projects'),
      placeHolder: vscode.l10n.t('None checked: all'),
      canPickMany: true,
    },
  );
  if (!selected) return filters;
  const list = selected.map((s) => s.value);
  return which === 'harness' ? { ...filters, harnesses: list } : { ...filters, projects: list };
}

async function askDates(filters: SearchFilters): Promise<SearchFilters> {
  const range = await vscode.window.showInputBox({
    title: vscode.l10n.t('Dates'),
    prompt: vscode.l10n.t(
      'From and to as YYYY-MM-DD..YYYY-MM-DD (either side may be empty); empty: any date',
    ),
    value: filters.from || filters.to ? `${filters.from ?? ''}..${filters.to ?? ''}` : '',
    validateInput: (value) =>
      parseRange(value) ? undefined : vscode.l10n.t('Use YYYY-MM-DD..YYYY-MM-DD'),
  });
  if (range === undefined) return filters;
  const parsed = parseRange(range)!;
  const next = { ...filters };
  delete next.from;
  delete next.to;
  if (parsed.from) next.from = parsed.from;
  if (parsed.to) next.to = parsed.to;
  return next;
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
