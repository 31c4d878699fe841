/**
 * Browser harness for the webview component tests: bundles test/webview/fixture/page.ts
 * with esbuild, serves it from a throwaway 127.0.0.1 server under the webview's own CSP
 * (read from src/webview/webviewHtml.ts, so the two cannot drift apart), and drives it
 * with playwright-core and the system Chromium, kept off the network.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { chromiumArgs, chromiumPath, projectRoot } from '../../../scripts/lib/tools.ts';
import type { Probe } from './probeTypes.ts';

const fixture = path.join(projectRoot, 'test', 'webview', 'fixture');
export const screenshots = path.join(projectRoot, 'test-results', 'webview');

type Remote<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
};

export interface Harness {
  page: Page;
  /** `window.__probe` of the current page, called through page.evaluate. */
  probe: Remote<Probe>;
  /** Dialogs opened (alert, confirm, prompt): a payload that ran. */
  dialogs: string[];
  /** Console errors and uncaught page errors. */
  consoleErrors: string[];
  pageErrors: string[];
  /** Loads a fresh page (every test starts from one). */
  load(): Promise<void>;
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** The CSP directives of webviewHtml.ts, with its nonce and cspSource filled in. */
export function webviewCsp(nonce: string, cspSource: string): string {
  const source = readFileSync(path.join(projectRoot, 'src', 'webview', 'webviewHtml.ts'), 'utf8');
  const block = /const csp = \[([\s\S]*?)\]\.join\('; '\)/.exec(source)?.[1];
  if (!block) throw new Error('webviewHtml.ts: the CSP array was not found; update the harness');
  const directives = [...block.matchAll(/`([^`]*)`/g)].map((m) =>
    (m[1] ?? '').replaceAll('${nonce}', nonce).replaceAll('${webview.cspSource}', cspSource),
  );
  if (directives.some((d) => d.includes('${'))) {
    throw new Error(`webviewHtml.ts: unknown placeholder in the CSP: ${directives.join('; ')}`);
  }
  return directives.join('; ');
}

async function bundle(entry = 'page.ts'): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [path.join(fixture, entry)],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'error',
  });
  return result.outputFiles[0]?.text ?? '';
}

/**
 * The highlight.js languages the app imports by URL (esbuild.mjs builds the same files to
 * dist/webview/hljs/), served next to the page's bundle as the webview serves them.
 */
async function bundleLanguages(): Promise<Map<string, string>> {
  const { HLJS_LANGUAGES } = await import('../../../webview-ui/src/transcript/hljsLanguages.ts');
  const result = await esbuild.build({
    entryPoints: Object.fromEntries(
      Object.keys(HLJS_LANGUAGES).map((name) => [
        name,
        path.join(projectRoot, 'node_modules', 'highlight.js', 'es', 'languages', `${name}.js`),
      ]),
    ),
    outdir: '/hljs',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'error',
  });
  return new Map(
    result.outputFiles.map((file) => [`/hljs/${path.basename(file.path)}`, file.text]),
  );
}
let languages: Promise<Map<string, string>> | undefined;

interface PageOptions {
  /** Serve the page under the webview's CSP (default), or without any CSP. */
  csp?: boolean;
  /** Add the whole app (<session-details>, which mounts its own copies of the components). */
  app?: boolean;
  /** The usage dashboard page instead (fixture/dashboardPage.ts, <usage-dashboard>). */
  dashboard?: boolean;
}

function page(nonce: string, csp: string | undefined, app: boolean, dashboard = false): string {
  const meta = csp ? `<meta http-equiv="Content-Security-Policy" content="${csp}">` : '';
  if (dashboard) {
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
${meta}
<link rel="stylesheet" href="/codicon.css" id="vscode-codicon-stylesheet">
<link rel="stylesheet" href="/page.css">
<title>usage dashboard</title>
</head>
<body>
<usage-dashboard></usage-dashboard>
<script type="module" nonce="${nonce}" src="/main.js"></script>
</body>
</html>`;
  }
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
${meta}
<link rel="stylesheet" href="/codicon.css" id="vscode-codicon-stylesheet">
<link rel="stylesheet" href="/page.css">
<title>webview components</title>
</head>
<body>
<main>
<transcript-view></transcript-view>
<aside><usage-view></usage-view><comments-view></comments-view></aside>
</main>
${app ? '<session-details></session-details>' : ''}
<script type="module" nonce="${nonce}" src="/main.js"></script>
</body>
</html>`;
}

async function serve(
  script: string,
  options: PageOptions,
): Promise<{ server: Server; url: string }> {
  const codicons = path.join(projectRoot, 'node_modules', '@vscode', 'codicons', 'dist');
  const files: Record<string, [string, () => Buffer | string]> = {
    '/main.js': ['text/javascript', () => script],
    '/page.css': ['text/css', () => readFileSync(path.join(fixture, 'page.css'))],
    '/codicon.css': ['text/css', () => readFileSync(path.join(codicons, 'codicon.css'))],
    '/codicon.ttf': ['font/ttf', () => readFileSync(path.join(codicons, 'codicon.ttf'))],
  };
  const served = await (languages ??= bundleLanguages());
  const server = createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (pathname === '/') {
      // A fresh nonce per load, as webviewHtml makes one per panel.
      const nonce = randomBytes(16).toString('base64');
      const origin = `http://${request.headers.host}`;
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      const csp = options.csp === false ? undefined : webviewCsp(nonce, origin);
      response.end(page(nonce, csp, options.app === true, options.dashboard === true));
      return;
    }
    const language = served.get(pathname);
    if (language !== undefined) {
      response.writeHead(200, { 'content-type': 'text/javascript' });
      response.end(language);
      return;
    }
    const file = files[pathname];
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': file[0] });
    response.end(file[1]());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/` };
}

const built = new Map<string, Promise<string>>();

/** Starts server and browser for one test file. */
export async function openHarness(options: PageOptions = {}): Promise<Harness> {
  mkdirSync(screenshots, { recursive: true });
  const entry = options.dashboard ? 'dashboardPage.ts' : 'page.ts';
  if (!built.has(entry)) built.set(entry, bundle(entry));
  // The browser first: if it cannot start, no server is left open to keep the test
  // process alive.
  const browser: Browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: chromiumArgs,
  });
  let served: Awaited<ReturnType<typeof serve>>;
  try {
    served = await serve(await built.get(entry)!, options);
  } catch (error) {
    await browser.close();
    throw error;
  }
  const { server, url } = served;
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const dialogs: string[] = [];
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));

  const probe = new Proxy({} as Remote<Probe>, {
    get:
      (_target, name: string) =>
      (...args: unknown[]) =>
        page.evaluate(
          ([method, params]) =>
            (
              globalThis as unknown as {
                __probe: Record<string, (...a: unknown[]) => unknown>;
              }
            ).__probe[method]!(...params),
          [name, args] as [string, unknown[]],
        ),
  });

  return {
    page,
    probe,
    dialogs,
    consoleErrors,
    pageErrors,
    async load() {
      await page.goto(url);
      await page.waitForFunction('window.__probe !== undefined', undefined, { timeout: 10_000 });
      if (options.dashboard) await page.locator('usage-dashboard h1').waitFor();
      else await page.locator('transcript-view .message').first().waitFor();
      dialogs.length = 0;
      consoleErrors.length = 0;
      pageErrors.length = 0;
    },
    async shot(name) {
      await page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: false });
    },
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Polls `read` until `ok` holds; fails with the last value it saw. */
export async function until<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  timeoutMs = 8_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!ok(last)) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last).slice(0, 800)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 40));
    last = await read();
  }
  return last;
}
