/**
 * Failures a backend call can end in, each with what the user should do next.
 * Views turn these into nodes ("Sign in", "Retry"), never raw toasts.
 */
export type BackendErrorKind =
  | 'unauthorized' // 401: token missing or wrong
  | 'forbidden' // 403: e.g. monitoring not enabled for the account
  | 'notFound' // 404/410: no such endpoint, agent, session or task — not an unreadable answer
  | 'rateLimited' // 429
  | 'server' // 5xx
  | 'timeout'
  | 'network' // refused, reset, DNS
  | 'invalidResponse' // unreadable or schema-violating answer
  | 'toolError' // MCP result with isError: the server refused the action
  | 'canceled'
  | 'invalidFilter'; // caught before sending: the filters contradict each other

export class BackendError extends Error {
  override readonly name = 'BackendError';
  readonly kind: BackendErrorKind;
  readonly status: number | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    kind: BackendErrorKind,
    message: string,
    options: { status?: number; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.kind = kind;
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function errorKindForStatus(status: number): BackendErrorKind | undefined {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404 || status === 410) return 'notFound';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 429) return 'rateLimited';
  if (status >= 500) return 'server';
  return undefined;
}

/**
 * Structural check: the extension ships several bundles (extension, sources, MCP
 * client), each with its own copy of this class, so `instanceof` cannot be trusted
 * across them.
 */
export function isBackendError(error: unknown): error is BackendError {
  return (
    error instanceof Error &&
    error.name === 'BackendError' &&
    typeof (error as { kind?: unknown }).kind === 'string'
  );
}

/** Finds a BackendError anywhere in an error's cause chain (SDKs wrap what fetch threw). */
export function findBackendError(error: unknown): BackendError | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 8; depth++) {
    if (isBackendError(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
