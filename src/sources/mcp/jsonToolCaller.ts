/**
 * The part of an MCP source the webview data needs: call a tool and get its JSON.
 * McpSource satisfies it; taking this instead keeps these modules free of the client.
 */
export interface JsonToolCaller {
  /** The tool's JSON answer; a BackendError (from src/domain/errors.ts) otherwise. */
  callJson(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>;
  /** Whether the server lists the tool; absent: assume it does and let the call fail. */
  hasTool?(name: string, signal?: AbortSignal): Promise<boolean>;
}
