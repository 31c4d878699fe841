import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

/** Which part of the reference backend a request is addressed to. */
export type BackendArea = 'mcp' | 'rest' | 'files' | 'health' | 'unknown';

/**
 * A request as the backend received it, body already read, with the MCP call it
 * carries (if any) decoded so interceptors can match on a tool name.
 */
export interface InterceptedRequest {
  readonly method: string;
  readonly url: URL;
  readonly area: BackendArea;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** JSON-RPC method of an MCP POST ('initialize', 'tools/call', …). */
  readonly rpcMethod: string | undefined;
  /** Tool name of an MCP `tools/call`. */
  readonly toolName: string | undefined;
  readonly toolArguments: unknown;
}

/** A response before it is written; the body is either bytes or a stream (large files). */
export interface BackendResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array | Readable;
}

/** Returned by an interceptor to close the socket without writing a response. */
export interface DropConnection {
  readonly dropConnection: true;
}

export type InterceptorOutcome = BackendResponse | DropConnection;

/**
 * The one hook the backend offers for fault injection (tests live outside src/).
 * Call `next()` to run the real handler (mutations happen there) and get its
 * response; return it, a different response, or `{ dropConnection: true }`.
 * Not calling `next()` means the handler never runs.
 */
export type RequestInterceptor = (
  request: InterceptedRequest,
  next: () => Promise<BackendResponse>,
) => InterceptorOutcome | Promise<InterceptorOutcome>;

export function isDropConnection(outcome: InterceptorOutcome): outcome is DropConnection {
  return (outcome as DropConnection).dropConnection === true;
}

export function jsonResponse(
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): BackendResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: Buffer.from(JSON.stringify(value)),
  };
}
