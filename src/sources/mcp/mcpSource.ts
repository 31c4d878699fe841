import { BackendError, findBackendError, isBackendError } from '../../domain/errors.ts';
import type { SessionPage, SessionSummary } from '../../domain/session.ts';
import type { Logger } from '../../util/logger.ts';
import { createBackendFetch } from '../http/backendFetch.ts';
import type {
  ConnectionConfig,
  ListSessionsRequest,
  SessionSource,
  SourceCapabilities,
  SourceOperations,
} from '../sessionSource.ts';
import type { JsonToolCaller } from './jsonToolCaller.ts';
import type { CreateMcpToolClient, McpToolClient } from './mcpToolClient.ts';
import { parseListAgentSessions } from './reportingRows.ts';
import { needsDescribe, parsePlatformRows, withManualTasks } from './platformRows.ts';
import { UnreadableFieldLog } from '../rowFields.ts';
import { filterArguments, validateFilters } from '../../domain/filters.ts';
import type { SessionFilters } from '../../domain/filters.ts';
import { mapLimited } from '../../util/mapLimited.ts';
import { toolErrorToBackendError } from './toolErrors.ts';
import type { BackendErrorKind } from '../../domain/errors.ts';
import type {
  CompletionOutcome,
  PendingInstruction,
  UnconfirmedReason,
} from '../../domain/completionIntent.ts';
import type { ManualTaskDetail, ManualTasks, SessionCompletion } from '../steering.ts';
import { parseInstructions, parseManualTask } from './steeringSchemas.ts';

export interface McpSourceOptions {
  config: ConnectionConfig & { url: string };
  token: () => Promise<string | undefined>;
  loadClient: () => Promise<CreateMcpToolClient>;
  log: Logger;
  timeoutMs: number;
  clientVersion: string;
  baseFetch?: typeof fetch;
}

const WAITING_SCAN_LIMIT = 1000;

function unknownReason(kind: BackendErrorKind): UnconfirmedReason {
  switch (kind) {
    case 'timeout':
      return 'timeout';
    case 'network':
      return 'unreachable';
    case 'rateLimited':
      return 'rateLimited';
    case 'notFound':
      return 'notFound';
    case 'unauthorized':
    case 'forbidden':
      return 'auth';
    case 'canceled':
      return 'canceled';
    default:
      return 'server';
  }
}
const isWaiting = (s: SessionSummary) => s.status.status === 'waiting';

/** Capabilities follow the tools the server actually lists. */
export function capabilitiesFromTools(names: ReadonlySet<string>): SourceCapabilities {
  return {
    listSessions: names.has('list-agent-sessions') || names.has('get_sessions'),
    transcripts: names.has('get-agent-session-transcript') || names.has('describe_session'),
    comments: names.has('list-session-comments'),
    usage: names.has('get-agent-session-usage') || names.has('describe_session_token_usage'),
    manualTasks: names.has('describe_manual_task'),
    complete: names.has('session_complete'),
    interrupt: false,
    resume: false,
  };
}

/** An MCP endpoint: connects lazily, keeps one client, reconnects after a failure. */
export class McpSource implements SessionSource, SessionCompletion, ManualTasks, JsonToolCaller {
  readonly config: ConnectionConfig & { url: string };
  readonly operations: Partial<SourceOperations> = {
    complete: this,
    manualTasks: this,
    tools: this,
  };
  private client: Promise<McpToolClient> | undefined;
  private toolNames: Promise<Set<string>> | undefined;
  private readonly options: McpSourceOptions;
  private readonly unreadable: UnreadableFieldLog;

  constructor(options: McpSourceOptions) {
    this.options = options;
    this.config = options.config;
    this.unreadable = new UnreadableFieldLog(options.log, options.config.label);
  }

  async capabilities(signal?: AbortSignal): Promise<SourceCapabilities> {
    return capabilitiesFromTools(await this.tools(signal));
  }

  async listSessions(request: ListSessionsRequest): Promise<SessionPage> {
    const tools = await this.tools(request.signal);
    if (tools.has('list-agent-sessions')) return this.listReporting(request);
    if (tools.has('get_sessions')) return this.listPlatform(request);
    throw new BackendError(
      'invalidResponse',
      'This MCP server lists no sessions (it has neither list-agent-sessions nor get_sessions).',
    );
  }

  /**
   * Every session waiting on a human. The server derives "waiting" at read time from
   * any stored value, so a status filter misses some: up to WAITING_SCAN_LIMIT rows are
   * scanned in full; past that the stored "waiting" and "active" rows are asked for and
   * the answer is marked incomplete.
   */
  async listWaiting(
    filters: SessionFilters | undefined,
    signal?: AbortSignal,
  ): Promise<{ sessions: SessionSummary[]; complete: boolean }> {
    const tools = await this.tools(signal);
    if (!tools.has('list-agent-sessions')) {
      // The same harness filter listSessions applies locally.
      const sessions = (await this.platformSessions(signal)).filter(
        (s) => !filters?.harness || s.harness === filters.harness,
      );
      return {
        sessions: sessions.filter((s) => s.status.status === 'waiting'),
        complete: !sessions.some((s) => s.waitingUnknown),
      };
    }
    const base = { ...filterArguments(filters ?? {}) };
    delete base.status;
    // A row whose status could not be read may be waiting: the list is then not complete.
    const known = (sessions: SessionSummary[]) => !sessions.some((s) => s.waitingUnknown);
    const scan = await this.scan(base, WAITING_SCAN_LIMIT, signal);
    if (scan.complete)
      return { sessions: scan.sessions.filter(isWaiting), complete: known(scan.sessions) };
    const byId = new Map<string, SessionSummary>();
    for (const status of ['waiting', 'active']) {
      const part = await this.scan({ ...base, status }, WAITING_SCAN_LIMIT, signal);
      for (const session of part.sessions.filter(isWaiting))
        if (!byId.has(session.id)) byId.set(session.id, session);
    }
    return { sessions: [...byId.values()], complete: false };
  }

  /**
   * Up to maxRows sessions, each once. Incomplete when the bound is reached or the server's
   * paging repeated itself (a page of sessions already read: it ignores the offset).
   */
  private async scan(
    args: Record<string, string>,
    maxRows: number,
    signal?: AbortSignal,
  ): Promise<{ sessions: SessionSummary[]; complete: boolean }> {
    const sessions: SessionSummary[] = [];
    const ids = new Set<string>();
    let offset = 0;
    while (offset < maxRows) {
      const page = parseListAgentSessions(
        await this.callJson('list-agent-sessions', { ...args, limit: 100, offset }, signal),
        this.config.id,
        offset,
      );
      this.noteUnreadable(page.sessions);
      const fresh = page.sessions.filter((s) => !ids.has(s.id));
      for (const session of fresh) ids.add(session.id);
      sessions.push(...fresh);
      if (page.sessions.length > 0 && fresh.length === 0) {
        this.options.log.warn(
          `${this.config.label}: list-agent-sessions paging repeated itself at offset ${offset}; the waiting count is incomplete`,
        );
        return { sessions, complete: false };
      }
      if (page.next === undefined) return { sessions, complete: true };
      offset = Number(page.next);
    }
    return { sessions, complete: false };
  }

  /** One log line per row with unreadable fields (row id + fields), once. */
  private noteUnreadable(sessions: readonly SessionSummary[]): void {
    for (const s of sessions)
      if (s.unreadableFields) this.unreadable.note(s.id, s.unreadableFields);
  }

  private async listReporting(request: ListSessionsRequest): Promise<SessionPage> {
    const problem = validateFilters(request.filters ?? {});
    if (problem) throw new BackendError('invalidFilter', problem);
    const offset = Number(request.cursor ?? 0) || 0;
    const payload = await this.callJson(
      'list-agent-sessions',
      { ...filterArguments(request.filters ?? {}), limit: request.limit, offset },
      request.signal,
    );
    const page = parseListAgentSessions(payload, this.config.id, offset);
    this.noteUnreadable(page.sessions);
    const loaded = request.cursor === undefined ? undefined : request.loaded;
    if (!loaded) return page;
    // A later page holding only sessions already loaded: the server ignores the offset and
    // would serve the same rows for every Load more.
    const fresh = page.sessions.filter((s) => !loaded.has(s.id));
    if (page.sessions.length > 0 && fresh.length === 0) {
      return { ...page, sessions: [], next: undefined, pagingRepeated: ['list-agent-sessions'] };
    }
    return { ...page, sessions: fresh };
  }

  /**
   * Platform servers return every session at once; we page locally and describe
   * running ones (their manual tasks say whether a human is needed).
   */
  private async listPlatform(request: ListSessionsRequest): Promise<SessionPage> {
    const all =
      request.cursor === undefined || !this.platformCache
        ? await this.platformSessions(request.signal)
        : this.platformCache;
    const offset = Number(request.cursor ?? 0) || 0;
    const end = offset + request.limit;
    const filtered = all.filter(
      (s) => !request.filters?.harness || s.harness === request.filters.harness,
    );
    return {
      sessions: filtered.slice(offset, end),
      total: filtered.length,
      next: end < filtered.length ? String(end) : undefined,
      invalidRows: this.platformInvalidRows,
    };
  }

  private platformCache: SessionSummary[] | undefined;
  private platformInvalidRows = 0;

  private async platformSessions(signal?: AbortSignal): Promise<SessionSummary[]> {
    const parsed = parsePlatformRows(
      await this.callJson('get_sessions', {}, signal),
      this.config.id,
    );
    if (!parsed)
      throw new BackendError('invalidResponse', 'get_sessions did not answer with a list.');
    this.noteUnreadable(parsed.sessions);
    const described = await mapLimited(parsed.sessions, 4, async (session) => {
      if (!needsDescribe(session)) return session;
      try {
        return withManualTasks(
          session,
          await this.callJson('describe_session', { session_id: session.id }, signal),
        );
      } catch (error) {
        if (isBackendError(error) && (error.kind === 'unauthorized' || error.kind === 'canceled'))
          throw error;
        // The count shows "+?" for it; the log says which session and why.
        this.options.log.warn(
          `${this.config.label}: describe_session ${session.id} failed, its manual tasks are unknown: ${isBackendError(error) ? error.kind : 'error'}`,
        );
        return { ...session, waitingUnknown: true };
      }
    });
    this.platformCache = described;
    this.platformInvalidRows = parsed.invalidRows;
    return described;
  }

  async test(signal?: AbortSignal): Promise<string> {
    const tools = await this.tools(signal);
    return `${tools.size} tools`;
  }

  /** Calls a tool whose text content is JSON; isError becomes a toolError. */
  async callJson(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const client = await this.connect();
    let result;
    try {
      result = await client.callTool(name, args, { signal, timeoutMs: this.options.timeoutMs });
    } catch (error) {
      throw this.fail(error);
    }
    if (result.isError) throw toolErrorToBackendError(name, result);
    if (result.structuredContent !== undefined) return result.structuredContent;
    // Older servers only send text; FastMCP-style list results arrive as a JSON array.
    try {
      return JSON.parse(result.text);
    } catch {
      throw new BackendError('invalidResponse', `${name} answered with text that is not JSON.`);
    }
  }

  /** Whether the server lists this tool (tools/list is asked once per connection). */
  async hasTool(name: string, signal?: AbortSignal): Promise<boolean> {
    return (await this.tools(signal)).has(name);
  }

  async canComplete(signal?: AbortSignal): Promise<boolean> {
    return (await this.tools(signal)).has('session_complete');
  }

  async listPendingInstructions(
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<PendingInstruction[] | undefined> {
    if (!(await this.tools(signal)).has('list-pending-instructions')) return undefined;
    const instructions = parseInstructions(
      await this.callJson('list-pending-instructions', { sessionId }, signal),
    );
    if (!instructions)
      throw new BackendError(
        'invalidResponse',
        'list-pending-instructions answered in an unexpected shape.',
      );
    return instructions;
  }

  /**
   * session_complete, classified: an answer with isError is a refusal (terminal); no
   * answer, a 5xx/429 or an unreadable one leaves the outcome unknown, so the caller
   * keeps the intent and retries with the same key. The SDK never retries a POST.
   */
  completeSession(args: Record<string, unknown>, signal?: AbortSignal): Promise<CompletionOutcome> {
    return this.mutate('session_complete', args, signal);
  }

  private async mutate(
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<CompletionOutcome> {
    let result;
    try {
      const client = await this.connect();
      result = await client.callTool(tool, args, {
        signal,
        timeoutMs: this.options.timeoutMs,
      });
    } catch (error) {
      const failure = this.fail(error);
      const reason = signal?.aborted ? 'canceled' : unknownReason(failure.kind);
      return { kind: 'unknown', text: failure.message, reason };
    }
    if (!result.isError) return { kind: 'applied', text: result.text };
    const refusal = toolErrorToBackendError(tool, result);
    if (refusal.kind === 'server' || refusal.kind === 'rateLimited' || refusal.kind === 'timeout') {
      return { kind: 'unknown', text: refusal.message, reason: unknownReason(refusal.kind) };
    }
    return { kind: 'refused', text: refusal.message };
  }

  async describeManualTask(workItemId: string, signal?: AbortSignal): Promise<ManualTaskDetail> {
    const task = parseManualTask(
      await this.callJson('describe_manual_task', { work_item_id: workItemId }, signal),
    );
    if (!task)
      throw new BackendError(
        'invalidResponse',
        'describe_manual_task answered in an unexpected shape.',
      );
    return task;
  }

  async previewManualTask(
    workItemId: string,
    finishState: 'success' | 'failure',
    signal?: AbortSignal,
  ): Promise<string> {
    const payload = await this.callJson(
      'complete_manual_task',
      { work_item_id: workItemId, finish_state: finishState, confirm: false },
      signal,
    );
    const message = (payload as { message?: unknown } | undefined)?.message;
    return typeof message === 'string' ? message : JSON.stringify(payload);
  }

  /** Not idempotent on the server: an unknown outcome is settled by re-reading the task. */
  commitManualTask(
    workItemId: string,
    finishState: 'success' | 'failure',
    signal?: AbortSignal,
  ): Promise<CompletionOutcome> {
    return this.mutate(
      'complete_manual_task',
      { work_item_id: workItemId, finish_state: finishState, confirm: true },
      signal,
    );
  }

  async dispose(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.toolNames = undefined;
    await client?.then((c) => c.close()).catch(() => undefined);
  }

  private tools(signal?: AbortSignal): Promise<Set<string>> {
    this.toolNames ??= (async () => {
      const client = await this.connect();
      try {
        return new Set((await client.listTools({ signal })).map((t) => t.name));
      } catch (error) {
        throw this.fail(error);
      }
    })();
    return this.toolNames;
  }

  private connect(): Promise<McpToolClient> {
    this.client ??= (async () => {
      const create = await this.options.loadClient();
      const origin = new URL(this.config.url).origin;
      const fetch = createBackendFetch({
        origin,
        timeoutMs: this.options.timeoutMs,
        log: this.options.log,
        baseFetch: this.options.baseFetch,
        authHeader: async () => {
          const token = await this.options.token();
          return token ? ['Authorization', `Bearer ${token}`] : undefined;
        },
      });
      try {
        return await create({
          url: this.config.url,
          fetch,
          clientName: 'agent-session-inspector',
          clientVersion: this.options.clientVersion,
          timeoutMs: this.options.timeoutMs,
        });
      } catch (error) {
        throw this.fail(error);
      }
    })();
    return this.client;
  }

  /** Drops the client so the next call reconnects, and classifies the failure. */
  private fail(error: unknown): BackendError {
    this.client = undefined;
    this.toolNames = undefined;
    const known = findBackendError(error);
    if (known) return known;
    const message = String((error as Error)?.message ?? error);
    if (/timed? ?out/i.test(message)) {
      return new BackendError('timeout', `The MCP server did not answer in time.`, {
        cause: error,
      });
    }
    return new BackendError('invalidResponse', `The MCP server's answer was unusable: ${message}`, {
      cause: error,
    });
  }
}
