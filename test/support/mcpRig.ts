/**
 * Shared setup for the tests of what the panels show (usage, transcripts, comments, the
 * dashboard): a reference backend with a fault injector and a request log in front,
 * McpSources built the way the extension builds them, and throwaway storage folders.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  InterceptedRequest,
  ReferenceBackend,
  ReferenceBackendOptions,
  RequestInterceptor,
} from '../../src/demo/server.ts';
import { isBackendError, type BackendError } from '../../src/domain/errors.ts';
import { createMcpToolClient } from '../../src/sources/mcp/mcpSdkClient.ts';
import { McpSource } from '../../src/sources/mcp/mcpSource.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { startTestBackend } from './backend.ts';
import { FaultInjector } from './faults.ts';

export interface SeenRequest {
  area: InterceptedRequest['area'];
  tool: string | undefined;
  args: unknown;
  path: string;
  authorization: string | undefined;
}

/** A backend whose requests are logged and can be faulted. */
export class Rig {
  readonly faults = new FaultInjector();
  readonly seen: SeenRequest[] = [];
  backend!: ReferenceBackend;

  readonly interceptor: RequestInterceptor = (req, next) => {
    this.seen.push({
      area: req.area,
      tool: req.toolName,
      args: req.toolArguments,
      path: req.url.pathname,
      authorization: req.headers.authorization,
    });
    return this.faults.interceptor(req, next);
  };

  async start(options: ReferenceBackendOptions = {}): Promise<this> {
    this.backend = await startTestBackend({ ...options, interceptor: this.interceptor });
    return this;
  }

  source(timeoutMs = 5000): McpSource {
    return new McpSource({
      config: { id: 'test', label: 'Test', kind: 'mcp', url: this.backend.mcpUrl },
      token: async () => this.backend.token,
      loadClient: async () => createMcpToolClient,
      log: silentLogger,
      timeoutMs,
      clientVersion: 'test',
    });
  }

  /** Requests since `mark` (an index into `seen`) that match. */
  count(mark: number, match: { area?: SeenRequest['area']; tool?: string } = {}): number {
    return this.seen
      .slice(mark)
      .filter(
        (r) =>
          (match.area === undefined || r.area === match.area) &&
          (match.tool === undefined || r.tool === match.tool),
      ).length;
  }

  get mark(): number {
    return this.seen.length;
  }
}

export async function tempStorage(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'asi-webdata-'));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Names in `<storage>/transcripts` (empty when it does not exist). */
export async function cacheFiles(storage: string): Promise<string[]> {
  return readdir(join(storage, 'transcripts')).catch(() => []);
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
}

export async function backendFailure(promise: Promise<unknown>): Promise<BackendError> {
  const error = await rejection(promise);
  assert.ok(isBackendError(error), `a BackendError, got ${String(error)}`);
  return error;
}
