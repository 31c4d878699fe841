import * as assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TreeNode } from '../../src/views/sessionsTree.ts';
import { extensionApi } from './support/extensionApi.ts';
import { loadChecked } from './support/localLoad.ts';

/**
 * Group by Project in a real window: a Claude Code session started in the open workspace
 * folder is listed in the first project group, marked "this workspace", before the
 * generated corpus's projects; "This workspace only" leaves just that group.
 */
const SESSION_ID = '3b0c6f1e-2a4d-4f7a-9c1e-5d8b7a6e4f21';

describe('local sessions by project', () => {
  it('the open workspace project comes first; "this workspace only" keeps just it', async () => {
    const claudeDir = process.env.CLAUDE_CONFIG_DIR;
    assert.ok(claudeDir, 'the runner points CLAUDE_CONFIG_DIR at a corpus');
    const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(workspace, 'the runner opens a workspace folder');
    const api = await extensionApi();
    const id = 'projects';
    const folder = path.join(claudeDir, 'projects', workspace.replaceAll(path.sep, '-'));
    const file = path.join(folder, `${SESSION_ID}.jsonl`);
    const entry = {
      parentUuid: null,
      isSidechain: false,
      userType: 'external',
      cwd: workspace,
      sessionId: SESSION_ID,
      version: '2.1.40',
      gitBranch: 'main',
      type: 'user',
      uuid: 'u-1',
      // Older than every corpus session: by activity alone its project would come last.
      timestamp: '2020-01-01T00:00:00.000Z',
      message: { role: 'user', content: 'Tidy the workspace settings' },
    };
    await mkdir(folder, { recursive: true });
    await writeFile(file, JSON.stringify(entry) + '\n');
    const tree = api.tree;
    const before = { groupBy: tree.groupBy, only: tree.workspaceOnly };
    api.registry.addEphemeral({ id, label: 'This machine (projects)', kind: 'local' });
    try {
      await loadChecked(api, id);
      assert.equal(api.store.state(id)?.error, undefined);
      await tree.setGroupBy('project');
      await tree.setWorkspaceOnly(false);
      const projects = () =>
        (tree.getChildren({ kind: 'connection', connectionId: id }) as TreeNode[]).filter(
          (n) => n.kind === 'project',
        );
      const all = projects();
      assert.ok(all.length > 1, `the corpus has other projects too (${all.length})`);
      const first = tree.getTreeItem(all[0]!);
      assert.equal(first.label, path.basename(workspace));
      assert.match(String(first.description), /this workspace/);
      assert.equal(first.contextValue, 'project.workspace');
      assert.ok(
        all.slice(1).every((n) => tree.getTreeItem(n).contextValue === 'project'),
        'only the first group is the workspace',
      );
      const rows = tree.getChildren(all[0]!) as TreeNode[];
      assert.deepEqual(
        rows.map((r) => (r.kind === 'session' ? r.session.id : r.kind)),
        [file],
      );

      await tree.setWorkspaceOnly(true);
      const only = projects();
      assert.equal(only.length, 1, 'just the workspace project');
      assert.equal(tree.getTreeItem(only[0]!).label, path.basename(workspace));
    } finally {
      await tree.setWorkspaceOnly(before.only);
      await tree.setGroupBy(before.groupBy);
      await api.registry.remove(id);
      await rm(folder, { recursive: true, force: true });
    }
  });
});
