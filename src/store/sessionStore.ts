import { BackendError, isBackendError } from '../domain/errors.ts';
import type { DerivedStatus } from '../domain/derivedStatus.ts';
import type { SessionFilters } from '../domain/filters.ts';
import { validateFilters } from '../domain/filters.ts';
import { problemLogLine, summarizeProblems } from '../domain/problems.ts';
import type { SessionSummary } from '../domain/session.ts';
import type { Logger } from '../util/logger.ts';
import type {
  ConnectionConfig,
  SessionSource,
  SourceCapabilities,
  SourceProblem,
} from '../sources/sessionSource.ts';

export interface ConnectionState {
  readonly config: ConnectionConfig;
  sessions: SessionSummary[];
  total: number | undefined;
  next: string | undefined;
  invalidRows: number;
  /**
   * Where the server's paging repeated itself (listings such as an agent key): paging
   * there stopped, the rows read before it stay. Empty when paging behaved.
   */
  pagingRepeated: string[];
  loading: boolean;
  loadedOnce: boolean;
  /**
   * The rows are a saved copy the source shows while it checks them (SessionPage
   * provisional): the load that follows is treated as a first load (no "started waiting").
   */
  provisional: boolean;
  /** The last failure; the sessions from the last good load stay visible beside it. */
  error: BackendError | undefined;
  filters: SessionFilters;
  /** Every waiting session when the backend can list them apart from paging. */
  waiting: { sessions: SessionSummary[]; complete: boolean } | undefined;
  /** What the backend can do (from tools/list for MCP); known after the first load. */
  capabilities: SourceCapabilities | undefined;
  /**
   * Input the source could not read (bad lines, unreadable files), as of the last first-page
   * load; empty for sources that report none. Kept through filter changes: files, not rows.
   */
  problems: SourceProblem[];
}

/** Problems written to the log one by one when their summary changes; the rest are counted. */
const LOGGED_PROBLEMS = 1_000;

/** Where each connection's filters are remembered (globalState in the extension). */
export interface FilterMemory {
  get(connectionId: string): SessionFilters | undefined;
  set(connectionId: string, filters: SessionFilters): Thenable<void> | Promise<void>;
}

type Listener = (connectionId: string | undefined) => void;

/**
 * Holds what each connection has loaded, pages on request and keeps the last good
 * data through failures. Views subscribe to per-connection change events.
 */
export class SessionStore {
  private readonly states = new Map<string, ConnectionState>();
  private readonly sources = new Map<string, SessionSource>();
  private readonly listeners = new Set<Listener>();
  private readonly createSource: (config: ConnectionConfig) => SessionSource;
  private readonly log: Logger;
  private readonly pageSize: () => number;
  private readonly memory: FilterMemory | undefined;
  private readonly waitingListeners = new Set<(sessions: SessionSummary[]) => void>();
  /** Settles when the connection's load under way ends. */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(options: {
    createSource: (config: ConnectionConfig) => SessionSource;
    log: Logger;
    pageSize: () => number;
    filters?: FilterMemory;
  }) {
    this.createSource = options.createSource;
    this.log = options.log;
    this.pageSize = options.pageSize;
    this.memory = options.filters;
  }

  /** Fires with the sessions that started waiting since the previous load (never on the first). */
  onDidStartWaiting(listener: (sessions: SessionSummary[]) => void): { dispose(): void } {
    this.waitingListeners.add(listener);
    return { dispose: () => this.waitingListeners.delete(listener) };
  }

  async setFilters(connectionId: string, filters: SessionFilters): Promise<void> {
    const state = this.states.get(connectionId);
    if (!state) return;
    state.filters = filters;
    // Rows loaded under the old filters must not linger next to the new ones.
    Object.assign(state, {
      sessions: [],
      next: undefined,
      total: undefined,
      waiting: undefined,
      invalidRows: 0,
      pagingRepeated: [],
      loadedOnce: false,
      provisional: false,
    });
    await this.memory?.set(connectionId, filters);
    // A load under way asked with the old filters (its answer is dropped): reload after it.
    await this.inFlight.get(connectionId);
    await this.refresh(connectionId);
  }

  onDidChange(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Replaces the set of connections; sources of removed or changed ones are disposed. */
  setConnections(configs: readonly ConnectionConfig[]): void {
    const wanted = new Map(configs.map((c) => [c.id, c]));
    for (const [id, state] of this.states) {
      const next = wanted.get(id);
      if (!next || JSON.stringify(next) !== JSON.stringify(state.config)) this.drop(id);
    }
    for (const config of configs) {
      if (!this.states.has(config.id)) {
        this.states.set(config.id, emptyState(config, this.memory?.get(config.id) ?? {}));
      }
    }
    this.emit(undefined);
  }

  connections(): ConnectionState[] {
    return [...this.states.values()];
  }

  state(connectionId: string): ConnectionState | undefined {
    return this.states.get(connectionId);
  }

  source(connectionId: string): SessionSource | undefined {
    const state = this.states.get(connectionId);
    if (!state) return undefined;
    let source = this.sources.get(connectionId);
    if (!source) {
      source = this.createSource(state.config);
      this.sources.set(connectionId, source);
    }
    return source;
  }

  /** Loads the first page again (manual refresh, polling). */
  async refresh(connectionId: string): Promise<void> {
    await this.load(connectionId, undefined);
  }

  /**
   * Refreshes once any load under way has ended, so a change seen during that load is
   * not lost (refresh() alone does nothing while a load runs).
   */
  async refreshAfterCurrent(connectionId: string): Promise<void> {
    await this.inFlight.get(connectionId);
    await this.refresh(connectionId);
  }

  /**
   * What the waiting count needs and no more, for polling while the view is hidden: the
   * source's waiting list where it has one, else the first page. A connection never loaded
   * gets its first page (the tree would have asked for it), so the count has a base.
   */
  async refreshWaiting(connectionId: string): Promise<void> {
    const state = this.states.get(connectionId);
    const source = this.source(connectionId);
    if (!state || !source || state.loading) return;
    if (!state.loadedOnce || state.provisional || !source.listWaiting) {
      return this.refresh(connectionId);
    }
    state.loading = true;
    let settled = () => {};
    this.inFlight.set(connectionId, new Promise<void>((resolve) => (settled = resolve)));
    const filters = state.filters;
    const before = new Set(waitingOf(state).map((s) => s.id));
    try {
      const waiting = await source.listWaiting(filters);
      if (this.states.get(connectionId) !== state || state.filters !== filters) return;
      state.waiting = waitingOnce(waiting);
      state.error = undefined;
      this.notifyStarted(state, before);
    } catch (error) {
      this.recordError(state, error);
    } finally {
      this.finishLoad(connectionId, state, settled);
    }
  }

  async loadMore(connectionId: string): Promise<void> {
    const state = this.states.get(connectionId);
    if (state?.next !== undefined) await this.load(connectionId, state.next);
  }

  /** Forgets the client so the next load reconnects (after sign-in, URL change). */
  async reconnect(connectionId: string): Promise<void> {
    const source = this.sources.get(connectionId);
    this.sources.delete(connectionId);
    await source?.dispose();
    // A new client pages afresh.
    const state = this.states.get(connectionId);
    if (state) state.pagingRepeated = [];
    await this.refresh(connectionId);
  }

  /** Waiting sessions across connections: the complete list where the backend has one. */
  waiting(): SessionSummary[] {
    return this.connections().flatMap((s) => waitingOf(s).filter((x) => !this.notCounted(x)));
  }

  /** Waiting sessions the count leaves out because the user archived them. */
  waitingNotCounted(): number {
    return this.connections().flatMap((s) => waitingOf(s).filter((x) => this.notCounted(x))).length;
  }

  /**
   * Sessions the waiting count, its list and the "started waiting" notice leave out: the
   * ones the user archived ("not my concern"), see ArchiveStore.
   */
  setNotCounted(predicate: (session: SessionSummary) => boolean): void {
    this.notCounted = predicate;
  }

  private notCounted: (session: SessionSummary) => boolean = () => false;

  /** True when some count may be short: a failed load, or a backend that could not tell. */
  waitingIncomplete(): boolean {
    return this.connections().some(
      (s) =>
        s.error !== undefined ||
        s.waiting?.complete === false ||
        s.sessions.some((x) => x.waitingUnknown),
    );
  }

  groups(connectionId: string): Map<DerivedStatus, SessionSummary[]> {
    const state = this.states.get(connectionId);
    if (!state) return new Map();
    const groups = groupByStatus(state.sessions.filter((s) => s.status.status !== 'waiting'));
    const waiting = waitingOf(state);
    if (waiting.length) groups.set('waiting', waiting);
    return groups;
  }

  dispose(): void {
    for (const id of [...this.sources.keys()]) this.drop(id);
    this.listeners.clear();
  }

  private async load(connectionId: string, cursor: string | undefined): Promise<void> {
    const state = this.states.get(connectionId);
    const source = this.source(connectionId);
    if (!state || !source || state.loading) return;
    state.loading = true;
    let settled = () => {};
    this.inFlight.set(connectionId, new Promise<void>((resolve) => (settled = resolve)));
    this.emit(connectionId);
    const filters = state.filters;
    // Only a refresh can tell who started waiting: more pages only reveal older rows.
    const before =
      state.loadedOnce && !state.provisional && cursor === undefined
        ? new Set(waitingOf(state).map((s) => s.id))
        : undefined;
    try {
      const problem = validateFilters(state.filters);
      if (problem) throw new BackendError('invalidFilter', problem);
      const first = cursor === undefined;
      const loaded = first ? undefined : new Set(state.sessions.map((s) => s.id));
      const [page, waiting, capabilities, problems] = await Promise.all([
        source.listSessions({
          cursor,
          limit: this.pageSize(),
          filters: state.filters,
          ...(loaded ? { loaded } : {}),
        }),
        first && source.listWaiting
          ? source.listWaiting(state.filters)
          : Promise.resolve(state.waiting),
        state.capabilities ? Promise.resolve(state.capabilities) : source.capabilities(),
        first && source.listProblems ? this.loadProblems(state, source) : state.problems,
      ]);
      state.capabilities = capabilities;
      // Removed or refiltered meanwhile: this answer no longer applies.
      if (this.states.get(connectionId) !== state || state.filters !== filters) return;
      this.mergePage(state, page, cursor, loaded);
      state.invalidRows = first ? page.invalidRows : state.invalidRows + page.invalidRows;
      state.waiting = waitingOnce(waiting);
      this.setProblems(state, problems);
      state.error = undefined;
      state.loadedOnce = true;
      if (first) state.provisional = page.provisional === true;
      if (page.invalidRows > 0) {
        this.log.warn(`${state.config.label}: ${page.invalidRows} session rows failed validation`);
      }
      if (before) this.notifyStarted(state, before);
    } catch (error) {
      this.recordError(state, error);
    } finally {
      this.finishLoad(connectionId, state, settled);
    }
  }

  /**
   * A page into the state: a first page refreshes the rows, a later one adds to them; the
   * continuation is the page's, unless paging repeated itself or a refresh kept later rows.
   */
  private mergePage(
    state: ConnectionState,
    page: Awaited<ReturnType<SessionSource['listSessions']>>,
    cursor: string | undefined,
    loaded: ReadonlySet<string> | undefined,
  ): void {
    const first = cursor === undefined;
    // The same session twice in one answer: the first row stays.
    const incoming = firstById(page.sessions);
    const repeated = [...(page.pagingRepeated ?? [])];
    let pageNext = page.next;
    // Whatever the source checks: a Load more that answers with the continuation it was
    // given, or with nothing but sessions already loaded, would never end.
    if (
      !first &&
      pageNext !== undefined &&
      (pageNext === cursor || (incoming.length > 0 && incoming.every((s) => loaded?.has(s.id))))
    ) {
      repeated.push('session list');
      pageNext = undefined;
    }
    const previousNext = state.next;
    // Rows of a provisional listing are not kept past a checked one.
    const checkedBefore = state.loadedOnce && !state.provisional;
    state.sessions = first
      ? refreshFirstPage(state.sessions, incoming, checkedBefore)
      : mergeById(state.sessions, incoming);
    // A refresh kept rows of later pages: the paging they came from goes on where it was.
    const keptLater = first && checkedBefore && state.sessions.length > incoming.length;
    state.total = page.total;
    let next = pageNext;
    if (first && state.loadedOnce && state.pagingRepeated.length > 0) {
      // Paging that repeated itself stays stopped for this listing (until the filters
      // change or the connection reconnects): a poll must not bring the loop back.
      next = previousNext;
    } else if (keptLater) {
      if (pageNext !== undefined && isOffset(pageNext)) {
        // New rows at the top shift offsets: continue after what is loaded.
        next = String(Math.max(Number(pageNext), state.sessions.length));
      } else if (pageNext !== undefined) {
        // An opaque key (page_key) continues where the loaded rows end.
        next = previousNext;
      }
    }
    state.next = next;
    const newlyRepeated = repeated.filter((r) => !state.pagingRepeated.includes(r));
    state.pagingRepeated = unique([
      ...(first && !state.loadedOnce ? [] : state.pagingRepeated),
      ...repeated,
    ]);
    if (newlyRepeated.length) {
      this.log.warn(
        `${state.config.label}: the server's paging repeated itself (${newlyRepeated.join(', ')}); paging stopped with the ${state.sessions.length} sessions loaded`,
      );
    }
  }

  /** A failed load: the error the view shows, and a log line. */
  private recordError(state: ConnectionState, error: unknown): void {
    state.error = isBackendError(error)
      ? error
      : new BackendError('invalidResponse', String(error));
    this.log.warn(`${state.config.label}: ${state.error.kind}: ${state.error.message}`);
  }

  /** The end of a load whatever came of it: waiting callers released and the view told. */
  private finishLoad(connectionId: string, state: ConnectionState, settled: () => void): void {
    state.loading = false;
    this.inFlight.delete(connectionId);
    settled();
    this.emit(connectionId);
  }

  private notifyStarted(state: ConnectionState, before: ReadonlySet<string>): void {
    const started = waitingOf(state).filter((s) => !before.has(s.id) && !this.notCounted(s));
    if (started.length) for (const listener of this.waitingListeners) listener(started);
  }

  /** The source's problems; a failure to list them keeps the last list and is logged. */
  private async loadProblems(
    state: ConnectionState,
    source: SessionSource,
  ): Promise<SourceProblem[]> {
    try {
      return (await source.listProblems?.()) ?? [];
    } catch (error) {
      this.log.warn(`${state.config.label}: could not list problems: ${String(error)}`);
      return state.problems;
    }
  }

  /** Replaces the problems; logs a summary (counts per kind) and each problem when it changed. */
  private setProblems(state: ConnectionState, problems: SourceProblem[]): void {
    const before = summarizeProblems(state.problems);
    const after = summarizeProblems(problems);
    state.problems = problems;
    if (before === after) return;
    if (problems.length === 0) {
      this.log.info(`${state.config.label}: no problems in the input any more`);
      return;
    }
    this.log.warn(`${state.config.label}: ${after}`);
    for (const problem of problems.slice(0, LOGGED_PROBLEMS)) {
      this.log.info(`${state.config.label}: ${problemLogLine(problem)}`);
    }
    if (problems.length > LOGGED_PROBLEMS) {
      this.log.info(
        `${state.config.label}: ${problems.length - LOGGED_PROBLEMS} more problems not listed`,
      );
    }
  }

  private drop(id: string): void {
    this.states.delete(id);
    const source = this.sources.get(id);
    this.sources.delete(id);
    void source?.dispose();
  }

  private emit(connectionId: string | undefined): void {
    for (const listener of this.listeners) listener(connectionId);
  }
}

function emptyState(config: ConnectionConfig, filters: SessionFilters): ConnectionState {
  return {
    filters,
    waiting: undefined,
    capabilities: undefined,
    problems: [],
    config,
    sessions: [],
    total: undefined,
    next: undefined,
    invalidRows: 0,
    pagingRepeated: [],
    loading: false,
    loadedOnce: false,
    provisional: false,
    error: undefined,
  };
}

/** The waiting sessions of one connection: its complete list if it has one, else what is loaded. */
function waitingOf(state: ConnectionState): SessionSummary[] {
  return state.waiting?.sessions ?? state.sessions.filter((s) => s.status.status === 'waiting');
}

/**
 * A refreshed first page replaces its rows; rows of later pages the user already
 * loaded stay (updated on their next page load), so a poll never collapses the list.
 */
function refreshFirstPage(
  existing: SessionSummary[],
  firstPage: SessionSummary[],
  keepRest: boolean,
): SessionSummary[] {
  if (!keepRest) return firstPage;
  const fresh = new Set(firstPage.map((s) => s.id));
  return [...firstPage, ...existing.slice(firstPage.length).filter((s) => !fresh.has(s.id))];
}

function firstById(sessions: readonly SessionSummary[]): SessionSummary[] {
  const seen = new Set<string>();
  return sessions.filter((s) => !seen.has(s.id) && seen.add(s.id));
}

/** A waiting list with each session once (the badge counts them). */
function waitingOnce<T extends { sessions: SessionSummary[] } | undefined>(waiting: T): T {
  return waiting && { ...waiting, sessions: firstById(waiting.sessions) };
}

const isOffset = (cursor: string) => /^\d+$/.test(cursor);

const unique = (items: readonly string[]) => [...new Set(items)];

function mergeById(existing: SessionSummary[], incoming: SessionSummary[]): SessionSummary[] {
  const seen = new Set(existing.map((s) => s.id));
  return [...existing, ...incoming.filter((s) => !seen.has(s.id))];
}

export function groupByStatus(
  sessions: readonly SessionSummary[],
): Map<DerivedStatus, SessionSummary[]> {
  const groups = new Map<DerivedStatus, SessionSummary[]>();
  for (const session of sessions) {
    const list = groups.get(session.status.status);
    if (list) list.push(session);
    else groups.set(session.status.status, [session]);
  }
  return groups;
}
