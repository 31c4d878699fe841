/**
 * Runs the integration tests in a real VS Code through @vscode/test-electron.
 * Desktop VS Code when VSCODE_EXECUTABLE points at one (or test-electron may
 * download it, where that is possible); otherwise the code-server test host.
 * AGENT_SESSIONS_DEV_BACKEND reaches the extension host through the environment.
 */
import { runTests } from '@vscode/test-electron';
import { chmodSync, mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../scripts/lib/tools.ts';
import { writeLocalCorpus } from '../support/localCorpus.ts';

/**
 * `userDataDir`: where the window keeps everything it writes (VS Code's --user-data-dir;
 * the code-server host puts its server data and browser profile there), left in place
 * for the caller to check. A new temporary folder when not given.
 */
export async function runIntegrationTests(
  env: Record<string, string>,
  userDataDir?: string,
): Promise<number> {
  // (one VS Code window; the reload scenario reloads it once, see index.ts)
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'asi-ws-'));
  mkdirSync(path.join(workspace, '.vscode'));
  // A workspace that tries to redirect connections: the extension must ignore it.
  writeFileSync(
    path.join(workspace, '.vscode', 'settings.json'),
    JSON.stringify({
      'sessionInspector.connections': [
        { id: 'evil', label: 'Workspace-injected', kind: 'mcp', url: 'http://127.0.0.1:9/mcp' },
      ],
    }),
  );
  const desktop = process.env.VSCODE_EXECUTABLE;
  const host = path.join(projectRoot, 'test', 'harness', 'code-server-test-host');
  try {
    await runTests({
      vscodeExecutablePath: desktop || host,
      extensionDevelopmentPath: projectRoot,
      extensionTestsPath: path.join(projectRoot, 'out', 'test', 'integration', 'index.cjs'),
      launchArgs: [
        workspace,
        '--disable-extensions',
        ...(userDataDir ? [`--user-data-dir=${userDataDir}`] : []),
      ],
      extensionTestsEnv: process.env.ASI_TEST_FILTER
        ? { ...env, ASI_TEST_FILTER: process.env.ASI_TEST_FILTER }
        : env,
    });
    return 0;
  } catch (error) {
    console.error(String((error as Error).message ?? error));
    return 1;
  }
}

/**
 * A generated Claude Code + Codex corpus for the local-transcripts tests, what it must show
 * (its days are UTC days, so the extension host runs in UTC), and fake `claude` / `codex`
 * CLIs first on PATH that log their arguments and folder instead of resuming anything.
 */
export async function localCorpusEnv(): Promise<Record<string, string>> {
  const corpus = await writeLocalCorpus(mkdtempSync(path.join(os.tmpdir(), 'asi-corpus-')));
  const { total, byHarness, byModel, byDay } = corpus.expected;
  return {
    CLAUDE_CONFIG_DIR: corpus.claudeDir,
    CODEX_HOME: corpus.codexDir,
    TZ: 'UTC',
    ASI_EXPECTED_LOCAL: JSON.stringify({
      files: corpus.files.map((f) => f.path),
      inputTokens: total.input,
      outputTokens: total.output,
      total,
      byHarness,
      byModel,
      byDay,
    }),
    ...fakeCliEnv(),
  };
}

/** `claude` and `codex` scripts that append a line "<cli> TAB <cwd> TAB <arg> TAB …" to ASI_FAKE_CLI_LOG. */
function fakeCliEnv(): Record<string, string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'asi-fake-cli-'));
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  const log = path.join(dir, 'calls.log');
  for (const cli of ['claude', 'codex']) {
    const script = path.join(bin, cli);
    writeFileSync(
      script,
      [
        '#!/bin/sh',
        String.raw`{ printf '%s\t%s' '${cli}' "$(pwd -P)"; for a in "$@"; do printf '\t%s' "$a"; done; printf '\n'; } >> '${log}'`,
        '',
      ].join('\n'),
    );
    chmodSync(script, 0o755);
  }
  // The VS Code server replaces PATH with the login shell's: the test puts ASI_FAKE_CLI_BIN back.
  return {
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    ASI_FAKE_CLI_BIN: bin,
    ASI_FAKE_CLI_LOG: log,
  };
}
