import { BackendError, errorKindForStatus } from '../../domain/errors.ts';
import type { McpToolResult } from './mcpToolClient.ts';

/**
 * A tool result with isError. Reporting servers put the status of the API behind
 * the tool in the result (`structuredContent.error.status`, or a leading
 * "Error 403 (code): …" text): 401/403/429/5xx then mean the same as over HTTP —
 * a 403 here is "monitoring not enabled", not a bad token. Anything else is the
 * server refusing the action, with its text shown as is.
 */
export function toolErrorToBackendError(tool: string, result: McpToolResult): BackendError {
  const status = statusOf(result);
  const kind = status === undefined ? undefined : errorKindForStatus(status);
  const text = result.text.trim() || `${tool} failed without a message.`;
  return new BackendError(kind ?? 'toolError', text, { status });
}

function statusOf(result: McpToolResult): number | undefined {
  const structured = result.structuredContent as { error?: { status?: unknown } } | undefined;
  if (typeof structured?.error?.status === 'number') return structured.error.status;
  const match = /^Error (\d{3})\b/.exec(result.text.trim());
  return match ? Number(match[1]) : undefined;
}
