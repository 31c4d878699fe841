import { BackendError } from '../domain/errors.ts';
import type { DerivedStatus } from '../domain/derivedStatus.ts';
import type { SessionSummary } from '../domain/session.ts';
import type { Logger } from '../util/logger.ts';
import type { ConnectionConfig, SessionSource } from '../sources/sessionSource.ts';

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

  constructor(options: {
    createSource: (config: ConnectionConfig) => SessionSource;
    log: Logger;
    pageSize: () => number;
  }) {
    this.createSource = options.createSource;
    this.log = options.log;
    this.pageSize = options.pageSize;
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
      if (!this.states.has(config.id)) this.states.set(config.id, emptyState(config));
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

  waiting(): SessionSummary[] {
    return this.connections().flatMap((s) =>
      s.sessions.filter((x) => x.status.status === 'waiting'),
    );
  }

  groups(connectionId: string): Map<DerivedStatus, SessionSummary[]> {
    return groupByStatus(this.states.get(connectionId)?.sessions ?? []);
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
    this.emit(connectionId);
    try {
      const page = await source.listSessions({ cursor, limit: this.pageSize() });
      if (this.states.get(connectionId) !== state) return; // removed meanwhile
      state.sessions =
        cursor === undefined ? page.sessions : mergeById(state.sessions, page.sessions);
      state.total = page.total;
      state.next = page.next;
      state.invalidRows =
        cursor === undefined ? page.invalidRows : state.invalidRows + page.invalidRows;
      state.error = undefined;
      state.loadedOnce = true;
      if (page.invalidRows > 0) {
        this.log.warn(`${state.config.label}: ${page.invalidRows} session rows failed validation`);
      }
    } catch (error) {
      state.error =
        error instanceof BackendError ? error : new BackendError('invalidResponse', String(error));
      this.log.warn(`${state.config.label}: ${state.error.kind}: ${state.error.message}`);
    } finally {
      state.loading = false;
      this.emit(connectionId);
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

function emptyState(config: ConnectionConfig): ConnectionState {
  return {
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
