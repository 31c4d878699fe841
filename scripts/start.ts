/**
 * `npm start`: builds, starts the reference backend on 127.0.0.1 and opens a real
 * VS Code with the extension loaded and a connection to that backend (the token
 * reaches SecretStorage, never settings). Desktop `code` when it is on PATH,
 * otherwise code-server, whose URL is printed. Ctrl-C stops everything.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { freePort, startCodeServer, workbenchUrl } from './lib/codeServer.ts';
import { startLocalDemo } from './lib/localDemo.ts';
import { projectRoot } from './lib/tools.ts';

const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: projectRoot, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const token = randomBytes(24).toString('base64url');
const backendPort = Number(process.env.BACKEND_PORT ?? (await freePort()));
// The token goes in the environment: a command line is visible to every user in `ps`.
const backend = spawn(process.execPath, ['src/demo/cli.ts', '--port', String(backendPort)], {
  cwd: projectRoot,
  env: { ...process.env, REFERENCE_BACKEND_TOKEN: token },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const backendUrl = await new Promise<string>((resolve, reject) => {
  let buffered = '';
  backend.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(buffered);
    if (match?.[1]) resolve(match[1]);
  });
  backend.once('exit', (code) => reject(new Error(`the reference backend exited (${code})`)));
});
console.log(`reference backend: ${backendUrl} (MCP at /mcp, REST at /v2/)`);

// Local transcripts: a generated corpus with one session still being written, unless
// `npm start -- --real-local` asks for this machine's own ~/.claude and ~/.codex.
const realLocal = process.argv.includes('--real-local');
const localDemo = realLocal
  ? undefined
  : await startLocalDemo(path.join(projectRoot, '.vscode-test', 'local-demo'));
const devEnv: Record<string, string> = {
  AGENT_SESSIONS_DEV_BACKEND: JSON.stringify({ url: backendUrl, token }),
  AGENT_SESSIONS_DEV_LOCAL: '1',
  ...localDemo?.env,
};
console.log(
  localDemo
    ? `local transcripts: a generated corpus in ${localDemo.env.CLAUDE_CONFIG_DIR} and ${localDemo.env.CODEX_HOME}, one session still being written`
    : "local transcripts: this machine's own Claude Code and Codex folders",
);
const workspace = path.join(projectRoot, '.vscode-test', 'workspace');
mkdirSync(workspace, { recursive: true });
const cleanups: (() => Promise<void> | void)[] = [
  () => void backend.kill('SIGTERM'),
  () => localDemo?.stop(),
];
const stop = async (exitCode = 0) => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  process.exit(exitCode);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

const hasDesktopCode =
  !process.env.USE_CODE_SERVER &&
  spawnSync('sh', ['-c', 'command -v code'], { encoding: 'utf8' }).status === 0;
if (hasDesktopCode) {
  const code = spawn(
    'code',
    ['--new-window', `--extensionDevelopmentPath=${projectRoot}`, workspace],
    {
      env: { ...process.env, ...devEnv },
      stdio: 'inherit',
    },
  );
  console.log('opened desktop VS Code with the extension; Ctrl-C here stops the backend.');
  cleanups.push(() => void code.kill('SIGTERM'));
} else {
  const port = Number(process.env.CODE_SERVER_PORT ?? 8080);
  const server = await startCodeServer({
    port: await isFree(port).then((free) => (free ? port : freePort())),
    env: devEnv,
    smokeTestDriver: true,
    dataDir: path.join(projectRoot, '.vscode-test', 'code-server'),
  }).catch(async (error: unknown) => {
    // A Ctrl-C during the blocking first install is handled first (stop() exits quietly):
    // its signal waits for this turn of the event loop to end.
    await new Promise((resolve) => setImmediate(resolve));
    console.error(`npm start: ${error instanceof Error ? error.message : String(error)}`);
    return stop(1);
  });
  cleanups.push(() => server.close());
  console.log('\nOpen this URL in a browser (code-server, VS Code 1.139, bound to 127.0.0.1):\n');
  console.log(
    `  ${workbenchUrl(server, { folder: workspace, extensionDevelopmentPath: projectRoot })}\n`,
  );
  console.log('Ctrl-C stops code-server and the backend.');
}
localDemo?.startWriting();

async function isFree(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(500) });
    return false;
  } catch {
    return true;
  }
}
