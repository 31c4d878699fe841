import type { CallToolResult } from '@modelcontextprotocol/server';

/** A successful result: the JSON as text (what most clients read) and as structuredContent. */
export function okResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * A tool failure as MCP expects it: a result with isError, never a thrown protocol
 * error. The text leads with the HTTP status of the underlying API so a client can
 * tell "403 monitoring disabled" from "404 not found" without parsing prose.
 */
export function errorResult(status: number, code: string, message: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `Error ${status} (${code}): ${message}` }],
    structuredContent: { error: { status, code, message } },
  };
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

export const READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: true } as const;
