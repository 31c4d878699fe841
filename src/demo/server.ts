/**
 * The reference backend: one HTTP server on 127.0.0.1 that behaves like the four seed
 * systems, for tests, benchmarks, `npm start` and "Open Demo".
 *
 *   /mcp, /mcp/closedloop, /mcp/itential   MCP Streamable HTTP, stateless, JSON responses,
 *                                          `Authorization: Bearer <token>` (else HTTP 401)
 *   /v2/agents/...                         agents REST API v2, `x-api-key` (else 401 JSON);
 *                                          Request-Timeout(-Millis) → 504 JSON when exceeded
 *   /files/<opaque>?X-Amz-...              presigned transcript downloads, no other auth;
 *                                          expired → 403 XML "Request has expired"
 *   /healthz                               200
 *
 * Monitoring disabled is a tool-level 403 (see monitoringError in closedloopQuery.ts).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { defaultEpoch, DemoClock } from './clock.ts';
import { CommentStore } from './commentStore.ts';
import type { AgentsFixtures } from './data/agents.ts';
import {
  HostileCorpus,
  makeHostile,
  type HostileFixtures,
  type HostileReport,
} from './data/hostile.ts';
import type { ItentialFixtures } from './data/itential.ts';
import { buildDataset, type ClosedloopFixtures, type Dataset } from './dataset.ts';
import { Downloads } from './files/downloads.ts';
import { UrlSigner } from './files/signedUrls.ts';
import {
  isDropConnection,
  jsonResponse,
  type BackendArea,
  type BackendResponse,
  type InterceptedRequest,
  type RequestInterceptor,
} from './http.ts';
import { McpEndpoint } from './mcp/endpoint.ts';
import type { ToolContext } from './mcpTools/context.ts';
import { AgentsApi } from './rest/agentsApi.ts';
import { restError } from './rest/errors.ts';
import { parseRequestTimeout } from './rest/timeouts.ts';
import { BackendState, type BackendStateView } from './state.ts';
import { TranscriptStore } from './transcriptFiles.ts';

export type {
  BackendArea,
  BackendResponse,
  DropConnection,
  InterceptedRequest,
  InterceptorOutcome,
  RequestInterceptor,
} from './http.ts';
export type { BackendStateView, CompletionRecord } from './state.ts';

export interface ReferenceBackendOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Loopback only, by design. */
  readonly host?: '127.0.0.1';
  /** Accepted as `Authorization: Bearer` on /mcp and as `x-api-key` on /v2; random when omitted. */
  readonly token?: string;
  readonly seed?: number;
  /** The instant the data is laid out around; defaults to the current minute. */
  readonly now?: Date;
  /** Lifetime of signed transcript URLs (default 300). */
  readonly urlTtlSeconds?: number;
  /** Size of the one large transcript (default 50 MiB). */
  readonly largeTranscriptBytes?: number;
  /** false: the reporting tools answer as if monitoring were disabled for the account. */
  readonly monitoringEnabled?: boolean;
  /** Itential tools answer with the older `messages[]` shape. */
  readonly legacyItentialShape?: boolean;
  /**
   * Hostile data mode: an injection payload in every text field served (names, users,
   * repositories, branches, models, harnesses, comments, manual tasks, instructions,
   * transcripts, events, error messages, usage dimensions); see data/hostile.ts.
   */
  readonly hostile?: boolean;
  /** Hostile mode: the base URL the payloads' URLs point at (default: a port nothing answers). */
  readonly canaryUrl?: string;
  /** Test hook (fault injection); see RequestInterceptor. */
  readonly interceptor?: RequestInterceptor;
}

export interface ReferenceBackendFixtures {
  readonly closedloop: ClosedloopFixtures;
  readonly itential: ItentialFixtures;
  readonly agents: AgentsFixtures;
}

export interface ReferenceBackend {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** All MCP tools on one endpoint. */
  readonly mcpUrl: string;
  /** Per-system MCP endpoints, as the real systems are separate servers. */
  readonly mcpUrls: {
    readonly all: string;
    readonly closedloop: string;
    readonly itential: string;
  };
  /** Base of the agents REST API: `${restUrl}/agents/...` */
  readonly restUrl: string;
  readonly token: string;
  readonly seed: number;
  readonly now: Date;
  readonly state: BackendStateView;
  /** Ids of records that demonstrate one behaviour each. */
  readonly fixtures: ReferenceBackendFixtures;
  /** Hostile data mode only: the corpus, where it was placed, and its own fixtures. */
  readonly hostile: (HostileReport & { readonly fixtures: HostileFixtures }) | undefined;
  setMonitoringEnabled(enabled: boolean): void;
  /**
   * A reporting session's agent starts (true) or stops (false) waiting for input, as a
   * live agent would; false when no running session has that id.
   */
  setAwaitingInput(sessionId: string, awaiting: boolean): boolean;
  close(): Promise<void>;
}

export const DEFAULT_SEED = 1;
export const DEFAULT_LARGE_TRANSCRIPT_BYTES = 50 * 1024 * 1024;
export const DEFAULT_URL_TTL_SECONDS = 300;
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

function areaOf(pathname: string, mcp: McpEndpoint): BackendArea {
  if (pathname === '/healthz') return 'health';
  if (mcp.handles(pathname)) return 'mcp';
  if (pathname === '/v2' || pathname.startsWith('/v2/')) return 'rest';
  if (pathname.startsWith('/files/')) return 'files';
  return 'unknown';
}

function decodeRpc(
  body: Buffer,
): Pick<InterceptedRequest, 'rpcMethod' | 'toolName' | 'toolArguments'> {
  try {
    const message = JSON.parse(body.toString('utf8')) as {
      method?: unknown;
      params?: { name?: unknown; arguments?: unknown };
    };
    const rpcMethod = typeof message?.method === 'string' ? message.method : undefined;
    const toolName =
      rpcMethod === 'tools/call' && typeof message.params?.name === 'string'
        ? message.params.name
        : undefined;
    return { rpcMethod, toolName, toolArguments: toolName ? message.params?.arguments : undefined };
  } catch {
    return { rpcMethod: undefined, toolName: undefined, toolArguments: undefined };
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Writes a response unless one was already sent (a timeout answered first). */
async function send(res: ServerResponse, response: BackendResponse): Promise<void> {
  if (res.headersSent || res.destroyed) {
    if (response.body instanceof Readable) response.body.destroy();
    return;
  }
  res.writeHead(response.status, response.headers);
  if (response.body instanceof Readable) {
    await pipeline(response.body, res).catch(() => res.destroy());
  } else {
    res.end(response.body);
  }
}

function loopbackRequest(req: IncomingMessage): boolean {
  // DNS-rebinding guard: a web page must not reach this server through another name.
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  const origin = req.headers.origin;
  if (!LOOPBACK_HOSTS.has(host)) return false;
  if (origin === undefined || origin === 'null') return true;
  try {
    return LOOPBACK_HOSTS.has(new URL(origin).hostname) || origin.startsWith('vscode-');
  } catch {
    return false;
  }
}

/** Starts the reference backend on 127.0.0.1; see ReferenceBackend for what it offers. */
export async function startReferenceBackend(
  options: ReferenceBackendOptions = {},
): Promise<ReferenceBackend> {
  const parts = new BackendParts(options);
  const server: Server = createServer((req, res) => {
    void onRequest(parts, options.interceptor, req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  parts.baseUrl = `http://127.0.0.1:${port}`;
  return backendHandle(parts, server);
}

/**
 * What one backend is made of: its data, state, clock and the three endpoints. The
 * handlers read `baseUrl`, which is known only once the server listens.
 */
class BackendParts {
  readonly seed: number;
  readonly now: Date;
  readonly token: string;
  readonly dataset: Dataset;
  readonly corpus: HostileCorpus | undefined;
  readonly hostileFixtures: HostileFixtures | undefined;
  readonly state: BackendState;
  readonly transcripts: TranscriptStore;
  readonly mcp: McpEndpoint;
  readonly rest: AgentsApi;
  readonly downloads: Downloads;
  baseUrl = '';

  constructor(options: ReferenceBackendOptions) {
    this.seed = options.seed ?? DEFAULT_SEED;
    this.now = options.now ?? defaultEpoch();
    this.token = options.token ?? `sk_live_demo_${randomBytes(18).toString('base64url')}`;
    const dataset = buildDataset({ seed: this.seed, now: this.now });
    const corpus = options.hostile ? new HostileCorpus(this.seed, options.canaryUrl) : undefined;
    this.dataset = dataset;
    this.corpus = corpus;
    this.hostileFixtures = corpus ? makeHostile(dataset, corpus) : undefined;
    const clock = new DemoClock(this.now);
    const state = new BackendState(dataset, {
      monitoringEnabled: options.monitoringEnabled ?? true,
      legacyItentialShape: options.legacyItentialShape ?? false,
    });
    this.state = state;
    const transcripts = new TranscriptStore(dataset, {
      largeBytes: options.largeTranscriptBytes ?? DEFAULT_LARGE_TRANSCRIPT_BYTES,
      ...(corpus && this.hostileFixtures
        ? { hostile: { corpus, hugeIn: this.hostileFixtures.hugeTranscript } }
        : {}),
    });
    this.transcripts = transcripts;
    const signer = new UrlSigner(options.urlTtlSeconds ?? DEFAULT_URL_TTL_SECONDS);
    const ctx: ToolContext = {
      dataset,
      state,
      clock,
      transcripts,
      comments: new CommentStore(dataset, transcripts, corpus),
      signer,
      baseUrl: () => this.baseUrl,
      hostile: corpus,
    };
    this.mcp = new McpEndpoint(ctx, this.token);
    this.rest = new AgentsApi({
      data: dataset.agents,
      state,
      clock,
      token: this.token,
      hostile: corpus,
    });
    this.downloads = new Downloads(signer, dataset, transcripts);
  }

  async route(req: InterceptedRequest, signal: AbortSignal): Promise<BackendResponse> {
    switch (req.area) {
      case 'health':
        return jsonResponse(200, { ok: true });
      case 'mcp':
        return this.mcp.handle(req);
      case 'rest':
        return this.rest.handle(req, signal);
      case 'files':
        return this.downloads.handle(req);
      default:
        return jsonResponse(404, {
          error: 'not_found',
          message: `No route for ${req.url.pathname}`,
        });
    }
  }
}

async function onRequest(
  parts: BackendParts,
  interceptor: RequestInterceptor | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (!loopbackRequest(req)) {
    await send(
      res,
      jsonResponse(403, {
        error: 'forbidden',
        message: 'Only loopback hosts and origins are served',
      }),
    );
    return;
  }
  const body = await readBody(req);
  if (body === undefined) {
    await send(res, jsonResponse(413, { error: 'payload_too_large' }));
    return;
  }
  const url = new URL(req.url ?? '/', parts.baseUrl);
  const area = areaOf(url.pathname, parts.mcp);
  const request: InterceptedRequest = {
    method: req.method ?? 'GET',
    url,
    area,
    headers: req.headers,
    body,
    ...(area === 'mcp'
      ? decodeRpc(body)
      : { rpcMethod: undefined, toolName: undefined, toolArguments: undefined }),
  };
  // Request-Timeout is armed before any interceptor so injected latency counts
  // against it, as server-side slowness would.
  const deadline = new RequestDeadline();
  if (area === 'rest') {
    const timeout = parseRequestTimeout(req.headers);
    if (!timeout.ok) {
      await send(res, restError(400, timeout.message));
      return;
    }
    if (timeout.ms !== undefined) deadline.arm(timeout.ms, res);
  }
  const next = async (): Promise<BackendResponse> =>
    deadline.timedOut ?? parts.route(request, deadline.signal);
  try {
    const outcome = interceptor ? await interceptor(request, next) : await next();
    if (isDropConnection(outcome)) {
      req.socket.destroy();
      return;
    }
    await send(res, outcome);
  } catch (error) {
    await send(
      res,
      jsonResponse(500, { error: 'internal_error', message: (error as Error).message }),
    );
  } finally {
    deadline.dispose();
  }
}

/** A request's Request-Timeout: when it passes, the 504 is sent and the handler aborted. */
class RequestDeadline {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  timedOut: BackendResponse | undefined;

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  arm(ms: number, res: ServerResponse): void {
    this.timer = setTimeout(() => {
      this.timedOut = restError(504, `Request timed out after ${ms} ms (Request-Timeout)`);
      this.controller.abort();
      void send(res, this.timedOut);
    }, ms);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}

function backendHandle(parts: BackendParts, server: Server): ReferenceBackend {
  const { baseUrl, dataset, state, corpus, hostileFixtures } = parts;
  let closing: Promise<void> | undefined;
  return {
    url: baseUrl,
    mcpUrl: `${baseUrl}/mcp`,
    mcpUrls: {
      all: `${baseUrl}/mcp`,
      closedloop: `${baseUrl}/mcp/closedloop`,
      itential: `${baseUrl}/mcp/itential`,
    },
    restUrl: `${baseUrl}/v2`,
    token: parts.token,
    seed: parts.seed,
    now: parts.now,
    state,
    fixtures: {
      closedloop: dataset.closedloop.fixtures,
      itential: dataset.itential.fixtures,
      agents: dataset.agents.fixtures,
    },
    hostile:
      corpus && hostileFixtures
        ? {
            canaryUrl: corpus.canaryUrl,
            payloads: corpus.payloads,
            placements: () => corpus.placements(),
            fixtures: hostileFixtures,
          }
        : undefined,
    setMonitoringEnabled(enabled: boolean) {
      state.monitoringEnabled = enabled;
    },
    setAwaitingInput(sessionId: string, awaiting: boolean) {
      const session = dataset.closedloop.sessions.find((s) => s.id === sessionId);
      if (!session || session.endedAtMs !== null) return false;
      session.awaitingInput = awaiting;
      return true;
    },
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        await parts.mcp.close();
        await parts.transcripts.close();
      })();
      return closing;
    },
  };
}
