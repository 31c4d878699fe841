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
  loading: boolean;
  loadedOnce: boolean;
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
      loadedOnce: false,
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
    if (!state.loadedOnce || !source.listWaiting) return this.refresh(connectionId);
    state.loading = true;
    let settled = () => {};
    this.inFlight.set(connectionId, new Promise<void>((resolve) => (settled = resolve)));
    const filters = state.filters;
    const before = new Set(waitingOf(state).map((s) => s.id));
    try {
      const waiting = await source.listWaiting(filters);
      if (this.states.get(connectionId) !== state || state.filters !== filters) return;
      state.waiting = waiting;
      state.error = undefined;
      this.notifyStarted(state, before);
    } catch (error) {
      state.error = isBackendError(error)
        ? error
        : new BackendError('invalidResponse', String(error));
      this.log.warn(`${state.config.label}: ${state.error.kind}: ${state.error.message}`);
    } finally {
      state.loading = false;
      this.inFlight.delete(connectionId);
      settled();
      this.emit(connectionId);
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
    await this.refresh(connectionId);
  }

  /** Waiting sessions across connections: the complete list where the backend has one. */
  waiting(): SessionSummary[] {
    return this.connections().flatMap((s) => waitingOf(s));
  }

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
      state.loadedOnce && cursor === undefined
        ? new Set(waitingOf(state).map((s) => s.id))
        : undefined;
    try {
      const problem = validateFilters(state.filters);
      if (problem) throw new BackendError('invalidFilter', problem);
      const first = cursor === undefined;
      const [page, waiting, capabilities, problems] = await Promise.all([
        source.listSessions({ cursor, limit: this.pageSize(), filters: state.filters }),
        first && source.listWaiting
          ? source.listWaiting(state.filters)
          : Promise.resolve(state.waiting),
        state.capabilities ? Promise.resolve(state.capabilities) : source.capabilities(),
        first && source.listProblems ? this.loadProblems(state, source) : state.problems,
      ]);
      state.capabilities = capabilities;
      // Removed or refiltered meanwhile: this answer no longer applies.
      if (this.states.get(connectionId) !== state || state.filters !== filters) return;
      state.sessions = first
        ? refreshFirstPage(state.sessions, page.sessions, state.loadedOnce)
        : mergeById(state.sessions, page.sessions);
      state.total = page.total;
      // After a refresh, paging continues after what is already loaded.
      state.next =
        first && state.loadedOnce && state.sessions.length > page.sessions.length
          ? page.next === undefined
            ? undefined
            : String(Math.max(Number(page.next) || 0, state.sessions.length))
          : page.next;
      state.invalidRows = first ? page.invalidRows : state.invalidRows + page.invalidRows;
      state.waiting = waiting;
      this.setProblems(state, problems);
      state.error = undefined;
      state.loadedOnce = true;
      if (page.invalidRows > 0) {
        this.log.warn(`${state.config.label}: ${page.invalidRows} session rows failed validation`);
      }
      if (before) this.notifyStarted(state, before);
    } catch (error) {
      state.error = isBackendError(error)
        ? error
        : new BackendError('invalidResponse', String(error));
      this.log.warn(`${state.config.label}: ${state.error.kind}: ${state.error.message}`);
    } finally {
      state.loading = false;
      this.inFlight.delete(connectionId);
      settled();
      this.emit(connectionId);
    }
  }

  private notifyStarted(state: ConnectionState, before: ReadonlySet<string>): void {
    const started = waitingOf(state).filter((s) => !before.has(s.id));
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
    loading: false,
    loadedOnce: false,
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
