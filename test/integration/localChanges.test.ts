import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension.ts';
import type { SessionSummary } from '../../src/domain/session.ts';
import { surfaceLabel } from '../../src/domain/surfaceText.ts';
import type { ChangesView } from '../../src/shared/changesView.ts';
import { extensionApi } from './support/extensionApi.ts';
import { until } from './support/until.ts';
import { loadChecked } from './support/localLoad.ts';

interface EditCall {
  path: string;
  old: string;
  new: string;
  /** What Claude Code recorded as the file's text before the call (the demo writes it too). */
  originalFile: string;
}

/**
 * A session's successful Edit calls on files it Read whole first, straight from the JSONL
 * (the harness's own `toolUseResult.originalFile`), sharing no code with the extension.
 */
function editsAfterWholeReads(file: string): EditCall[] {
  const reads = new Set<string>();
  const calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  const edits: EditCall[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    let record: {
      message?: { content?: unknown };
      toolUseResult?: { originalFile?: unknown };
    };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      continue;
    }
    const blocks = Array.isArray(record.message?.content) ? record.message.content : [];
    for (const block of blocks as Record<string, unknown>[]) {
      if (block.type === 'tool_use')
        calls.set(String(block.id), {
          name: String(block.name),
          input: block.input as Record<string, unknown>,
        });
      if (block.type !== 'tool_result' || block.is_error) continue;
      const call = calls.get(String(block.tool_use_id));
      const target = String(call?.input.file_path);
      if (call?.name === 'Read' && call.input.offset === undefined) reads.add(target);
      if (call?.name === 'Edit' && reads.has(target)) {
        const original = record.toolUseResult?.originalFile;
        if (typeof original !== 'string') continue;
        edits.push({
          path: target,
          old: String(call.input.old_string),
          new: String(call.input.new_string),
          originalFile: original,
        });
      }
    }
  }
  return edits;
}

const allTabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs);
const text = async (uri: vscode.Uri) => (await vscode.workspace.openTextDocument(uri)).getText();

/** The local connection over the generated corpus, every page loaded; removed afterwards. */
describe('Show Changes on a local session', function () {
  // Each step reads the session's transcripts again; the shared test machine is slow.
  this.timeout(180_000);
  const t0 = Date.now();
  const step = (what: string) =>
    console.log(`[changes] ${((Date.now() - t0) / 1000).toFixed(1)} s ${what}`);
  let api: ExtensionApi;
  let session: SessionSummary;
  let edits: EditCall[];

  before(async () => {
    api = await extensionApi();
    api.registry.addEphemeral({ id: 'local', label: 'This machine', kind: 'local' });
    await loadChecked(api, 'local');
    while (api.store.state('local')?.next !== undefined) await api.store.loadMore('local');
    const candidates = (api.store.state('local')?.sessions ?? []).filter(
      (s) => s.harness === 'claude-code' && !s.parentId,
    );
    for (const candidate of candidates) {
      const found = editsAfterWholeReads(candidate.id);
      if (found.length > 0) {
        session = candidate;
        edits = found;
        break;
      }
    }
    assert.ok(session, 'a corpus session edits a file it read whole first');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await api.registry.remove('local');
  });

  it('opens the multi-file diff editor; each file before → after as the tool calls describe it', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    step('show changes');
    await vscode.commands.executeCommand('sessionInspector.showChanges', {
      kind: 'session',
      session,
    });
    const tab = await until('the multi-file diff editor', () =>
      allTabs().find(
        (t) => (t.input as { textDiffs?: unknown[] } | undefined)?.textDiffs !== undefined,
      ),
    );
    step('multi-diff open');
    assert.match(tab.label, /^Changes of /);
    const diffs = (tab.input as { textDiffs: vscode.TabInputTextDiff[] }).textDiffs;
    const view = await vscode.commands.executeCommand<ChangesView>(
      'sessionInspector.changes.list',
      session,
    );
    step('listed');
    assert.equal(view.state, 'ready');
    assert.equal(diffs.length, view.files.length, 'one diff per changed file');
    for (const diff of diffs) {
      assert.equal(diff.original.scheme, 'session-inspector-change');
      assert.equal(diff.modified.scheme, 'session-inspector-change');
    }
    // The first edited file: its before is the harness's original; its after, the edits applied.
    const edited = edits[0]!.path;
    const onFile = edits.filter((e) => e.path === edited);
    const index = view.files.findIndex((f) => f.path === edited);
    assert.ok(index >= 0, `${edited} is listed`);
    assert.equal(view.files[index]!.beforeKnown, true);
    const expectedAfter = onFile.reduce(
      (t, e) => t.replace(e.old, () => e.new),
      onFile[0]!.originalFile,
    );
    // The list was read again meanwhile: the multi-diff still shows its own load.
    const inMulti = diffs.find((d) => d.original.path === edited);
    assert.ok(inMulti, 'the multi-diff lists the file by its path');
    assert.equal(await text(inMulti.original), onFile[0]!.originalFile);
    assert.equal(await text(inMulti.modified), expectedAfter);

    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    step('texts read');
    await vscode.commands.executeCommand('sessionInspector.changes.open', session, index);
    const single = await until('the diff editor', () =>
      allTabs().find((t) => t.input instanceof vscode.TabInputTextDiff),
    );
    const input = single.input as vscode.TabInputTextDiff;
    // The session's name as every VS Code surface shows it: one line, shortened.
    assert.equal(
      single.label,
      `${path.basename(edited)} (${surfaceLabel(session.label)}): before ↔ after`,
    );
    assert.equal(await text(input.original), onFile[0]!.originalFile);
    assert.equal(await text(input.modified), expectedAfter);
  });

  it("compares the agent's last version with the workspace file today", async () => {
    const view = await vscode.commands.executeCommand<ChangesView>(
      'sessionInspector.changes.list',
      session,
    );
    const index = view.files.findIndex((f) => f.path === edits[0]!.path);
    const relative = path.relative(session.project!, edits[0]!.path);
    const folder = vscode.workspace.workspaceFolders![0]!.uri;
    const copy = vscode.Uri.joinPath(folder, relative);
    await vscode.workspace.fs.writeFile(copy, new TextEncoder().encode('changed by hand since\n'));
    try {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand(
        'sessionInspector.changes.compareWithWorkspace',
        session,
        index,
      );
      const tab = await until('the comparison', () =>
        allTabs().find((t) => t.input instanceof vscode.TabInputTextDiff),
      );
      const input = tab.input as vscode.TabInputTextDiff;
      assert.equal(input.original.scheme, 'session-inspector-change');
      assert.equal(input.modified.toString(), copy.toString());
      assert.match(tab.label, /the agent's last version ↔ workspace$/);
      assert.notEqual(await text(input.original), 'changed by hand since\n');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.workspace.fs.delete(copy);
    }
  });

  it('a Codex patch: paths under the session folder, and both sides say the before is unknown', async () => {
    const codex = (api.store.state('local')?.sessions ?? []).filter((s) => s.harness === 'codex');
    let found: { session: SessionSummary; view: ChangesView; index: number } | undefined;
    for (const candidate of codex) {
      const view = await vscode.commands.executeCommand<ChangesView>(
        'sessionInspector.changes.list',
        candidate,
      );
      const index = view.files.findIndex((f) => !f.beforeKnown);
      if (index >= 0) {
        found = { session: candidate, view, index };
        break;
      }
    }
    assert.ok(found, 'a Codex session of the corpus patched a file');
    for (const file of found.view.files)
      assert.ok(file.path.startsWith(`${found.session.project}/`), file.path);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand(
      'sessionInspector.changes.open',
      found.session,
      found.index,
    );
    const tab = await until('the diff editor', () =>
      allTabs().find((t) => t.input instanceof vscode.TabInputTextDiff),
    );
    assert.match(tab.label, /: before unknown ↔ after$/);
    const input = tab.input as vscode.TabInputTextDiff;
    const before = await text(input.original);
    const after = await text(input.modified);
    assert.match(before, /^Before unknown: /);
    assert.match(after, /^Before unknown: /);
    assert.match(before, /──── change 1 of \d+ ────/);
    assert.notEqual(before, after);
  });
});
