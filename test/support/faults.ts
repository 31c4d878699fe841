import { Readable, Transform } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { expiredUrlResponse } from '../../src/demo/files/downloads.ts';
import type {
  BackendArea,
  BackendResponse,
  InterceptedRequest,
  InterceptorOutcome,
  RequestInterceptor,
} from '../../src/demo/server.ts';

/** Which requests a rule applies to; every given field must match. */
export interface FaultMatch {
  readonly area?: BackendArea;
  readonly method?: string;
  /** A pathname prefix, or a pattern tested against the pathname. */
  readonly path?: string | RegExp;
  /** MCP tool name of a tools/call. */
  readonly tool?: string;
  /** JSON-RPC method of an MCP request ('initialize', 'tools/list', …). */
  readonly rpcMethod?: string;
}

export type Fault =
  /** Answer late (the handler runs after the delay). */
  | { readonly kind: 'latency'; readonly ms: number }
  /** Answer with this status instead of running the handler. */
  | { readonly kind: 'status'; readonly status: number }
  | { readonly kind: 'rateLimit'; readonly retryAfterSeconds: number }
  /** Close the socket before the handler runs: nothing is applied. */
  | { readonly kind: 'dropBeforeHandler' }
  /** Run the handler (mutations are applied), then close the socket instead of answering. */
  | { readonly kind: 'dropAfterHandler' }
  /**
   * Run the handler, then send a truncated, unparseable JSON body; with `as: 'sse'`, as
   * the data of one complete server-sent event (how many MCP servers answer a POST).
   */
  | { readonly kind: 'malformedJson'; readonly as?: 'sse' }
  /** Run the handler, then send valid JSON of the wrong shape: ids removed, numbers as strings. */
  | { readonly kind: 'schemaViolation' }
  /**
   * Run the handler, then send what `rewrite` makes of its JSON: a REST body whole, or an
   * MCP tool result's JSON text and structuredContent (the JSON-RPC envelope is kept).
   */
  | {
      readonly kind: 'rewriteJson';
      readonly rewrite: (value: unknown, request: InterceptedRequest) => unknown;
    }
  /** Reject a download URL as expired, whatever its signature says. */
  | { readonly kind: 'expiredUrl' }
  /** Serve download bytes that do not match rawSha256 ('flipByte') or byteSize ('extraBytes'). */
  | { readonly kind: 'wrongChecksum'; readonly variant?: 'flipByte' | 'extraBytes' };

export interface FaultRule {
  readonly match: FaultMatch;
  readonly fault: Fault;
  /** How many matching requests the rule applies to (default: all). */
  readonly times?: number;
}

export interface ActiveRule {
  readonly rule: FaultRule;
  /** Requests this rule has been applied to. */
  readonly hits: number;
}

const ID_FIELDS = new Set([
  'id',
  'session_id',
  'sessionId',
  'work_item_id',
  'key',
  'event_id',
  'threadId',
]);

/** Valid JSON, wrong shape: what a drifting or buggy server might send. */
export function violateSchema(value: unknown): unknown {
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(violateSchema);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!ID_FIELDS.has(k)) out[k] = violateSchema(v);
    return out;
  }
  return value;
}

async function bufferBody(body: BackendResponse['body']): Promise<Buffer> {
  if (!(body instanceof Readable)) return Buffer.from(body);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function withBody(response: BackendResponse, body: Buffer): BackendResponse {
  return {
    ...response,
    headers: { ...response.headers, 'content-length': String(body.length) },
    body,
  };
}

/** Rewrites a JSON-RPC tool result (its text content and structuredContent) or a plain JSON body. */
function violateJsonBody(raw: Buffer): Buffer {
  return rewriteJsonBody(raw, violateSchema);
}

function rewriteJsonBody(raw: Buffer, rewrite: (value: unknown) => unknown): Buffer {
  let message: unknown;
  try {
    message = JSON.parse(raw.toString('utf8'));
  } catch {
    return raw;
  }
  const envelope = message as { jsonrpc?: unknown; result?: Record<string, unknown> } | null;
  // A REST body is rewritten whole; a JSON-RPC envelope keeps its id so the client still
  // matches the response to its request and sees the bad shape inside the result.
  if (envelope?.jsonrpc !== '2.0') return Buffer.from(JSON.stringify(rewrite(message)));
  const result = envelope.result;
  if (!result || typeof result !== 'object') return raw;
  const blocks = Array.isArray(result['content'])
    ? (result['content'] as { type?: unknown; text?: unknown }[])
    : [];
  for (const block of blocks) {
    if (block?.type !== 'text' || typeof block.text !== 'string') continue;
    try {
      block.text = JSON.stringify(rewrite(JSON.parse(block.text)));
    } catch {
      // Non-JSON text stays as it was.
    }
  }
  if (result['structuredContent'] !== undefined)
    result['structuredContent'] = rewrite(result['structuredContent']);
  return Buffer.from(JSON.stringify(message));
}

function corruptStream(body: Readable, variant: 'flipByte' | 'extraBytes'): Readable {
  let first = true;
  return body.pipe(
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        if (first && variant === 'flipByte' && chunk.length > 0) {
          chunk = Buffer.from(chunk);
          chunk[0] = chunk[0]! ^ 0x01;
        }
        first = false;
        done(null, chunk);
      },
      flush(done) {
        done(null, variant === 'extraBytes' ? Buffer.from('\n{"type":"injected"}\n') : null);
      },
    }),
  );
}

function wrongChecksum(
  response: BackendResponse,
  variant: 'flipByte' | 'extraBytes',
): BackendResponse {
  if (response.status >= 300) return response;
  const extra = variant === 'extraBytes' ? 21 : 0;
  const length = Number(response.headers['content-length'] ?? NaN) + extra;
  const headers = {
    ...response.headers,
    ...(Number.isNaN(length) ? {} : { 'content-length': String(length) }),
  };
  if (response.body instanceof Readable)
    return { ...response, headers, body: corruptStream(response.body, variant) };
  const bytes = Buffer.from(response.body);
  if (variant === 'flipByte' && bytes.length > 0) bytes[0] = bytes[0]! ^ 0x01;
  return {
    ...response,
    headers,
    body:
      variant === 'extraBytes'
        ? Buffer.concat([bytes, Buffer.from('\n{"type":"injected"}\n')])
        : bytes,
  };
}

function matches(match: FaultMatch, req: InterceptedRequest): boolean {
  if (match.area !== undefined && match.area !== req.area) return false;
  if (match.method !== undefined && match.method.toUpperCase() !== req.method) return false;
  if (match.tool !== undefined && match.tool !== req.toolName) return false;
  if (match.rpcMethod !== undefined && match.rpcMethod !== req.rpcMethod) return false;
  if (typeof match.path === 'string' && !req.url.pathname.startsWith(match.path)) return false;
  if (match.path instanceof RegExp && !match.path.test(req.url.pathname)) return false;
  return true;
}

function json(
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): BackendResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: Buffer.from(JSON.stringify(value)),
  };
}

async function apply(
  fault: Fault,
  req: InterceptedRequest,
  next: () => Promise<BackendResponse>,
): Promise<InterceptorOutcome> {
  switch (fault.kind) {
    case 'latency':
      await sleep(fault.ms);
      return next();
    case 'status':
      return json(fault.status, { error: 'injected', message: `Injected HTTP ${fault.status}` });
    case 'rateLimit':
      return json(
        429,
        { error: 'rate_limited', message: 'Too many requests' },
        { 'retry-after': String(fault.retryAfterSeconds) },
      );
    case 'dropBeforeHandler':
      return { dropConnection: true };
    case 'dropAfterHandler': {
      const response = await next();
      if (response.body instanceof Readable) response.body.destroy();
      return { dropConnection: true };
    }
    case 'malformedJson': {
      const response = await next();
      const raw = await bufferBody(response.body);
      const broken = Buffer.concat([
        raw.subarray(0, Math.floor(raw.length / 2)),
        Buffer.from('\u0000{"'),
      ]);
      if (fault.as === 'sse') {
        const event = Buffer.concat([
          Buffer.from('event: message\ndata: '),
          broken,
          Buffer.from('\n\n'),
        ]);
        return withBody(
          { ...response, headers: { ...response.headers, 'content-type': 'text/event-stream' } },
          event,
        );
      }
      return withBody(response, broken);
    }
    case 'schemaViolation': {
      const response = await next();
      return withBody(response, violateJsonBody(await bufferBody(response.body)));
    }
    case 'rewriteJson': {
      const response = await next();
      const raw = await bufferBody(response.body);
      return withBody(
        response,
        rewriteJsonBody(raw, (value) => fault.rewrite(value, req)),
      );
    }
    case 'expiredUrl':
      return expiredUrlResponse(Math.floor(Date.now() / 1000) - 1);
    case 'wrongChecksum':
      return wrongChecksum(await next(), fault.variant ?? 'flipByte');
  }
}

/**
 * A RequestInterceptor driven by rules; the first live rule that matches a request
 * applies. Pass `injector.interceptor` as the backend's `interceptor` option.
 */
export class FaultInjector {
  private readonly rules: { rule: FaultRule; hits: number }[] = [];

  readonly interceptor: RequestInterceptor = async (req, next) => {
    const active = this.rules.find(
      (r) => r.hits < (r.rule.times ?? Infinity) && matches(r.rule.match, req),
    );
    if (!active) return next();
    active.hits++;
    return apply(active.rule.fault, req, next);
  };

  add(rule: FaultRule): ActiveRule {
    const entry = { rule, hits: 0 };
    this.rules.push(entry);
    return {
      rule,
      get hits() {
        return entry.hits;
      },
    };
  }

  clear(): void {
    this.rules.length = 0;
  }
}
