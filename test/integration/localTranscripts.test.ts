import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension.ts';
import type { TreeNode } from '../../src/views/sessionsTree.ts';
import { PROJECTS } from '../support/localCorpus.ts';
import { extensionApi } from './support/extensionApi.ts';
import { loadChecked } from './support/localLoad.ts';

/** The local connection over the corpus, every page loaded; removed afterwards. */
async function withLocal(test: (api: ExtensionApi) => Promise<void>): Promise<void> {
  const api = await extensionApi();
  api.registry.addEphemeral({ id: 'local', label: 'This machine', kind: 'local' });
  try {
    await loadChecked(api, 'local');
    while (api.store.state('local')?.next !== undefined) await api.store.loadMore('local');
    await test(api);
  } finally {
    await api.registry.remove('local');
  }
}

const label = (item: vscode.TreeItem) =>
  typeof item.label === 'string' ? item.label : (item.label?.label ?? '');

/** The runner points CLAUDE_CONFIG_DIR and CODEX_HOME at a generated corpus. */
describe('local Claude Code and Codex transcripts', () => {
  it('lists every session file of the corpus, subagents and orphans included, with its tokens', async () => {
    const expected = JSON.parse(process.env.ASI_EXPECTED_LOCAL ?? 'null') as {
      files: string[];
      inputTokens: number;
      outputTokens: number;
    } | null;
    assert.ok(expected, 'the runner generated a corpus (ASI_EXPECTED_LOCAL)');
    await withLocal(async (api) => {
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
    });
  });

  it('shows the problems of the quirky files under the connection, each opening its file at the line', async () => {
    await withLocal(async (api) => {
      const expected = await api.store.source('local')!.listProblems!();
      assert.ok(expected.length > 0, 'the corpus has a session with malformed and truncated lines');
      assert.equal(api.store.state('local')!.problems.length, expected.length);
      const top = api.tree.getChildren({ kind: 'connection', connectionId: 'local' }) as TreeNode[];
      const node = top.find((n) => n.kind === 'problems');
      assert.ok(node, 'a problems node under the connection');
      assert.ok(top.indexOf(node) > top.findIndex((n) => n.kind === 'group'), 'after the groups');
      assert.equal(top[0]?.kind, 'group', 'the status groups come first');
      assert.match(label(api.tree.getTreeItem(node)), new RegExp(`^${expected.length} problems? `));
      const rows = api.tree.getChildren(node) as TreeNode[];
      assert.equal(rows.length, Math.min(expected.length, 200) + (expected.length > 200 ? 1 : 0));
      const withLine = rows.find(
        (n): n is Extract<TreeNode, { kind: 'problem' }> =>
          n.kind === 'problem' && n.problem.line !== undefined,
      );
      assert.ok(withLine, 'some problem names its line');
      const item = api.tree.getTreeItem(withLine);
      assert.equal(item.command?.command, 'vscode.open');
      const [uri, options] = item.command!.arguments as [vscode.Uri, { selection: vscode.Range }];
      assert.equal(uri.fsPath, withLine.problem.path);
      assert.equal(options.selection.start.line, withLine.problem.line! - 1);
      assert.equal(
        item.tooltip,
        `${withLine.problem.path}:${withLine.problem.line}\n${withLine.problem.kind}`,
      );
      assert.deepEqual(api.tree.getParent(withLine), node);
    });
  });

  it('groups by project: the corpus project folders, counts adding up; "this workspace only" hides them', async () => {
    await withLocal(async (api) => {
      const connection: TreeNode = { kind: 'connection', connectionId: 'local' };
      const sessionsIn = (nodes: TreeNode[]) =>
        nodes
          .filter((n) => n.kind === 'group' || n.kind === 'project')
          .flatMap((n) => api.tree.getChildren(n) as TreeNode[])
          .filter((n): n is Extract<TreeNode, { kind: 'session' }> => n.kind === 'session');
      const byStatus = sessionsIn(api.tree.getChildren(connection) as TreeNode[]);
      await vscode.commands.executeCommand('sessionInspector.groupByProject');
      try {
        assert.equal(api.tree.groupBy, 'project');
        const top = api.tree.getChildren(connection) as TreeNode[];
        const projects = top.filter(
          (n): n is Extract<TreeNode, { kind: 'project' }> => n.kind === 'project',
        );
        assert.deepEqual(
          projects.map((p) => label(api.tree.getTreeItem(p))).sort(),
          [...PROJECTS].sort(),
          'one node per project folder of the corpus',
        );
        let total = 0;
        for (const project of projects) {
          const item = api.tree.getTreeItem(project);
          const sessions = sessionsIn([project]);
          const count = Number(String(item.description).split(' · ')[0]);
          assert.equal(count, sessions.length, `${project.project}: the count is its sessions`);
          assert.ok(String(item.description).endsWith(project.project), 'the full path shows');
          for (const s of sessions) assert.equal(s.session.project, project.project);
          const first = sessions[0];
          if (first) assert.deepEqual(api.tree.getParent(first), project);
          total += sessions.length;
        }
        assert.equal(total, byStatus.length, 'the projects hold every top-level session once');
        assert.ok(
          top.some((n) => n.kind === 'problems'),
          'the problems stay in project mode',
        );

        // The test window's folder holds none of the corpus projects.
        await vscode.commands.executeCommand('sessionInspector.showWorkspaceOnly');
        if (vscode.workspace.workspaceFolders?.length) {
          assert.equal(api.tree.workspaceOnly, true);
          assert.match(api.tree.describe() ?? '', /this workspace only/);
          const hidden = api.tree.getChildren(connection) as TreeNode[];
          assert.equal(sessionsIn(hidden).length, 0);
          assert.ok(hidden.some((n) => n.kind === 'message' && n.message === 'empty'));
        } else {
          assert.equal(api.tree.workspaceOnly, false, 'no folder open: nothing is hidden');
        }
      } finally {
        await vscode.commands.executeCommand('sessionInspector.showAllProjects');
        await vscode.commands.executeCommand('sessionInspector.groupByStatus');
      }
      assert.equal(api.tree.groupBy, 'status');
      assert.equal(
        sessionsIn(api.tree.getChildren(connection) as TreeNode[]).length,
        byStatus.length,
      );
    });
  });
});
