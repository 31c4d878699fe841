import { BackendError, errorKindForStatus } from '../../domain/errors.ts';
import { redact } from '../../domain/redact.ts';
import type { Logger } from '../../util/logger.ts';

export interface BackendFetchOptions {
  /** Origin the credentials belong to: requests elsewhere never carry them. */
  origin: string;
  /** Header name and value that authenticate, or undefined to send none. */
  authHeader?: () => Promise<[string, string] | undefined>;
  timeoutMs: number;
  log: Logger;
  /** The fetch to wrap; the extension host's global one honours VS Code's proxy settings. */
  baseFetch?: typeof fetch;
}

/**
 * fetch with credentials scoped to one origin, a timeout bridged to AbortSignal,
 * HTTP failures turned into BackendError and logs that never show a secret.
 */
export function createBackendFetch(options: BackendFetchOptions): typeof fetch {
  const baseFetch = options.baseFetch ?? globalThis.fetch;
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    const auth = url.origin === options.origin ? await options.authHeader?.() : undefined;
    if (auth) headers.set(auth[0], auth[1]);
    // Both the header value and the bare credential (without "Bearer ") are secrets.
    const secrets = auth ? [auth[1], auth[1].replace(/^\w+\s+/, '')] : [];

    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    const started = Date.now();
    let response: Response;
    try {
      response = await baseFetch(new Request(request, { headers, signal }));
    } catch (error) {
      const elapsed = Date.now() - started;
      if (timeout.aborted) {
        options.log.warn(`${request.method} ${url.pathname} timed out after ${elapsed} ms`);
        throw new BackendError(
          'timeout',
          `The server at ${url.origin} did not answer within ${Math.round(options.timeoutMs / 1000)} s.`,
          { cause: error },
        );
      }
      if (request.signal?.aborted)
        throw new BackendError('canceled', 'Canceled.', { cause: error });
      const reason = redact(String((error as Error)?.cause ?? error), secrets);
      options.log.warn(`${request.method} ${url.pathname} failed: ${reason}`);
      throw new BackendError('network', `Could not reach ${url.origin}: ${reason}`, {
        cause: error,
      });
    }
    options.log.trace(
      `${request.method} ${redact(url.pathname + url.search, secrets)} → ${response.status} (${Date.now() - started} ms)`,
    );
    const kind = errorKindForStatus(response.status);
    if (kind) {
      const detail = redact((await response.text().catch(() => '')).slice(0, 300), secrets);
      const retryAfter = Number(response.headers.get('retry-after'));
      const path = redact(url.pathname, secrets).slice(0, 200);
      throw new BackendError(kind, describeStatus(response.status, url.origin, path, detail), {
        status: response.status,
        retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
      });
    }
    return response;
  };
}

function describeStatus(status: number, origin: string, path: string, detail: string): string {
  const suffix = detail ? ` Server said: ${detail}` : '';
  switch (status) {
    case 404:
    case 410:
      // The path says what was missing (an agent key, a session, the MCP endpoint itself).
      return `${origin} has nothing at ${path} (${status}): not found.`;
    case 401:
      return `${origin} rejected the credentials (401). Sign in again.`;
    case 403:
      return `${origin} refused access (403).${suffix}`;
    case 429:
      return `${origin} is rate limiting requests (429).`;
    default:
      return `${origin} answered ${status}.${suffix}`;
  }
}
