import { BackendError, findBackendError } from '../../domain/errors.ts';
import type { SessionPage } from '../../domain/session.ts';
import type { Logger } from '../../util/logger.ts';
import { createBackendFetch } from '../http/backendFetch.ts';
import type {
  ConnectionConfig,
  ListSessionsRequest,
  SessionSource,
  SourceCapabilities,
} from '../sessionSource.ts';
import type { CreateMcpToolClient, McpToolClient } from './mcpToolClient.ts';
import { parseListAgentSessions } from './reportingRows.ts';
import { toolErrorToBackendError } from './toolErrors.ts';

export interface McpSourceOptions {
  config: ConnectionConfig & { url: string };
  token: () => Promise<string | undefined>;
  loadClient: () => Promise<CreateMcpToolClient>;
  log: Logger;
  timeoutMs: number;
  clientVersion: string;
  baseFetch?: typeof fetch;
}

/** Capabilities follow the tools the server actually lists. */
export function capabilitiesFromTools(names: ReadonlySet<string>): SourceCapabilities {
  return {
    listSessions: names.has('list-agent-sessions') || names.has('get_sessions'),
    transcripts: names.has('get-agent-session-transcript') || names.has('describe_session'),
    comments: names.has('list-session-comments'),
    usage: names.has('get-agent-session-usage') || names.has('describe_session_token_usage'),
    manualTasks: names.has('describe_manual_task'),
    complete: names.has('session_complete'),
  };
}

/** An MCP endpoint: connects lazily, keeps one client, reconnects after a failure. */
export class McpSource implements SessionSource {
  readonly config: ConnectionConfig & { url: string };
  private client: Promise<McpToolClient> | undefined;
  private toolNames: Promise<Set<string>> | undefined;
  private readonly options: McpSourceOptions;

  constructor(options: McpSourceOptions) {
    this.options = options;
    this.config = options.config;
  }

  async capabilities(signal?: AbortSignal): Promise<SourceCapabilities> {
    return capabilitiesFromTools(await this.tools(signal));
  }

  async listSessions(request: ListSessionsRequest): Promise<SessionPage> {
    const tools = await this.tools(request.signal);
    if (!tools.has('list-agent-sessions')) {
      throw new BackendError('invalidResponse', 'This MCP server has no list-agent-sessions tool.');
    }
    const offset = Number(request.cursor ?? 0) || 0;
    const payload = await this.callJson(
      'list-agent-sessions',
      { limit: request.limit, offset },
      request.signal,
    );
    return parseListAgentSessions(payload, this.config.id, offset);
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
    try {
      return JSON.parse(result.text);
    } catch {
      throw new BackendError('invalidResponse', `${name} answered with text that is not JSON.`);
    }
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
