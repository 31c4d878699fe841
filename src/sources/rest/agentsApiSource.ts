import { deriveAgentApiStatus } from '../../domain/derivedStatus.ts';
import { BackendError, isBackendError } from '../../domain/errors.ts';
import type { SessionPage, SessionSummary } from '../../domain/session.ts';
import type { Logger } from '../../util/logger.ts';
import { createBackendFetch } from '../http/backendFetch.ts';
import type {
  ConnectionConfig,
  ListSessionsRequest,
  SessionSource,
  SourceCapabilities,
} from '../sessionSource.ts';
import {
  agentList,
  eventList,
  agentRecord,
  agentSession,
  outstandingCalls,
  sessionList,
} from './agentsApiSchemas.ts';
import type { AgentSession } from './agentsApiSchemas.ts';
import type { SessionInterrupt } from '../steering.ts';

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
}

/**
 * The agents REST API v2: sessions of each watched agent (all agents when none are
 * configured), paged with page_key. A running session with outstanding client tool
 * calls waits on the caller.
 */
export class AgentsApiSource implements SessionSource, SessionInterrupt {
  readonly config: ConnectionConfig & { url: string };
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;
  private agentKeys: Promise<string[]> | undefined;

  constructor(options: AgentsApiSourceOptions) {
    this.config = options.config;
    this.timeoutMs = options.timeoutMs;
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
    };
  }

  async test(signal?: AbortSignal): Promise<string> {
    const agents = await this.agents(signal);
    // Configured agents are not listed: ask for each so the key (and the keys) get checked.
    if (this.config.agents?.length) {
      for (const agent of agents) {
        await this.getJson(`/v2/agents/${encodeURIComponent(agent)}`, agentRecord, signal);
      }
    }
    return `${agents.length} agents`;
  }

  async listSessions(request: ListSessionsRequest): Promise<SessionPage> {
    const agents = await this.agents(request.signal);
    let cursor: Cursor = request.cursor ? (JSON.parse(request.cursor) as Cursor) : { agent: 0 };
    const sessions: SessionSummary[] = [];
    let invalidRows = 0;
    while (cursor.agent < agents.length && sessions.length < request.limit) {
      const agent = agents[cursor.agent] as string;
      const query = new URLSearchParams({ limit: String(request.limit - sessions.length) });
      if (cursor.pageKey) query.set('page_key', cursor.pageKey);
      const body = await this.getJson(
        `/v2/agents/${encodeURIComponent(agent)}/sessions?${query}`,
        sessionList,
        request.signal,
      );
      for (const item of body.sessions) {
        const row = agentSession.safeParse(item);
        if (!row.success) {
          invalidRows++;
          continue;
        }
        sessions.push(await this.toSummary(row.data, request.signal));
      }
      const next = body.metadata?.page_key;
      cursor =
        next && body.sessions.length > 0
          ? { agent: cursor.agent, pageKey: next }
          : { agent: cursor.agent + 1 };
    }
    return {
      sessions,
      invalidRows,
      next: cursor.agent < agents.length ? JSON.stringify(cursor) : undefined,
    };
  }

  /** Every event of a session (hidden ones included), paged with page_key; bounded. */
  async listEvents(sessionId: string, signal?: AbortSignal): Promise<unknown[]> {
    const [agent, key] = splitSessionId(sessionId);
    const events: unknown[] = [];
    let pageKey: string | undefined;
    for (let page = 0; page < 100; page++) {
      const query = new URLSearchParams({ limit: '100', include_hidden: 'true' });
      if (pageKey) query.set('page_key', pageKey);
      const body = await this.getJson(
        `/v2/agents/${encodeURIComponent(agent)}/sessions/${encodeURIComponent(key)}/events?${query}`,
        eventList,
        signal,
      );
      events.push(...body.events);
      pageKey = body.metadata?.page_key ?? undefined;
      if (!pageKey || body.events.length === 0) break;
    }
    return events;
  }

  /** POST …/events {type: "interrupt"}; an idle session answers 400 "Nothing to interrupt". */
  async interrupt(
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<'interrupted' | 'nothingToInterrupt'> {
    const [agent, key] = splitSessionId(sessionId);
    const response = await this.fetch(
      new URL(
        `/v2/agents/${encodeURIComponent(agent)}/sessions/${encodeURIComponent(key)}/events`,
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

  async dispose(): Promise<void> {
    this.agentKeys = undefined;
  }

  private agents(signal?: AbortSignal): Promise<string[]> {
    if (this.config.agents?.length) return Promise.resolve(this.config.agents);
    this.agentKeys ??= (async () => {
      // The agent list is paged like any other.
      const keys: string[] = [];
      let pageKey: string | undefined;
      do {
        const query = new URLSearchParams({ limit: '100' });
        if (pageKey) query.set('page_key', pageKey);
        const body = await this.getJson(`/v2/agents?${query}`, agentList, signal);
        keys.push(...body.agents.map((a) => a.key));
        pageKey = body.agents.length > 0 ? (body.metadata?.page_key ?? undefined) : undefined;
      } while (pageKey);
      return keys;
    })();
    this.agentKeys.catch(() => (this.agentKeys = undefined));
    return this.agentKeys;
  }

  private async toSummary(row: AgentSession, signal?: AbortSignal): Promise<SessionSummary> {
    const pending = row.status === 'running' ? await this.pendingCalls(row, signal) : 0;
    const status = deriveAgentApiStatus(row.status, pending ?? 0);
    return {
      id: `${row.agent_key}/${row.key}`,
      connectionId: this.config.id,
      label: row.name || row.key,
      status,
      harness: row.agent_key,
      startedAt: row.created_at ?? undefined,
      details: restDetails(row),
      context:
        typeof row.session_context_usage?.total_tokens === 'number' &&
        row.session_context_usage.model_context_window
          ? {
              used: row.session_context_usage.total_tokens,
              window: row.session_context_usage.model_context_window,
            }
          : undefined,
      ...(pending === undefined ? { waitingUnknown: true } : {}),
      parentId:
        row.created_by_agent_key && row.created_by_session_key
          ? `${row.created_by_agent_key}/${row.created_by_session_key}`
          : undefined,
    };
  }

  /** Outstanding client tool calls; undefined when the lookup failed (logged by fetch). */
  private async pendingCalls(row: AgentSession, signal?: AbortSignal): Promise<number | undefined> {
    try {
      const body = await this.getJson(
        `/v2/agents/${encodeURIComponent(row.agent_key)}/sessions/${encodeURIComponent(row.key)}/outstanding_client_tool_calls`,
        outstandingCalls,
        signal,
      );
      return Array.isArray(body) ? body.length : (body.calls ?? body.tool_calls ?? []).length;
    } catch (error) {
      if (isBackendError(error) && (error.kind === 'unauthorized' || error.kind === 'canceled'))
        throw error;
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
