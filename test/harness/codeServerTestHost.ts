/**
 * A "VS Code executable" for @vscode/test-electron where no desktop VS Code can be
 * had: it accepts the desktop CLI (--extensionDevelopmentPath= --extensionTestsPath=
 * [folder]), starts code-server, opens the workbench in headless Chromium with the
 * tests in the URL payload, relays the extension host's console and exits with
 * the test result (0 pass, 1 fail, 124 timeout, 2 harness failure).
 *
 * --user-data-dir=DIR (as desktop VS Code takes it) puts everything the run writes in
 * DIR: code-server's user data, extensions and log, and the browser profile, which holds
 * the workbench's state (global and workspace storage, webview state, secret storage).
 * It is kept after the run, so the caller can check what was written there.
 */
import { chromium } from 'playwright-core';
import path from 'node:path';
import util from 'node:util';
import { freePort, startCodeServer, workbenchUrl } from '../../scripts/lib/codeServer.ts';
import { chromiumArgs, chromiumPath } from '../../scripts/lib/tools.ts';

// The whole main suite in one window: about 4 min on a quiet machine, more on a busy one.
const TIMEOUT_MS = Number(process.env.EXT_TEST_TIMEOUT_MS ?? 900_000);
const NOISE =
  /Resolving connection token|Resolved connection token|Creating a socket|ECONNREFUSED 127\.0\.0\.1:9|Content Security Policy|Failed to load resource|AgentHost|AccountPolicyGate|web worker extension host|allow-scripts and allow-same-origin|Service Worker|additional builtin extensions|reconnection-grace-time|Timed out waiting for authentication provider|^\[lifecycle\]|\[Extension Host\] (?!.*(passing|failing|✔|✓|\d+\)))/;

function parseArgs(argv: string[]) {
  const out: { dev: string[]; tests?: string; folder?: string; userDataDir?: string } = {
    dev: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const match = /^--([^=]+)(?:=(.*))?$/.exec(arg);
    if (!match) {
      out.folder = arg;
      continue;
    }
    const value = () => match[2] ?? argv[++i] ?? '';
    if (match[1] === 'extensionDevelopmentPath') out.dev.push(path.resolve(value()));
    else if (match[1] === 'extensionTestsPath') out.tests = path.resolve(value());
    else if (match[1] === 'user-data-dir') out.userDataDir = path.resolve(value());
    else if (['extensions-dir', 'folder-uri'].includes(match[1] ?? '') && match[2] === undefined)
      i++;
    // other desktop flags (--no-sandbox, --disable-extensions, …) do not apply here
  }
  return out;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (!args.tests || args.dev.length !== 1) {
    console.error(
      'usage: codeServerTestHost --extensionDevelopmentPath=DIR --extensionTestsPath=FILE [folder]',
    );
    return 2;
  }
  // Found before code-server starts, so a missing Chromium leaves no server running.
  const executablePath = chromiumPath();
  // The extension host runs in the server: it can check that it is the remote one.
  const port = await freePort();
  const server = await startCodeServer({
    smokeTestDriver: true,
    dataDir: args.userDataDir,
    port,
    env: { ASI_SERVER_AUTHORITY: `127.0.0.1:${port}` },
  });
  // A persistent profile in the data folder (a plain launch deletes its profile on close).
  const browser = await chromium.launchPersistentContext(path.join(server.dataDir, 'browser'), {
    executablePath,
    headless: true,
    args: chromiumArgs,
  });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    let finish: (code: number) => void = () => undefined;
    const result = new Promise<number>((resolve) => (finish = resolve));
    const timer = setTimeout(() => {
      console.error(`[host] timed out after ${TIMEOUT_MS} ms`);
      finish(124);
    }, TIMEOUT_MS);
    // The extension host's console arrives as console.log('%c…', css, fmt, ...args):
    // re-apply printf formatting, in order, so mocha's reporter reads normally.
    let chain = Promise.resolve();
    page.on('console', (message) => {
      chain = chain.then(async () => {
        let parts: unknown[];
        try {
          parts = await Promise.all(message.args().map((a) => a.jsonValue()));
        } catch {
          parts = [message.text()];
        }
        if (typeof parts[0] === 'string' && parts[0].startsWith('%c')) parts = parts.slice(2);
        const text = parts.length ? util.format(...parts) : message.text();
        if (process.env.VERBOSE || !NOISE.test(text)) {
          (message.type() === 'error' ? console.error : console.log)(text);
        }
      });
    });
    page.on('pageerror', (error) => console.error('[pageerror]', error.message));
    await page.exposeFunction('codeAutomationLog', () => undefined);
    await page.exposeFunction('codeAutomationExit', (code: number) => finish(code));
    const started = Date.now();
    await page.goto(
      workbenchUrl(server, {
        folder: args.folder,
        extensionDevelopmentPath: args.dev[0],
        extensionTestsPath: args.tests,
      }),
      // The workbench is megabytes of script: on a busy machine its load event takes
      // longer than Playwright's default 30 s. The run as a whole is bounded by TIMEOUT_MS.
      { timeout: TIMEOUT_MS },
    );
    const code = await result;
    clearTimeout(timer);
    await chain.catch(() => undefined);
    console.log(`[host] extension tests exited with ${code} after ${Date.now() - started} ms`);
    if (code !== 0) console.log(`[host] code-server log: ${server.logFile}`);
    console.log(`[host] user data: ${server.dataDir}`);
    return code;
  } finally {
    await browser.close().catch(() => undefined);
    await server.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error('[host] harness failure:', error);
    process.exit(2);
  },
);
