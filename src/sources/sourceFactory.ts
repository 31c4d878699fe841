import * as path from 'node:path';
import { BackendError } from '../domain/errors.ts';
import type { Logger } from '../util/logger.ts';
import type { PriceTable } from './local/pricing.ts';
import type { CreateMcpToolClient } from './mcp/mcpToolClient.ts';
import type { ConnectionConfig, SessionSource } from './sessionSource.ts';
import type * as SourcesBundle from './sourcesBundle.ts';

export type SourceAdapters = typeof SourcesBundle;

let adapters: SourceAdapters | undefined;

/** The adapters, the transcript engine and zod live in dist/sources.cjs, read on first use only. */
export function loadSourceAdapters(extensionPath: string): SourceAdapters {
  adapters ??= require(path.join(extensionPath, 'dist', 'sources.cjs')) as SourceAdapters;
  return adapters;
}

/** The token saved for a connection at a URL's origin (config/tokenStore.ts, handed in by extension.ts). */
export interface TokenLookup {
  get(connectionId: string, url: string): PromiseLike<string | undefined>;
}

export interface SourceFactoryDeps {
  tokens: TokenLookup;
  log: Logger;
  extensionPath: string;
  version: string;
  timeoutMs: () => number;
  /** The raw `sessionInspector.local.prices` value; validated here, in the lazily loaded bundle. */
  localPrices?: () => unknown;
  /**
   * The raw `sessionInspector.local.claudeConfigDirs` and `codexHome` values
   * (`{ claudeConfigDirs, codexHome }`): folders read before the environment variables.
   */
  localFolders?: () => unknown;
  /** Told once per distinct set of ignored price entries (one line per entry). */
  onPriceProblems?: (lines: string[]) => void;
  /**
   * The extension's global storage folder: local connections keep their scan index there,
   * shared by every window (see src/sources/local/persistedIndex.ts).
   */
  storageDir?: string;
}

/** Builds the adapter for a connection's kind. */
export function createSourceFactory(
  deps: SourceFactoryDeps,
): (config: ConnectionConfig) => SessionSource {
  let mcpModule: Promise<CreateMcpToolClient> | undefined;
  const loadMcpClient = () => {
    // The SDK lives in its own bundle and is read from disk on first connect only.
    mcpModule ??= Promise.resolve().then(() => {
      const loaded = require(path.join(deps.extensionPath, 'dist', 'mcpClient.cjs')) as {
        createMcpToolClient: CreateMcpToolClient;
      };
      return loaded.createMcpToolClient;
    });
    return mcpModule;
  };
  const load = () => loadSourceAdapters(deps.extensionPath);
  let reportedPriceProblems = '';
  const localPrices = (): PriceTable => {
    const { parsePriceOverrides, describePriceProblems } = load();
    const { prices, problems } = parsePriceOverrides(deps.localPrices?.());
    const lines = describePriceProblems(problems);
    // Every local connection reads the setting: warn once per change, not once per source.
    const key = lines.join('\n');
    if (key !== reportedPriceProblems) {
      reportedPriceProblems = key;
      for (const line of lines) deps.log.warn(`sessionInspector.local.prices: ignored ${line}`);
      if (lines.length > 0) deps.onPriceProblems?.(lines);
    }
    return prices;
  };
  return (config) => {
    const { McpSource, AgentsApiSource, LocalSource, folderOptions } = load();
    if (config.kind === 'local')
      return new LocalSource({
        config,
        // The folders of the machine whose extension host runs this (the remote one in a
        // remote window: extensionKind workspace).
        ...folderOptions(deps.localFolders?.()),
        env: process.env,
        priceOverrides: localPrices(),
        // First scans read files in helper processes, one per core (dist/scanWorker.cjs):
        // V8 flags suited to a short burst of scanning are theirs to choose, not the
        // extension host's (see parallelScan.ts).
        scanWorker: path.join(deps.extensionPath, 'dist', 'scanWorker.cjs'),
        scanHelpers: 'processes',
        ...(deps.storageDir && {
          persist: { dir: path.join(deps.storageDir, 'local-index'), version: deps.version },
        }),
        // What it logs (a failed scan helper, a model without a price) is worded in the
        // lazily loaded bundle.
        log: deps.log,
      });
    if (config.kind === 'mcp' && config.url) {
      const url = config.url;
      return new McpSource({
        config: { ...config, url },
        token: async () => deps.tokens.get(config.id, url),
        loadClient: loadMcpClient,
        log: deps.log,
        timeoutMs: deps.timeoutMs(),
        clientVersion: deps.version,
      });
    }
    if (config.kind === 'rest' && config.url) {
      const url = config.url;
      return new AgentsApiSource({
        config: { ...config, url },
        apiKey: async () => deps.tokens.get(config.id, url),
        log: deps.log,
        timeoutMs: deps.timeoutMs(),
      });
    }
    return new UnsupportedSource(config);
  };
}

/** A connection kind this build cannot read yet: says so in the tree instead of failing silently. */
class UnsupportedSource implements SessionSource {
  readonly config: ConnectionConfig;
  readonly operations = {};
  constructor(config: ConnectionConfig) {
    this.config = config;
  }
  private fail(): never {
    throw new BackendError(
      'invalidResponse',
      `Connections of kind "${this.config.kind}" are not supported by this version.`,
    );
  }
  capabilities(): never {
    return this.fail();
  }
  listSessions(): never {
    return this.fail();
  }
  test(): never {
    return this.fail();
  }
  async dispose(): Promise<void> {}
}
