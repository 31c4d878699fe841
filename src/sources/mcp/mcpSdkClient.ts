/**
 * Entry point of the lazily loaded MCP chunk: adapts the official SDK client to
 * McpToolClient. Streamable HTTP first; an old server that only speaks SSE gets
 * the SSE transport.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { BackendError, findBackendError } from '../../domain/errors.ts';
import type { CreateMcpToolClient, McpToolClient, McpToolResult } from './mcpToolClient.ts';

export const createMcpToolClient: CreateMcpToolClient = async (options) => {
  const url = new URL(options.url);
  const info = { name: options.clientName, version: options.clientVersion };
  let client = new Client(info);
  try {
    await client.connect(new StreamableHTTPClientTransport(url, { fetch: options.fetch }), {
      timeout: options.timeoutMs,
    });
  } catch (error) {
    if (!looksLikeLegacySseServer(error)) throw unreadable(error) ?? error;
    client = new Client(info);
    try {
      await client.connect(new SSEClientTransport(url, { fetch: options.fetch }), {
        timeout: options.timeoutMs,
      });
    } catch (legacyError) {
      // The SSE transport would keep reconnecting on its own.
      await client.close().catch(() => undefined);
      // No SSE server either: the first answer (a 404 for a wrong URL) says why.
      const known = findBackendError(legacyError);
      throw known && known.kind !== 'notFound' ? legacyError : error;
    }
  }
  return wrap(client, options.timeoutMs);
};

/** A server from before Streamable HTTP answers the POST with 404/405. */
function looksLikeLegacySseServer(error: unknown): boolean {
  const status =
    findBackendError(error)?.status ?? (error as { status?: unknown } | undefined)?.status;
  if (status === 404 || status === 405) return true;
  const text = String((error as Error)?.message ?? error);
  return /\b(404|405)\b/.test(text);
}

/**
 * A message that is not JSON, or not JSON-RPC. The SDK rejects the call at once when such
 * an answer comes as a JSON body, but one inside an SSE stream only reaches `onerror`, and
 * the call would wait for its full timeout.
 */
function unreadable(error: unknown): BackendError | undefined {
  if (!(error instanceof Error)) return undefined;
  if (!(error instanceof SyntaxError) && !/ZodError$/.test(error.name)) return undefined;
  return new BackendError(
    'invalidResponse',
    `The MCP server sent a malformed answer: ${error.message.slice(0, 200)}`,
    { cause: error },
  );
}

/**
 * The call an SDK `onerror` belongs to: the SSE stream of a call is read in that call's
 * async context, so a malformed message in it fails that call and no other.
 */
const currentCall = new AsyncLocalStorage<(error: BackendError) => void>();

function wrap(client: Client, defaultTimeout: number): McpToolClient {
  client.onerror = (error) => {
    const malformed = unreadable(error);
    if (malformed) currentCall.getStore()?.(malformed);
  };
  /** Runs one SDK request; a malformed answer ends it at once instead of at its timeout. */
  const call = <T>(
    signal: AbortSignal | undefined,
    run: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> => {
    const abandon = new AbortController();
    const combined = signal ? AbortSignal.any([signal, abandon.signal]) : abandon.signal;
    return new Promise<T>((resolve, reject) => {
      const fail = (error: BackendError) => {
        reject(error);
        abandon.abort(error); // lets the SDK drop the request it still waits for
      };
      currentCall.run(fail, () => {
        run(combined).then(resolve, (error: unknown) => reject(unreadable(error) ?? error));
      });
    });
  };
  return {
    async listTools(options) {
      const result = await call(options?.signal, (signal) =>
        client.listTools(undefined, {
          signal,
          timeout: options?.timeoutMs ?? defaultTimeout,
        }),
      );
      return result.tools.map((t) => ({ name: t.name, description: t.description }));
    },
    async callTool(name, args, options) {
      const result = await call(options?.signal, (signal) =>
        client.callTool(
          { name, arguments: args },
          { signal, timeout: options?.timeoutMs ?? defaultTimeout },
        ),
      );
      return toToolResult(result);
    },
    async close() {
      await client.close();
    },
  };
}

function toToolResult(result: Awaited<ReturnType<Client['callTool']>>): McpToolResult {
  const content = Array.isArray(result.content) ? result.content : [];
  const text = content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .filter(Boolean)
    .join('\n');
  return {
    isError: result.isError === true,
    text,
    structuredContent: result.structuredContent,
  };
}
