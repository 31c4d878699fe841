import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { DemoClock } from '../clock.ts';
import type { AgentEvent, AgentSession, AgentsData, StoredAgentEvent } from '../data/agents.ts';
import { jsonResponse, type BackendResponse, type InterceptedRequest } from '../http.ts';
import type { HostileCorpus } from '../data/hostile.ts';
import type { BackendState } from '../state.ts';
import { restError } from './errors.ts';
import { page, pageRequest } from './paging.ts';

const SESSION_LIMIT = { default: 10, max: 100 };
const EVENT_LIMIT = { default: 50, max: 100 };

export interface AgentsApiDeps {
  readonly data: AgentsData;
  readonly state: BackendState;
  readonly clock: DemoClock;
  readonly token: string;
  /** Hostile data mode: some sessions' event listings fail with a payload as their message. */
  readonly hostile?: HostileCorpus | undefined;
}

function authorized(req: InterceptedRequest, token: string): boolean {
  const header = req.headers['x-api-key'];
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const given = (Array.isArray(header) ? header[0] : header) ?? bearer;
  if (given === undefined) return false;
  const a = Buffer.from(given.trim());
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Client tool calls announced by client_tool_pending and not yet answered or interrupted. */
export function outstandingCalls(events: readonly StoredAgentEvent[]): Record<string, unknown>[] {
  const open = new Map<string, Record<string, unknown>>();
  for (const { event } of events) {
    if (event.type === 'client_tool_pending' && Array.isArray(event['pending_calls'])) {
      for (const call of event['pending_calls'] as Record<string, unknown>[]) {
        open.set(String(call['tool_call_id']), {
          ...call,
          event_id: event.id,
          created_at: event.created_at,
        });
      }
    } else if (event.type === 'tool_output') {
      open.delete(String(event['tool_call_id']));
    } else if (event.type === 'session_interrupted') {
      open.clear();
    }
  }
  return [...open.values()];
}

/** GET/POST /v2/agents/... — the Vectara-style agents REST API v2 (seed 001). */
export class AgentsApi {
  private readonly deps: AgentsApiDeps;

  constructor(deps: AgentsApiDeps) {
    this.deps = deps;
  }

  handle(req: InterceptedRequest, signal: AbortSignal): BackendResponse {
    if (!authorized(req, this.deps.token))
      return restError(401, 'Unauthorized: send a valid API key in the x-api-key header');
    const parts = req.url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    // parts: ['v2', 'agents', agentKey?, 'sessions'?, sessionKey?, sub?]
    if (parts[0] !== 'v2' || parts[1] !== 'agents' || parts.length > 6)
      return restError(404, 'Not found');
    const params = req.url.searchParams;
    if (parts.length === 2) return this.only(req, 'GET') ?? this.listAgents(params);
    const agent = this.deps.data.agents.find((a) => a.key === parts[2]);
    if (!agent) return restError(404, `Agent '${parts[2]}' not found`);
    if (parts.length === 3) return this.only(req, 'GET') ?? jsonResponse(200, agent);
    if (parts[3] !== 'sessions') return restError(404, 'Not found');
    const sessions = this.deps.data.sessions.get(agent.key) ?? [];
    if (parts.length === 4)
      return this.only(req, 'GET') ?? this.listSessions(agent.key, sessions, params);
    const session = sessions.find((s) => s.key === parts[4]);
    if (!session) return restError(404, `Session '${parts[4]}' not found for agent '${agent.key}'`);
    const events = this.deps.data.events.get(`${agent.key}/${session.key}`) ?? [];
    if (parts.length === 5) return this.only(req, 'GET') ?? jsonResponse(200, session);
    if (parts[5] === 'events') {
      if (req.method === 'POST') return this.postEvent(req, session, events, signal);
      const failure = this.deps.hostile?.errorFor('events', `${agent.key}/${session.key}`);
      if (failure !== undefined && req.method === 'GET') return restError(500, failure);
      return this.only(req, 'GET') ?? this.listEvents(session, events, params);
    }
    if (parts[5] === 'outstanding_client_tool_calls') {
      return this.only(req, 'GET') ?? jsonResponse(200, { tool_calls: outstandingCalls(events) });
    }
    return restError(404, 'Not found');
  }

  private only(req: InterceptedRequest, method: string): BackendResponse | undefined {
    return req.method === method || (method === 'GET' && req.method === 'HEAD')
      ? undefined
      : restError(405, `Method ${req.method} is not allowed here`);
  }

  private listAgents(params: URLSearchParams): BackendResponse {
    const request = pageRequest(params, 'agents', SESSION_LIMIT.default, SESSION_LIMIT.max);
    if (!request.ok) return restError(400, request.message);
    const { items, metadata } = page(
      this.deps.data.agents,
      request.offset,
      request.limit,
      'agents',
    );
    return jsonResponse(200, { agents: items, metadata });
  }

  private listSessions(
    agentKey: string,
    sessions: readonly AgentSession[],
    params: URLSearchParams,
  ): BackendResponse {
    const scope = `sessions:${agentKey}`;
    const request = pageRequest(params, scope, SESSION_LIMIT.default, SESSION_LIMIT.max);
    if (!request.ok) return restError(400, request.message);
    const { items, metadata } = page(sessions, request.offset, request.limit, scope);
    return jsonResponse(200, { sessions: items, metadata });
  }

  private listEvents(
    session: AgentSession,
    events: readonly StoredAgentEvent[],
    params: URLSearchParams,
  ): BackendResponse {
    const includeHidden = params.get('include_hidden') === 'true';
    const scope = `events:${session.agent_key}/${session.key}:${includeHidden}`;
    const request = pageRequest(params, scope, EVENT_LIMIT.default, EVENT_LIMIT.max);
    if (!request.ok) return restError(400, request.message);
    const visible = events.filter((e) => includeHidden || !e.hidden).map((e) => e.event);
    const { items, metadata } = page(visible, request.offset, request.limit, scope);
    return jsonResponse(200, { events: items, metadata });
  }

  private postEvent(
    req: InterceptedRequest,
    session: AgentSession,
    events: StoredAgentEvent[],
    signal: AbortSignal,
  ): BackendResponse {
    let body: unknown;
    try {
      body = JSON.parse(req.body.toString('utf8'));
    } catch {
      return restError(400, 'Request body must be JSON');
    }
    const type = (body as { type?: unknown } | null)?.type;
    if (type !== 'interrupt') {
      return restError(
        400,
        `Unsupported event type '${String(type)}'; this backend accepts only 'interrupt'`,
      );
    }
    if (session.status !== 'running') return restError(400, 'Nothing to interrupt');
    // The request already timed out: a late handler must not change anything.
    if (signal.aborted) return restError(504, 'Request timed out');
    const event: AgentEvent = {
      id: `evt_${randomBytes(8).toString('hex')}`,
      session_key: session.key,
      created_at: this.deps.clock.nowIso(),
      type: 'session_interrupted',
    };
    events.push({ event, hidden: false });
    session.status = 'stopped';
    this.deps.state.recordInterrupt(session.agent_key, session.key);
    return jsonResponse(200, { events: [event] });
  }
}
