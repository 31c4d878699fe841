import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SearchNode } from '../../src/views/searchResultsTree.ts';
import { assistantPhrase, extensionApi } from './support/extensionApi.ts';
import { until } from './support/until.ts';
import { loadChecked } from './support/localLoad.ts';

/**
 * A session panel hidden behind another editor in its group has its page discarded (no
 * retainContextWhenHidden): a search result opened then must still land on the match,
 * after the page is back and has started again, not be posted to the page that is gone.
 */
describe('Search result on a hidden session panel', () => {
  it('reveals the match after the hidden panel’s page is back', async function () {
    this.timeout(180_000);
    const expected = JSON.parse(process.env.ASI_EXPECTED_LOCAL ?? 'null') as {
      files: string[];
    } | null;
    assert.ok(expected, 'the runner generated a corpus (ASI_EXPECTED_LOCAL)');
    const api = await extensionApi();
    api.registry.addEphemeral({ id: 'local', label: 'This machine', kind: 'local' });
    try {
      await loadChecked(api, 'local');
      const { path, line, phrase } = assistantPhrase(expected.files);
      const session = api.store.state('local')?.sessions.find((s) => s.id === path);
      assert.ok(session, `the session of ${path} is loaded`);

      // The panel is open (its transcript loaded), then a text editor covers it in its group.
      api.panels.open(session);
      await until('the panel loaded its transcript', () =>
        api.panels.transcriptInfo('local', path),
      );
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
      await vscode.window.showTextDocument(doc, {
        viewColumn: vscode.ViewColumn.Active,
        preview: false,
      });
      const group = vscode.window.tabGroups.activeTabGroup;
      assert.ok(
        group.tabs.some((t) => t.input instanceof vscode.TabInputWebview),
        'the panel is in the same group, behind the text editor',
      );
      assert.ok(group.activeTab?.input instanceof vscode.TabInputText);
      const initBefore = api.panels.posted('local', path)?.get('init');

      await vscode.commands.executeCommand('sessionInspector.searchSessions', {
        query: phrase,
        filters: { kind: 'assistant' },
      });
      await api.search.idle();
      const sessionNode = api.search.tree
        .getChildren()
        .find((n) => n.kind === 'session' && n.results.target.path === path);
      assert.ok(sessionNode, 'the session is a result');
      const hit = api.search.tree
        .getChildren(sessionNode)
        .find(
          (n): n is Extract<SearchNode, { kind: 'hit' }> => n.kind === 'hit' && n.hit.line === line,
        );
      assert.ok(hit, `a result on line ${line}`);
      const item = api.search.tree.getTreeItem(hit);
      await vscode.commands.executeCommand(
        item.command!.command,
        ...(item.command!.arguments ?? []),
      );

      // The page came back (a new `init`), and the reveal was posted to it, after its start.
      await until(
        'the revealed page said ready again',
        () => api.panels.posted('local', path)?.get('init') !== initBefore,
        30_000,
      );
      const reveal = await until(
        'the match was revealed to the page that is back',
        () => {
          const posted = [...(api.panels.posted('local', path)?.values() ?? [])];
          const init = posted.findIndex((m) => m.type === 'init');
          const at = posted.findIndex((m) => m.type === 'reveal');
          return at > init && posted[at];
        },
        30_000,
      );
      assert.equal(reveal.type, 'reveal');
      const { index, highlight } = reveal as { index: number; highlight?: string };
      assert.equal(highlight?.toLowerCase(), phrase.toLowerCase());
      // The page went to the entry: it asked for the window of entries holding it.
      await until(
        'the page loaded the entries at the match',
        () => {
          const entries = api.panels.posted('local', path)?.get('entries');
          return (
            entries?.type === 'entries' &&
            entries.start <= index &&
            index < entries.start + entries.entries.length &&
            entries.entries.some((e) => e.index === index)
          );
        },
        30_000,
      );
      assert.equal(
        vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputWebview,
        true,
        'the panel is in front again',
      );
    } finally {
      await vscode.commands.executeCommand('sessionInspector.clearSearchResults');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await api.registry.remove('local');
    }
  });
});
