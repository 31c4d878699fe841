/**
 * The small surface the extension needs from an MCP client. The official SDK sits
 * behind it in a separately bundled chunk (dist/mcpClient.cjs) that is loaded on
 * first connect, so activation never pays for it.
 */
export interface McpToolInfo {
  name: string;
  description?: string;
}

export interface McpToolResult {
  isError: boolean;
  /** Concatenated text content. */
  text: string;
  structuredContent?: unknown;
}

export interface McpCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface McpToolClient {
  listTools(options?: McpCallOptions): Promise<McpToolInfo[]>;
  callTool(
    name: string,
    args: Record<string, unknown>,
    options?: McpCallOptions,
  ): Promise<McpToolResult>;
  close(): Promise<void>;
}

export interface McpClientOptions {
  url: string;
  /** fetch with auth, timeouts and error mapping already applied. */
  fetch: typeof fetch;
  clientName: string;
  clientVersion: string;
  timeoutMs: number;
}

export type CreateMcpToolClient = (options: McpClientOptions) => Promise<McpToolClient>;
