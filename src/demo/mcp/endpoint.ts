import { timingSafeEqual } from 'node:crypto';
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import { jsonResponse, type BackendResponse, type InterceptedRequest } from '../http.ts';
import type { ToolContext } from '../mcpTools/context.ts';
import { createToolServer, TOOL_GROUPS, type ToolGroup } from '../mcpTools/toolServer.ts';

export const MCP_PATHS: Readonly<Record<string, readonly ToolGroup[]>> = {
  '/mcp': TOOL_GROUPS,
  '/mcp/closedloop': ['closedloop'],
  '/mcp/itential': ['itential'],
};

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function toWebRequest(req: InterceptedRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return new Request(req.url, {
    method: req.method,
    headers,
    ...(req.method === 'POST' ? { body: new Uint8Array(req.body) } : {}),
  });
}

async function toBackendResponse(response: Response): Promise<BackendResponse> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { status: response.status, headers, body: Buffer.from(await response.arrayBuffer()) };
}

/**
 * Streamable HTTP at /mcp (and per-system paths), stateless: every POST gets a fresh
 * McpServer over shared data. 2026-era requests go through createMcpHandler; 2025-era
 * ones (the SDK client's default) through a per-request transport with JSON
 * responses instead of SSE, so fault injection can rewrite response bodies.
 */
export class McpEndpoint {
  private readonly ctx: ToolContext;
  private readonly token: string;
  private readonly modern = new Map<string, McpHttpHandler>();

  constructor(ctx: ToolContext, token: string) {
    this.ctx = ctx;
    this.token = token;
    for (const [path, groups] of Object.entries(MCP_PATHS)) {
      this.modern.set(
        path,
        createMcpHandler(() => createToolServer(ctx, groups), {
          legacy: 'reject',
          responseMode: 'auto',
          onerror: () => {},
        }),
      );
    }
  }

  handles(pathname: string): boolean {
    return pathname in MCP_PATHS;
  }

  async handle(req: InterceptedRequest): Promise<BackendResponse> {
    const auth = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(auth);
    if (!match || !sameSecret(match[1]!.trim(), this.token)) {
      return jsonResponse(
        401,
        {
          error: 'invalid_token',
          error_description: match ? 'The bearer token is not valid' : 'A bearer token is required',
        },
        {
          'www-authenticate': match
            ? 'Bearer realm="reference-backend", error="invalid_token", error_description="The bearer token is not valid"'
            : 'Bearer realm="reference-backend"',
        },
      );
    }
    if (req.method !== 'POST') {
      // Stateless server: no standalone SSE stream (GET) and no session to delete.
      return jsonResponse(
        405,
        { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null },
        { allow: 'POST' },
      );
    }
    const groups = MCP_PATHS[req.url.pathname]!;
    const request = toWebRequest(req);
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(req.body.toString('utf8'));
    } catch {
      parsedBody = undefined;
    }
    if (await isLegacyRequest(request.clone(), parsedBody)) {
      const server = createToolServer(this.ctx, groups);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      try {
        return await toBackendResponse(
          await transport.handleRequest(
            request,
            parsedBody === undefined ? undefined : { parsedBody },
          ),
        );
      } finally {
        void transport.close().catch(() => {});
        void server.close().catch(() => {});
      }
    }
    return toBackendResponse(
      await this.modern
        .get(req.url.pathname)!
        .fetch(request, parsedBody === undefined ? undefined : { parsedBody }),
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.modern.values()].map((h) => h.close()));
  }
}
