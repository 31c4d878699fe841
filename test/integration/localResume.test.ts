import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionSummary } from '../../src/domain/session.ts';
import { until } from './support/until.ts';
import { extensionApi } from './support/extensionApi.ts';
import { loadChecked } from './support/localLoad.ts';

/**
 * Resume in Terminal in a real extension host. The runner writes fake `claude` and `codex`
 * scripts (ASI_FAKE_CLI_BIN) that append "<cli> TAB <cwd> TAB <args…>" to ASI_FAKE_CLI_LOG.
 * The VS Code server hands the extension host and its terminals the login shell's PATH, so
 * the test puts the scripts first on both, as a user's PATH would have them: in this
 * process's environment (where the command looks for the CLI) and in the terminals' env.
 */
const ID = 'local-resume';
const SESSION_ID = 'e2c1f7a4-5b6d-4e8f-9a0b-1c2d3e4f5a6b';

const calls = (): string[][] => {
  const log = process.env.ASI_FAKE_CLI_LOG!;
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));
};
const resume = (session: SessionSummary) =>
  vscode.commands.executeCommand('sessionInspector.resumeInTerminal', { kind: 'session', session });
const resumeTerminals = () => vscode.window.terminals.filter((t) => t.name.startsWith('Resume: '));

describe('resume in terminal', () => {
  it('runs claude --resume / codex resume in the session folder, else the home folder; never an unsafe id', async function () {
    this.timeout(90_000);
    const claudeDir = process.env.CLAUDE_CONFIG_DIR;
    const bin = process.env.ASI_FAKE_CLI_BIN;
    assert.ok(
      claudeDir && bin && process.env.ASI_FAKE_CLI_LOG,
      'the runner set up the corpus and fake CLIs',
    );
    const hostPath = process.env.PATH;
    const terminalSettings = vscode.workspace.getConfiguration('terminal.integrated');
    const api = await extensionApi();
    // A session whose folder exists. Only a prompt: the corpus token totals stay as generated.
    const folder = await mkdtemp(path.join(os.tmpdir(), 'asi-resume-cwd-'));
    const project = path.join(claudeDir, 'projects', folder.replaceAll('/', '-'));
    await mkdir(project, { recursive: true });
    await writeFile(
      path.join(project, `${SESSION_ID}.jsonl`),
      JSON.stringify({
        type: 'user',
        cwd: folder,
        sessionId: SESSION_ID,
        uuid: 'u-1',
        timestamp: '2026-06-01T09:00:00.000Z',
        message: { role: 'user', content: 'Resume me' },
      }) + '\n',
    );
    api.registry.addEphemeral({ id: ID, label: 'This machine (resume)', kind: 'local' });
    try {
      process.env.PATH = `${bin}${path.delimiter}${hostPath ?? ''}`;
      await terminalSettings.update(
        'env.linux',
        { PATH: `${bin}:\${env:PATH}` },
        vscode.ConfigurationTarget.Global,
      );
      await until('the local connection in the store', () => api.store.state(ID));
      await loadChecked(api, ID);
      while (api.store.state(ID)?.next !== undefined) await api.store.loadMore(ID);
      const sessions = api.store.state(ID)?.sessions ?? [];
      const mine = sessions.find((s) => s.resumeId === SESSION_ID);
      assert.ok(mine, 'the new session is listed with its id');
      assert.equal(mine.harness, 'claude-code');
      assert.equal(mine.project, folder);

      // Only this run's calls count (a log line lives as long as the runner's temp folder).
      const earlier = calls().length;
      const newCalls = () => calls().slice(earlier);
      // Its folder exists: the terminal starts there.
      await resume(mine);
      const terminal = await until('the Resume terminal', () =>
        resumeTerminals().find((t) => t.name === 'Resume: Resume me'),
      );
      const pid = await Promise.race([
        terminal.processId,
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 15_000)),
      ]);
      assert.ok(pid, 'the terminal started a shell');
      const claudeCall = await until(
        'the fake claude to be run',
        () => newCalls().find((c) => c.includes(SESSION_ID)),
        30_000,
      );
      assert.deepEqual(claudeCall, ['claude', realpathSync(folder), '--resume', SESSION_ID]);

      // A corpus Codex session: its folder (/home/dev/…) does not exist here, so home.
      const codex = sessions.find((s) => s.harness === 'codex' && s.resumeId && !s.parentId);
      assert.ok(codex, 'the corpus has a resumable Codex session');
      assert.ok(codex.project && !existsSync(codex.project), codex.project);
      await resume(codex);
      const codexCall = await until(
        'the fake codex to be run',
        () => newCalls().find((c) => c[0] === 'codex' && c.includes(codex.resumeId!)),
        30_000,
      );
      assert.deepEqual(codexCall, ['codex', realpathSync(os.homedir()), 'resume', codex.resumeId]);

      // Subagents, unsafe ids, and a CLI missing from PATH: no terminal, nothing run.
      const terminals = resumeTerminals().length;
      const logged = calls().length;
      const subagent = sessions.find((s) => s.parentId && s.harness === 'claude-code');
      assert.ok(subagent, 'the corpus has subagent rows');
      assert.equal(subagent.resumeId, undefined, 'a subagent has no id of its own to resume');
      await resume(subagent);
      await resume({ ...mine, resumeId: `${SESSION_ID}; touch /tmp/asi-pwned` });
      await resume({ ...mine, resumeId: '--dangerously-skip-permissions' });
      process.env.PATH = path.join(folder, 'no-such-bin');
      // Says so (with Copy Command) instead of opening a terminal.
      await resume(mine);
      await new Promise((r) => setTimeout(r, 1_500));
      assert.equal(resumeTerminals().length, terminals, 'no terminal was opened');
      assert.equal(calls().length, logged, 'no CLI was run');
      assert.equal(existsSync('/tmp/asi-pwned'), false);
    } finally {
      process.env.PATH = hostPath;
      await terminalSettings.update('env.linux', undefined, vscode.ConfigurationTarget.Global);
      for (const t of resumeTerminals()) t.dispose();
      await rm(project, { recursive: true, force: true });
      await rm(folder, { recursive: true, force: true });
      await api.registry.remove(ID);
    }
  });
});
