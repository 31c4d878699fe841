import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SearchNode } from '../../src/views/searchResultsTree.ts';
import { TranscriptDocument } from '../../src/domain/transcript/transcriptDocument.ts';
import { entryTexts } from '../../src/domain/transcript/entryMatch.ts';
import { assistantPhrase, extensionApi } from './support/extensionApi.ts';
import { until } from './support/until.ts';
import { loadChecked } from './support/localLoad.ts';

/** The runner points CLAUDE_CONFIG_DIR and CODEX_HOME at a generated corpus. */
describe('Search Sessions…', () => {
  it('searches the local transcripts, streams results into the tree, and opens the panel at the match', async () => {
    const expected = JSON.parse(process.env.ASI_EXPECTED_LOCAL ?? 'null') as {
      files: string[];
    } | null;
    assert.ok(expected, 'the runner generated a corpus (ASI_EXPECTED_LOCAL)');
    const api = await extensionApi();
    api.registry.addEphemeral({ id: 'local', label: 'This machine', kind: 'local' });
    try {
      await loadChecked(api, 'local');
      const { path, line, phrase } = assistantPhrase(expected.files);
      const query = phrase.toUpperCase(); // case-insensitive by default
      await vscode.commands.executeCommand('sessionInspector.searchSessions', {
        query,
        filters: { kind: 'assistant' },
      });
      const summary = await api.search.idle();
      const sessions = api.search.tree.getChildren();
      assert.ok(sessions.length > 0, 'sessions with results in the tree');
      assert.ok(summary === undefined || summary.results > 0);
      // Every result is an assistant entry holding the phrase, highlighted in its label.
      for (const session of sessions) {
        for (const node of api.search.tree.getChildren(session)) {
          if (node.kind !== 'hit') continue;
          assert.ok(['assistant', 'thinking'].includes(node.hit.kind), node.hit.kind);
          assert.equal(node.hit.text.toLowerCase(), phrase.toLowerCase());
          const item = api.search.tree.getTreeItem(node);
          const label = item.label as vscode.TreeItemLabel;
          const [s, e] = label.highlights![0]!;
          assert.equal(label.label.slice(s, e).toLowerCase(), phrase.toLowerCase());
        }
      }
      const sessionNode = sessions.find(
        (n) => n.kind === 'session' && n.results.target.path === path,
      );
      assert.ok(sessionNode, `the session the phrase came from (${path}) is a result`);
      const hit = api.search.tree
        .getChildren(sessionNode)
        .find(
          (n): n is Extract<SearchNode, { kind: 'hit' }> => n.kind === 'hit' && n.hit.line === line,
        );
      assert.ok(hit, `a result on line ${line}`);
      const item = api.search.tree.getTreeItem(hit);
      assert.equal(item.command?.command, 'sessionInspector.openSearchResult');
      await vscode.commands.executeCommand(
        item.command!.command,
        ...(item.command!.arguments ?? []),
      );
      const reveal = await until(
        'the panel revealed the match',
        () => api.panels.posted('local', path)?.get('reveal'),
        60_000,
      );
      assert.equal(reveal.type, 'reveal');
      const { index, highlight } = reveal as { index: number; highlight?: string };
      assert.equal(highlight?.toLowerCase(), phrase.toLowerCase());
      // The revealed entry is the one on that line, and it holds the phrase.
      const doc = await TranscriptDocument.open(path);
      try {
        await doc.whenIndexed();
        const entry = (await doc.getWindow(index, 1)).entries[0];
        assert.ok(entry, 'the revealed entry exists');
        assert.equal(entry.kind, 'assistant');
        assert.ok(entry.source.first <= line && line <= entry.source.last);
        assert.ok(entryTexts(entry).some((t) => t.toLowerCase().includes(phrase.toLowerCase())));
      } finally {
        await doc.close();
      }
    } finally {
      await vscode.commands.executeCommand('sessionInspector.clearSearchResults');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await api.registry.remove('local');
    }
  });
});
