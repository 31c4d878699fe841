/**
 * Starts code-server (a real VS Code) on 127.0.0.1 with throwaway profile folders,
 * telemetry and update checks off and the extension gallery pointed at a closed
 * loopback port. Used by `npm start`, the integration-test host and the UI tests.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { codeServerNodeDir, ensureCodeServer } from './tools.ts';

export interface CodeServerOptions {
  /** Extra environment for the server and so for the extension host. */
  env?: Record<string, string>;
  port?: number;
  /** .vsix files to install before start. */
  install?: string[];
  /** Needed to load an unpackaged extension or tests through the URL payload. */
  smokeTestDriver?: boolean;
  /** Folder for profile, extensions and logs (default: a new temp folder). */
  dataDir?: string;
  settings?: Record<string, unknown>;
}

export interface RunningCodeServer {
  url: string;
  port: number;
  dataDir: string;
  logFile: string;
  close(): Promise<void>;
}

export const quietSettings = {
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'workbench.enableExperiments': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'security.workspace.trust.enabled': false,
  'npm.fetchOnlinePackageInfo': false,
  'chat.disableAIFeatures': true,
  'window.commandCenter': false,
};

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startCodeServer(options: CodeServerOptions = {}): Promise<RunningCodeServer> {
  const bin = ensureCodeServer();
  const node = codeServerNodeDir();
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'asi-code-server-'));
  const userDataDir = path.join(dataDir, 'user-data');
  const extensionsDir = path.join(dataDir, 'extensions');
  mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  writeFileSync(
    path.join(userDataDir, 'User', 'settings.json'),
    JSON.stringify({ ...quietSettings, ...options.settings }, null, 2),
  );
  const configFile = path.join(dataDir, 'config.yaml');
  writeFileSync(configFile, 'auth: none\ncert: false\n');
  const env = {
    ...process.env,
    ...options.env,
    PATH: `${path.join(node, 'bin')}:${process.env.PATH}`,
    XDG_DATA_HOME: path.join(dataDir, 'xdg-data'),
    XDG_CONFIG_HOME: path.join(dataDir, 'xdg-config'),
    EXTENSIONS_GALLERY:
      '{"serviceUrl":"http://127.0.0.1:9/gallery","itemUrl":"http://127.0.0.1:9/item"}',
  };
  const common = [
    '--config',
    configFile,
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
  ];
  for (const vsix of options.install ?? []) {
    const result = spawnSync(bin, [...common, '--install-extension', vsix, '--force'], {
      env,
      encoding: 'utf8',
    });
    if (result.status !== 0)
      throw new Error(`installing ${vsix} failed: ${result.stderr || result.stdout}`);
  }
  const port = options.port ?? (await freePort());
  const logFile = path.join(dataDir, 'code-server.log');
  const log = openSync(logFile, 'w');
  const vscodeServer = options.smokeTestDriver ? bareVscodeServer(bin) : undefined;
  const args = [
    ...common,
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--disable-proxy',
    '--ignore-last-opened',
    ...(options.smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
  ];
  // Its own process group: killing only the launcher would leave watcher children behind.
  const child = vscodeServer
    ? spawn(
        path.join(node, 'bin', 'node'),
        [
          vscodeServer,
          '--host',
          '127.0.0.1',
          '--port',
          String(port),
          '--without-connection-token',
          '--accept-server-license-terms',
          '--disable-telemetry',
          '--disable-workspace-trust',
          '--user-data-dir',
          userDataDir,
          '--extensions-dir',
          extensionsDir,
          '--enable-smoke-test-driver',
        ],
        { env, stdio: ['ignore', log, log], detached: true },
      )
    : spawn(bin, args, { env, stdio: ['ignore', log, log], detached: true });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    try {
      process.kill(-(child.pid ?? 0), 'SIGTERM');
    } catch {
      return;
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    try {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`code-server exited early; log: ${logFile}`);
    try {
      if ((await fetch(`${url}${vscodeServer ? '/' : '/healthz'}`)).ok)
        return { url, port, dataDir, logFile, close };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await close();
  throw new Error(`code-server did not become healthy within 60 s; log: ${logFile}`);
}

/**
 * code-server before 4.10x has no --vscode-option to pass enable-smoke-test-driver on to
 * its VS Code server (and rejects unknown options), so for tests that need it the VS Code
 * server inside it is started directly: the same VS Code, without code-server's wrapper.
 * One thing is missing then: code-server's /mint-key route, which the web workbench uses
 * to encrypt secret storage, so secrets do not survive a window reload there (the reload
 * scenario's token check fails on 4.100 for that reason alone).
 */
function bareVscodeServer(bin: string): string | undefined {
  const root = path.join(path.dirname(path.dirname(bin)), 'code-server');
  const cli = readFileSync(path.join(root, 'out', 'node', 'cli.js'), 'utf8');
  return cli.includes('"vscode-option"')
    ? undefined
    : path.join(root, 'lib', 'vscode', 'out', 'server-main.js');
}

/** The workbench URL, optionally loading an unpackaged extension and its tests. */
export function workbenchUrl(
  server: { url: string; port: number },
  options: { folder?: string; extensionDevelopmentPath?: string; extensionTestsPath?: string },
): string {
  const remote = (p: string) => `vscode-remote://127.0.0.1:${server.port}${path.resolve(p)}`;
  const payload: [string, string][] = [];
  if (options.extensionDevelopmentPath) {
    payload.push(['extensionDevelopmentPath', remote(options.extensionDevelopmentPath)]);
  }
  if (options.extensionTestsPath)
    payload.push(['extensionTestsPath', remote(options.extensionTestsPath)]);
  if (payload.length) payload.push(['skipWelcome', 'true'], ['skipReleaseNotes', 'true']);
  const params = new URLSearchParams();
  if (options.folder) params.set('folder', path.resolve(options.folder));
  else params.set('ew', 'true');
  if (payload.length) params.set('payload', JSON.stringify(payload));
  return `${server.url}/?${params.toString()}`;
}
