import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension.ts';

/** The runner points CLAUDE_CONFIG_DIR and CODEX_HOME at a generated corpus. */
describe('local Claude Code and Codex transcripts', () => {
  it('lists every session file of the corpus, subagents and orphans included, with its tokens', async () => {
    const expected = JSON.parse(process.env.ASI_EXPECTED_LOCAL ?? 'null') as {
      files: string[];
      inputTokens: number;
      outputTokens: number;
    } | null;
    assert.ok(expected, 'the runner generated a corpus (ASI_EXPECTED_LOCAL)');
    const api = (await vscode.extensions
      .getExtension<ExtensionApi>('agent-session-inspector.agent-session-inspector')
      ?.activate()) as ExtensionApi;
    api.registry.addEphemeral({ id: 'local', label: 'This machine', kind: 'local' });
    try {
      await api.store.refresh('local');
      while (api.store.state('local')?.next !== undefined) await api.store.loadMore('local');
      const state = api.store.state('local');
      assert.equal(state?.error, undefined, state?.error?.message);
      const sessions = state?.sessions ?? [];
      assert.ok(sessions.some((s) => s.harness === 'claude-code'));
      assert.ok(sessions.some((s) => s.harness === 'codex'));
      const ids = new Set(sessions.map((s) => s.id));
      const missing = expected.files.filter((f) => !ids.has(f));
      assert.deepEqual(missing, [], 'every file is a row (rows are keyed by path)');
      const input = sessions.reduce((n, s) => n + (s.inputTokens ?? 0), 0);
      const output = sessions.reduce((n, s) => n + (s.outputTokens ?? 0), 0);
      assert.equal(input, expected.inputTokens, 'input tokens equal the reference computation');
      assert.equal(output, expected.outputTokens, 'output tokens equal the reference computation');
      const groups = api.tree.getChildren({ kind: 'connection', connectionId: 'local' });
      assert.ok(groups.length > 0, 'the tree shows the local sessions');
    } finally {
      await api.registry.remove('local');
    }
  });
});
