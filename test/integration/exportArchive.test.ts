import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExportOutcome } from '../../src/commands/exportCommands.ts';
import type { SessionSummary } from '../../src/domain/session.ts';
import type { ExtensionApi } from '../../src/extension.ts';
import type { TreeNode } from '../../src/views/sessionsTree.ts';
import { until } from './support/until.ts';
import { extensionApi } from './support/extensionApi.ts';
import { loadChecked } from './support/localLoad.ts';

/**
 * Export, copy and archive in a real extension host, on a local Claude Code session written
 * here: a prompt carrying a script tag, an Edit of a file, an answer with a code fence, and
 * a subagent with its own transcript file.
 */
const ID = 'export-archive';
const SESSION_ID = 'a1b2c3d4-0e0f-4a4b-8c8d-112233445566';
const AGENT_ID = 'f00dcafe1';
const PAYLOAD = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">';

const line = (record: object) => JSON.stringify(record);

function sessionLines(cwd: string): string {
  const common = { cwd, sessionId: SESSION_ID, version: '2.1.0' };
  return (
    [
      line({
        ...common,
        type: 'user',
        uuid: 'u-1',
        timestamp: '2026-06-01T09:00:00.000Z',
        message: { role: 'user', content: `Fix the greeting ${PAYLOAD}` },
      }),
      line({
        ...common,
        type: 'assistant',
        uuid: 'a-1',
        timestamp: '2026-06-01T09:00:01.000Z',
        message: {
          id: 'msg-1',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [
            {
              type: 'tool_use',
              id: 'toolu_edit',
              name: 'Edit',
              input: {
                file_path: path.join(cwd, 'greet.ts'),
                old_string: "const greeting = 'helo';",
                new_string: "const greeting = 'hello';",
              },
            },
          ],
        },
      }),
      line({
        ...common,
        type: 'user',
        uuid: 'u-2',
        timestamp: '2026-06-01T09:00:02.000Z',
        message: {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_edit', content: 'The file was updated.' },
          ],
        },
      }),
      line({
        ...common,
        type: 'assistant',
        uuid: 'a-2',
        timestamp: '2026-06-01T09:00:03.000Z',
        message: {
          id: 'msg-2',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [
            {
              type: 'tool_use',
              id: 'toolu_task',
              name: 'Task',
              input: { description: 'Check the tests', prompt: 'Run the tests' },
            },
          ],
        },
      }),
      line({
        ...common,
        type: 'user',
        uuid: 'u-3',
        timestamp: '2026-06-01T09:00:09.000Z',
        toolUseResult: { agentId: AGENT_ID, prompt: 'Run the tests', status: 'completed' },
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_task', content: 'All tests pass.' }],
        },
      }),
      line({
        ...common,
        type: 'assistant',
        uuid: 'a-3',
        timestamp: '2026-06-01T09:00:10.000Z',
        message: {
          id: 'msg-3',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: 'Fixed. Run:\n\n```sh\nnpm test\n```' }],
        },
      }),
    ].join('\n') + '\n'
  );
}

function subagentLines(cwd: string): string {
  return (
    [
      line({
        cwd,
        sessionId: SESSION_ID,
        agentId: AGENT_ID,
        isSidechain: true,
        type: 'user',
        uuid: 's-1',
        timestamp: '2026-06-01T09:00:04.000Z',
        message: { role: 'user', content: 'Run the tests' },
      }),
      line({
        cwd,
        sessionId: SESSION_ID,
        agentId: AGENT_ID,
        isSidechain: true,
        type: 'assistant',
        uuid: 's-2',
        timestamp: '2026-06-01T09:00:08.000Z',
        message: {
          id: 'msg-s',
          role: 'assistant',
          model: 'claude-haiku-4-5',
          content: [{ type: 'text', text: 'Subagent says: 12 tests pass' }],
        },
      }),
    ].join('\n') + '\n'
  );
}

const rowsOf = (api: ExtensionApi): SessionSummary[] => {
  const out: SessionSummary[] = [];
  const walk = (nodes: TreeNode[]) => {
    for (const node of nodes) {
      if (node.kind === 'session') out.push(node.session);
      if (node.kind === 'group' || node.kind === 'project' || node.kind === 'session')
        walk(api.tree.getChildren(node));
    }
  };
  walk(api.tree.getChildren({ kind: 'connection', connectionId: ID }));
  return out;
};

describe('export, copy and archive', () => {
  it('exports Markdown and HTML, copies the id and resume command, archives and brings back', async function () {
    this.timeout(120_000);
    const claudeDir = process.env.CLAUDE_CONFIG_DIR;
    assert.ok(claudeDir, 'the runner set up the corpus');
    const api = await extensionApi();
    const folder = await mkdtemp(path.join(os.tmpdir(), 'asi-export-cwd-'));
    const out = await mkdtemp(path.join(os.tmpdir(), 'asi-export-out-'));
    const project = path.join(claudeDir, 'projects', folder.replaceAll('/', '-'));
    await mkdir(path.join(project, SESSION_ID, 'subagents'), { recursive: true });
    await writeFile(path.join(project, `${SESSION_ID}.jsonl`), sessionLines(folder));
    await writeFile(
      path.join(project, SESSION_ID, 'subagents', `agent-${AGENT_ID}.jsonl`),
      subagentLines(folder),
    );
    api.registry.addEphemeral({ id: ID, label: 'This machine (export)', kind: 'local' });
    try {
      await until('the local connection in the store', () => api.store.state(ID));
      await loadChecked(api, ID);
      while (api.store.state(ID)?.next !== undefined) await api.store.loadMore(ID);
      const session = api.store.state(ID)?.sessions.find((s) => s.resumeId === SESSION_ID);
      assert.ok(session, 'the session is listed');
      const node = { kind: 'session', session };

      // Markdown, with the subagent's transcript after the parent's.
      const md = (await vscode.commands.executeCommand(
        'sessionInspector.exportTranscript',
        node,
        vscode.Uri.file(path.join(out, 'session.md')),
        { format: 'markdown', includeSubagents: true },
      )) as ExportOutcome | undefined;
      assert.ok(md, 'the export finished');
      assert.equal(md.subagents, 1);
      const markdown = await readFile(path.join(out, 'session.md'), 'utf8');
      assert.ok(markdown.startsWith('# Fix the greeting'), markdown.slice(0, 200));
      assert.ok(markdown.includes(`- Session: \`${SESSION_ID}\``));
      assert.ok(markdown.includes(`Fix the greeting ${PAYLOAD}`), 'user text as written');
      assert.ok(markdown.includes('```diff\n@@ -1,1 +1,1 @@\n'), 'the Edit as a diff');
      assert.ok(markdown.includes("-const greeting = 'helo';\n+const greeting = 'hello';"));
      assert.ok(markdown.includes('Output:\n\n```\nThe file was updated.\n```'));
      assert.ok(markdown.includes('Fixed. Run:\n\n```sh\nnpm test\n```'));
      const subagentAt = markdown.indexOf('## Subagent: ');
      assert.ok(subagentAt > markdown.indexOf('Fixed. Run:'), 'the subagent after the parent');
      assert.ok(markdown.includes('Subagent says: 12 tests pass'));

      // HTML: the script tag is text, the page has no script and a CSP.
      const html = (await vscode.commands.executeCommand(
        'sessionInspector.exportTranscript',
        node,
        vscode.Uri.file(path.join(out, 'session.html')),
        { format: 'html' },
      )) as ExportOutcome | undefined;
      assert.ok(html, 'the HTML export finished');
      assert.equal(html.subagents, 0, 'subagents only when asked for');
      const page = await readFile(path.join(out, 'session.html'), 'utf8');
      assert.ok(page.startsWith('<!DOCTYPE html>'));
      assert.match(
        page,
        /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+={0,2}'; base-uri 'none'; form-action 'none'">/,
      );
      assert.doesNotMatch(page, /<script|<img|onerror=/i);
      assert.ok(page.includes('&#60;script&#62;window.__xss&#61;1&#60;/script&#62;'));
      assert.ok(page.includes('<div class="add">+const greeting &#61; &#39;hello&#39;;</div>'));
      assert.ok(page.includes('<pre>npm test</pre>'));
      assert.ok(!page.includes('Subagent says'), 'no subagent section');
      // Only the two exports are left in the folder (no partial files).
      assert.deepEqual((await readdir(out)).sort(), ['session.html', 'session.md']);

      // Copy.
      await vscode.commands.executeCommand('sessionInspector.copySessionId', node);
      assert.equal(await vscode.env.clipboard.readText(), SESSION_ID);
      await vscode.commands.executeCommand('sessionInspector.copyResumeCommand', node);
      assert.equal(await vscode.env.clipboard.readText(), `claude --resume ${SESSION_ID}`);
      const item = api.tree.getTreeItem({ kind: 'session', session });
      assert.match(String(item.contextValue), /\.archivable(\.|$)/);
      assert.doesNotMatch(
        String(item.contextValue),
        /\.link(\.|$)/,
        'no web address: no Copy Link',
      );

      // Archive: it leaves the tree, comes back with Show Archived, and after Unarchive.
      const shown = () => rowsOf(api).some((s) => s.id === session.id);
      assert.ok(shown(), 'listed before archiving');
      await vscode.commands.executeCommand('sessionInspector.archiveSession', node);
      assert.ok(api.archive.isArchived(ID, session.id));
      assert.ok(!shown(), 'archived: gone from the default tree');
      await vscode.commands.executeCommand('sessionInspector.showArchived');
      assert.ok(shown(), 'Show Archived brings it back');
      const archivedItem = api.tree.getTreeItem({ kind: 'session', session });
      assert.match(String(archivedItem.description), /^archived/);
      assert.match(String(archivedItem.contextValue), /\.archived(\.|$)/);
      assert.match(api.tree.describe() ?? '', /archived shown/);
      await vscode.commands.executeCommand('sessionInspector.hideArchived');
      assert.ok(!shown(), 'hidden again');
      await vscode.commands.executeCommand('sessionInspector.unarchiveSession', node);
      assert.ok(shown(), 'unarchived: back in the default tree');
      assert.ok(!api.archive.isArchived(ID, session.id));
    } finally {
      await vscode.commands.executeCommand('sessionInspector.hideArchived');
      await api.archive.forget(ID);
      await api.registry.remove(ID);
      await rm(project, { recursive: true, force: true });
      await rm(folder, { recursive: true, force: true });
      await rm(out, { recursive: true, force: true });
    }
  });
});
