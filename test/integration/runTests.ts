/**
 * Runs the integration tests in a real VS Code through @vscode/test-electron.
 * Desktop VS Code when VSCODE_EXECUTABLE points at one (or test-electron may
 * download it, where that is possible); otherwise the code-server test host.
 * AGENT_SESSIONS_DEV_BACKEND reaches the extension host through the environment.
 */
import { runTests } from '@vscode/test-electron';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../scripts/lib/tools.ts';
import { writeLocalCorpus } from '../support/localCorpus.ts';

export async function runIntegrationTests(env: Record<string, string>): Promise<number> {
  // (one VS Code window; the reload scenario reloads it once, see index.ts)
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'asi-ws-'));
  mkdirSync(path.join(workspace, '.vscode'));
  // A workspace that tries to redirect connections: the extension must ignore it.
  writeFileSync(
    path.join(workspace, '.vscode', 'settings.json'),
    JSON.stringify({
      'agentSessions.connections': [
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
      launchArgs: [workspace, '--disable-extensions'],
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

/** A generated Claude Code + Codex corpus for the local-transcripts test, and what it must show. */
export async function localCorpusEnv(): Promise<Record<string, string>> {
  const corpus = await writeLocalCorpus(mkdtempSync(path.join(os.tmpdir(), 'asi-corpus-')));
  return {
    CLAUDE_CONFIG_DIR: corpus.claudeDir,
    CODEX_HOME: corpus.codexDir,
    ASI_EXPECTED_LOCAL: JSON.stringify({
      files: corpus.files.map((f) => f.path),
      inputTokens: corpus.expected.total.input,
      outputTokens: corpus.expected.total.output,
    }),
  };
}
