import { createHash } from 'node:crypto';
import { deriveAgentApiStatus } from '../../domain/derivedStatus.ts';
import { BackendError, isBackendError } from '../../domain/errors.ts';
import type { SessionPage, SessionSummary } from '../../domain/session.ts';
import type { Logger } from '../../util/logger.ts';
import { createBackendFetch } from '../http/backendFetch.ts';
import type {
  ConnectionConfig,
  ListSessionsRequest,
  SessionEvents,
  SessionSource,
  SourceCapabilities,
  SourceOperations,
} from '../sessionSource.ts';
import {
  agentList,
  eventList,
  agentRecord,
  agentSession,
  outstandingCalls,
  outstandingCount,
  sessionList,
  sessionStatus,
} from './agentsApiSchemas.ts';
import type { AgentSession } from './agentsApiSchemas.ts';
import type { SessionInterrupt } from '../steering.ts';
import { fieldOf, rawText, readRow, UnreadableFieldLog, unreadableDetail } from '../rowFields.ts';

/** What the agents API says about a session beyond the common fields; secrets stay masked. */
function restDetails(row: AgentSession): [string, string][] {
  const rows: [string, string | undefined][] = [
    ['Session key', row.key],
    ['Description', row.description ?? undefined],
    [
      'Enabled',
      row.enabled === undefined || row.enabled === null ? undefined : String(row.enabled),
    ],
    ['Current step', row.current_step_name ?? undefined],
    [
      'Time to idle',
      row.tti_minutes
        ? `${row.tti_minutes} min`
        : row.tti_minutes === 0
          ? 'never expires'
          : undefined,
    ],
    ['Alias', row.alias_key ?? undefined],
    [
      'Created by',
      row.created_by_agent_key && row.created_by_session_key
        ? `${row.created_by_agent_key}/${row.created_by_session_key}`
        : undefined,
    ],
    [
      'Compaction',
      row.effective_compaction
        ? row.effective_compaction.enabled
          ? `on at ${row.effective_compaction.threshold_percent ?? 80}% · keeps ${row.effective_compaction.keep_recent_inputs ?? '?'} recent inputs`
          : 'off'
        : undefined,
    ],
    // The API masks secret values ("****"); only their names are shown, masked again here.
    [
      'Secrets',
      row.secrets
        ? Object.keys(row.secrets)
            .map((name) => `${name}: ****`)
            .join(', ')
        : undefined,
    ],
    [
      'Metadata',
      row.metadata && Object.keys(row.metadata).length ? JSON.stringify(row.metadata) : undefined,
    ],
  ];
  return rows.filter((r): r is [string, string] => Boolean(r[1]));
}

/** Session ids are "<agent_key>/<session_key>". */
function splitSessionId(id: string): [string, string] {
  const slash = id.indexOf('/');
  if (slash < 0) throw new BackendError('invalidResponse', `Not an agents-API session id: ${id}`);
  return [id.slice(0, slash), id.slice(slash + 1)];
}

export interface AgentsApiSourceOptions {
  config: ConnectionConfig & { url: string };
  apiKey: () => Promise<string | undefined>;
  log: Logger;
  timeoutMs: number;
  baseFetch?: typeof fetch;
}

/** Where paging stands across the watched agents. */
interface Cursor {
  agent: number;
  pageKey?: string;
  /** Short hashes of the page keys this agent's listing has followed: one seen again is a loop. */
  followed?: string[];
  /** Pages in a row of this agent that held only sessions already listed. */
  stale?: number;
}

/** Page keys remembered per agent: longer loops still end, on their repeated sessions. */
const FOLLOWED_KEYS = 256;
/** Pages in a row with nothing new after which an agent's paging counts as repeating. */
const STALE_PAGES = 2;
/** Bound on one traversal of the agent list or of a session's events. */
const MAX_PAGES = 1_000;

/**
 * A key from the server as one URL path segment. A lone UTF-16 surrogate (which no real
 * key has, but a broken or hostile server may send) becomes U+FFFD instead of making
 * encodeURIComponent throw a URIError out of the listing.
 */
const pathSegment = (key: string) => encodeURIComponent(key.toWellFormed());

const keyHash = (key: string) => createHash('sha256').update(key).digest('base64url').slice(0, 12);

function readCursor(text: string | undefined): Cursor {
  if (text === undefined) return { agent: 0 };
  try {
    const value = JSON.parse(text) as Partial<Cursor> | null;
    if (value && Number.isSafeInteger(value.agent) && (value.agent as number) >= 0) {
      return value as Cursor;
    }
  } catch {
    // Not ours: start over (already loaded rows are dropped by id).
  }
  return { agent: 0 };
}

/**
 * The agents REST API v2: sessions of each watched agent (all agents when none are
 * configured), paged with page_key. A running session with outstanding client tool
 * calls waits on the caller.
 */
export class AgentsApiSource implements SessionSource, SessionInterrupt, SessionEvents {
  readonly config: ConnectionConfig & { url: string };
  readonly operations: Partial<SourceOperations> = { interrupt: this, events: this };
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;
  private readonly log: Logger;
  private readonly unreadable: UnreadableFieldLog;
  private agentKeys: Promise<string[]> | undefined;
  /** Sessions whose failed outstanding-calls or last-event lookup was logged (polls repeat it). */
  private readonly unreadableLookups = new Set<string>();
  /** The agent list's paging repeated itself when it was last read. */
  private agentListRepeated = false;
  /**
   * The last event type of stopped sessions, by id, with a hash of the row it was read for:
   * an unchanged row is not read again at every poll.
   */
  private readonly lastEvents = new Map<string, { row: string; type: string | undefined }>();

  constructor(options: AgentsApiSourceOptions) {
    this.config = options.config;
    this.timeoutMs = options.timeoutMs;
    this.log = options.log;
    this.unreadable = new UnreadableFieldLog(options.log, options.config.label);
    this.fetch = createBackendFetch({
      origin: new URL(options.config.url).origin,
      timeoutMs: options.timeoutMs,
      log: options.log,
      baseFetch: options.baseFetch,
      authHeader: async () => {
        const key = await options.apiKey();
        return key ? ['x-api-key', key] : undefined;
      },
    });
  }

  async capabilities(): Promise<SourceCapabilities> {
    return {
      listSessions: true,
      transcripts: true,
      comments: false,
      usage: false,
      manualTasks: false,
      complete: false,
      interrupt: true,
      resume: false,
    };
  }

  async test(signal?: AbortSignal): Promise<string> {
    const agents = await this.agents(signal);
    // Configured agents are not listed: ask for each so the key (and the keys) get checked.
    if (this.config.agents?.length) {
      for (const agent of agents) {
        await this.getJson(`/v2/agents/${pathSegment(agent)}`, agentRecord, signal);
      }
    }
    return `${agents.length} agents`;
  }

  /**
   * Sessions of each agent in turn. An agent whose paging repeats itself (a page key it
   * followed before, or pages of sessions already listed) is left with the rows read so
   * far and named in `pagingRepeated`; the next agents are still listed. A session listed
   * twice keeps its first row.
   */
  async listSessions(request: ListSessionsRequest): Promise<SessionPage> {
    const agents = await this.agents(request.signal);
    let cursor = readCursor(request.cursor);
    const loaded = request.cursor === undefined ? undefined : request.loaded;
    const ids = new Set<string>();
    const sessions: SessionSummary[] = [];
    const repeated: string[] =
      request.cursor === undefined && this.agentListRepeated ? ['agent list'] : [];
    let invalidRows = 0;
    while (cursor.agent < agents.length && sessions.length < request.limit) {
      const agent = agents[cursor.agent] as string;
      const query = new URLSearchParams({ limit: String(request.limit - sessions.length) });
      if (cursor.pageKey) query.set('page_key', cursor.pageKey);
      const body = await this.getJson(
        `/v2/agents/${pathSegment(agent)}/sessions?${query}`,
        sessionList,
        request.signal,
      );
      let rows = 0;
      let fresh = 0;
      for (const item of body.sessions) {
        const row = readRow(agentSession, item);
        if (!row) {
          invalidRows++;
          continue;
        }
        rows++;
        const id = `${row.data.agent_key ?? agent}/${row.data.key}`;
        if (ids.has(id) || loaded?.has(id)) continue;
        ids.add(id);
        fresh++;
        this.unreadable.note(id, row.unreadable);
        sessions.push(await this.toSummary(row.data, agent, row.unreadable, item, request.signal));
      }
      const next = body.metadata?.page_key || undefined;
      const followed = cursor.pageKey
        ? [...(cursor.followed ?? []), keyHash(cursor.pageKey)].slice(-FOLLOWED_KEYS)
        : [];
      const stale = rows > 0 && fresh === 0 ? (cursor.stale ?? 0) + 1 : 0;
      if (
        next &&
        body.sessions.length > 0 &&
        (followed.includes(keyHash(next)) || stale >= STALE_PAGES)
      ) {
        this.log.warn(
          `${this.config.label}: the sessions of agent ${JSON.stringify(rawText(agent, 120))} page back to pages already read; listing stopped there`,
        );
        repeated.push(agent);
        cursor = { agent: cursor.agent + 1 };
      } else {
        cursor =
          next && body.sessions.length > 0
            ? { agent: cursor.agent, pageKey: next, followed, stale }
            : { agent: cursor.agent + 1 };
      }
    }
    return {
      sessions,
      invalidRows,
      next: cursor.agent < agents.length ? JSON.stringify(cursor) : undefined,
      ...(repeated.length ? { pagingRepeated: repeated } : {}),
    };
  }

  /**
   * Every event of a session (hidden ones included), paged with page_key; bounded, and
   * ended where a page key comes back (the server's paging repeats itself).
   */
  async listEvents(sessionId: string, signal?: AbortSignal): Promise<unknown[]> {
    const events: unknown[] = [];
    await this.eachEventPage(sessionId, true, signal, (page) => events.push(...page));
    return events;
  }

  /** Pages through a session's events, oldest first, handing each page to `onPage`. */
  private async eachEventPage(
    sessionId: string,
    includeHidden: boolean,
    signal: AbortSignal | undefined,
    onPage: (events: unknown[]) => void,
  ): Promise<void> {
    const [agent, key] = splitSessionId(sessionId);
    const followed = new Set<string>();
    let pageKey: string | undefined;
    for (let page = 0; page < 100; page++) {
      const query = new URLSearchParams({ limit: '100' });
      if (includeHidden) query.set('include_hidden', 'true');
      if (pageKey) query.set('page_key', pageKey);
      const body = await this.getJson(
        `/v2/agents/${pathSegment(agent)}/sessions/${pathSegment(key)}/events?${query}`,
        eventList,
        signal,
      );
      onPage(body.events);
      if (pageKey) followed.add(pageKey);
      pageKey = body.metadata?.page_key ?? undefined;
      if (!pageKey || body.events.length === 0) break;
      if (followed.has(pageKey)) {
        this.log.warn(
          `${this.config.label}: the events of ${JSON.stringify(rawText(sessionId, 120))} page back to a page already read; stopped there`,
        );
        break;
      }
    }
  }

  /** POST …/events {type: "interrupt"}; an idle session answers 400 "Nothing to interrupt". */
  async interrupt(
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<'interrupted' | 'nothingToInterrupt'> {
    const [agent, key] = splitSessionId(sessionId);
    const response = await this.fetch(
      new URL(
        `/v2/agents/${pathSegment(agent)}/sessions/${pathSegment(key)}/events`,
        this.config.url,
      ),
      {
        method: 'POST',
        signal,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ type: 'interrupt' }),
      },
    );
    if (response.ok) return 'interrupted';
    const text = await response.text().catch(() => '');
    if (response.status === 400 && /nothing to interrupt/i.test(text)) return 'nothingToInterrupt';
    throw new BackendError(
      'toolError',
      `The server refused the interrupt (${response.status}): ${text.slice(0, 200)}`,
      {
        status: response.status,
      },
    );
  }

  async sessionStatus(sessionId: string, signal?: AbortSignal): Promise<string | undefined> {
    const [agent, key] = splitSessionId(sessionId);
    const row = await this.getJson(
      `/v2/agents/${pathSegment(agent)}/sessions/${pathSegment(key)}`,
      sessionStatus,
      signal,
    );
    return row.status ?? undefined;
  }

  async dispose(): Promise<void> {
    this.agentKeys = undefined;
  }

  private agents(signal?: AbortSignal): Promise<string[]> {
    if (this.config.agents?.length) return Promise.resolve(this.config.agents);
    this.agentKeys ??= (async () => {
      // The agent list is paged like any other; a page key seen before ends it.
      const keys = new Set<string>();
      const followed = new Set<string>();
      let pageKey: string | undefined;
      this.agentListRepeated = false;
      for (let page = 0; page < MAX_PAGES; page++) {
        const query = new URLSearchParams({ limit: '100' });
        if (pageKey) query.set('page_key', pageKey);
        const body = await this.getJson(`/v2/agents?${query}`, agentList, signal);
        for (const agent of body.agents) keys.add(agent.key);
        if (pageKey) followed.add(pageKey);
        pageKey = body.agents.length > 0 ? (body.metadata?.page_key ?? undefined) : undefined;
        if (!pageKey) break;
        if (followed.has(pageKey) || page === MAX_PAGES - 1) {
          this.agentListRepeated = true;
          this.log.warn(
            `${this.config.label}: the agent list pages back to a page already read; listing the ${keys.size} agents read`,
          );
          break;
        }
      }
      return [...keys];
    })();
    this.agentKeys.catch(() => (this.agentKeys = undefined));
    return this.agentKeys;
  }

  private async toSummary(
    row: AgentSession,
    listedAgent: string,
    unreadable: string[],
    item: unknown,
    signal?: AbortSignal,
  ): Promise<SessionSummary> {
    const agent = row.agent_key ?? listedAgent;
    const statusUnreadable = unreadable.includes('status');
    const raw = statusUnreadable ? rawText(fieldOf(item, 'status')) : row.status;
    const base = deriveAgentApiStatus(raw);
    // Running sessions, and those whose status we cannot place, may wait on client tool calls.
    const pending =
      raw === 'running' || base.status === 'unknown'
        ? await this.pendingCalls(agent, row.key, signal)
        : 0;
    // Only a stopped session's last event says more (an interrupt ended it).
    const lastEvent =
      base.status === 'idle' && raw?.toLowerCase() === 'stopped'
        ? await this.lastEventType(agent, row.key, item, signal)
        : undefined;
    const status = deriveAgentApiStatus(raw, pending ?? 0, lastEvent);
    if (statusUnreadable && status.status !== 'waiting') status.status = 'unknown';
    return {
      id: `${agent}/${row.key}`,
      connectionId: this.config.id,
      label: row.name || row.key,
      status,
      harness: agent,
      startedAt: row.created_at ?? undefined,
      details: restDetails(row).concat(unreadableDetail(unreadable)),
      context:
        typeof row.session_context_usage?.total_tokens === 'number' &&
        row.session_context_usage.model_context_window
          ? {
              used: row.session_context_usage.total_tokens,
              window: row.session_context_usage.model_context_window,
            }
          : undefined,
      ...(pending === undefined ? { waitingUnknown: true } : {}),
      ...(unreadable.length ? { unreadableFields: unreadable } : {}),
      parentId:
        row.created_by_agent_key && row.created_by_session_key
          ? `${row.created_by_agent_key}/${row.created_by_session_key}`
          : undefined,
    };
  }

  /**
   * The type of the session's last visible event; undefined when it has none or the lookup
   * failed (the session then shows as plainly stopped). Read again only when its row changes.
   */
  private async lastEventType(
    agent: string,
    key: string,
    item: unknown,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    const id = `${agent}/${key}`;
    const row = createHash('sha256').update(JSON.stringify(item)).digest('base64url');
    const known = this.lastEvents.get(id);
    if (known?.row === row) return known.type;
    let type: string | undefined;
    try {
      await this.eachEventPage(id, false, signal, (events) => {
        const last = events.at(-1) as { type?: unknown } | null | undefined;
        if (last !== undefined) type = typeof last?.type === 'string' ? last.type : undefined;
      });
    } catch (error) {
      if (isBackendError(error) && (error.kind === 'unauthorized' || error.kind === 'canceled'))
        throw error;
      if (!this.unreadableLookups.has(id)) {
        if (this.unreadableLookups.size >= 5_000) this.unreadableLookups.clear();
        this.unreadableLookups.add(id);
        this.log.warn(
          `${this.config.label}: the last event of ${JSON.stringify(rawText(id, 120))} could not be read (${isBackendError(error) ? error.kind : 'error'}); shown as stopped`,
        );
      }
      return undefined;
    }
    if (this.lastEvents.size >= 5_000) this.lastEvents.clear();
    this.lastEvents.set(id, { row, type });
    return type;
  }

  /**
   * Outstanding client tool calls; undefined (waiting unknown, never 0) when the lookup
   * failed or answered in a shape we cannot read.
   */
  private async pendingCalls(
    agent: string,
    key: string,
    signal?: AbortSignal,
  ): Promise<number | undefined> {
    try {
      const body = await this.getJson(
        `/v2/agents/${pathSegment(agent)}/sessions/${pathSegment(key)}/outstanding_client_tool_calls`,
        outstandingCalls,
        signal,
      );
      return outstandingCount(body);
    } catch (error) {
      if (isBackendError(error) && (error.kind === 'unauthorized' || error.kind === 'canceled'))
        throw error;
      const id = `${agent}/${key}`;
      if (!this.unreadableLookups.has(id)) {
        if (this.unreadableLookups.size >= 5_000) this.unreadableLookups.clear();
        this.unreadableLookups.add(id);
        this.log.warn(
          `${this.config.label}: outstanding client tool calls of ${JSON.stringify(rawText(id, 120))} could not be read (${isBackendError(error) ? error.kind : 'error'}); whether it waits is unknown`,
        );
      }
      return undefined;
    }
  }

  private async getJson<T>(
    path: string,
    schema: {
      safeParse(
        v: unknown,
      ): { success: true; data: T } | { success: false; error: { issues: { message: string }[] } };
    },
    signal?: AbortSignal,
  ): Promise<T> {
    const response = await this.fetch(new URL(path, this.config.url), {
      signal,
      headers: { accept: 'application/json', 'Request-Timeout-Millis': String(this.timeoutMs) },
    });
    if (!response.ok) {
      throw new BackendError('invalidResponse', `${path} answered ${response.status}.`, {
        status: response.status,
      });
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw new BackendError(
        'invalidResponse',
        `${path} answered with something that is not JSON.`,
      );
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new BackendError(
        'invalidResponse',
        `${path} answered in an unexpected shape: ${parsed.error.issues[0]?.message ?? ''}`,
      );
    }
    return parsed.data;
  }
}
