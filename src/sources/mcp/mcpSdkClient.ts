/**
 * Entry point of the lazily loaded MCP chunk: adapts the official SDK client to
 * McpToolClient. Streamable HTTP first; an old server that only speaks SSE gets
 * the SSE transport.
 */
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
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
    if (!looksLikeLegacySseServer(error)) throw error;
    client = new Client(info);
    await client.connect(new SSEClientTransport(url, { fetch: options.fetch }), {
      timeout: options.timeoutMs,
    });
  }
  return wrap(client, options.timeoutMs);
};

/** A server from before Streamable HTTP answers the POST with 404/405. */
function looksLikeLegacySseServer(error: unknown): boolean {
  const text = String((error as Error)?.message ?? error);
  return /\b(404|405)\b/.test(text);
}

function wrap(client: Client, defaultTimeout: number): McpToolClient {
  return {
    async listTools(options) {
      const result = await client.listTools(undefined, {
        signal: options?.signal,
        timeout: options?.timeoutMs ?? defaultTimeout,
      });
      return result.tools.map((t) => ({ name: t.name, description: t.description }));
    },
    async callTool(name, args, options) {
      const result = await client.callTool(
        { name, arguments: args },
        { signal: options?.signal, timeout: options?.timeoutMs ?? defaultTimeout },
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
