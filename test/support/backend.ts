import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  startReferenceBackend,
  type ReferenceBackend,
  type ReferenceBackendOptions,
} from '../../src/demo/server.ts';

/** Tests pin "now" so derived values (stale, waiting ages) never drift. */
export const FIXED_NOW = new Date('2026-08-01T12:00:00.000Z');
export const TEST_SEED = 7;
export const TEST_TOKEN = 'sk_live_test_token';

export function startTestBackend(options: ReferenceBackendOptions = {}): Promise<ReferenceBackend> {
  return startReferenceBackend({
    seed: TEST_SEED,
    now: FIXED_NOW,
    token: TEST_TOKEN,
    largeTranscriptBytes: 2 * 1024 * 1024,
    ...options,
  });
}

export interface ConnectOptions {
  /** Defaults to the backend's /mcp. */
  readonly url?: string;
  /** Defaults to the backend's token; null sends no Authorization header. */
  readonly token?: string | null;
  /** 'auto' negotiates the 2026-07-28 revision; the default is the 2025 handshake. */
  readonly negotiation?: 'legacy' | 'auto';
}

export async function connectMcp(
  backend: ReferenceBackend,
  options: ConnectOptions = {},
): Promise<Client> {
  const token = options.token === undefined ? backend.token : options.token;
  const client = new Client(
    { name: 'reference-backend-tests', version: '1.0.0' },
    options.negotiation === 'auto' ? { versionNegotiation: { mode: 'auto' } } : undefined,
  );
  const transport = new StreamableHTTPClientTransport(new URL(options.url ?? backend.mcpUrl), {
    requestInit: token === null ? {} : { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

// Tests inspect tool JSON ad hoc; a strict type per tool would only restate the assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LooseJson = any;

export interface ToolOutcome {
  readonly isError: boolean;
  readonly text: string;
  /** The text content parsed as JSON (undefined when it is not JSON). */
  readonly json: LooseJson;
  readonly structured: unknown;
}

/** Calls a tool and returns its first text block, parsed. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  options: { timeout?: number } = {},
): Promise<ToolOutcome> {
  const result = await client.callTool(
    { name, arguments: args },
    options.timeout === undefined ? undefined : { timeout: options.timeout },
  );
  const content = (result.content ?? []) as { type: string; text?: string }[];
  const text = content.find((c) => c.type === 'text')?.text ?? '';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { isError: result.isError === true, text, json, structured: result.structuredContent };
}

/** fetch against the REST API with the backend's key unless told otherwise. */
export function restFetch(
  backend: ReferenceBackend,
  path: string,
  init: RequestInit & { apiKey?: string | null } = {},
): Promise<Response> {
  const { apiKey, headers, ...rest } = init;
  const key = apiKey === undefined ? backend.token : apiKey;
  return fetch(`${backend.restUrl}${path}`, {
    ...rest,
    headers: {
      ...(key === null ? {} : { 'x-api-key': key }),
      ...(headers as Record<string, string> | undefined),
    },
  });
}

/** A response body as loosely typed JSON (fetch types it as unknown). */
export async function readJson(response: Response): Promise<LooseJson> {
  return response.json();
}
