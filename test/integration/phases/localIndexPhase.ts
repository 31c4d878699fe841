/**
 * The persisted local index across a real window reload: before it, a local connection
 * scans a generated corpus (the transcript folders set in the machine settings) and the
 * index and the saved rows are written in the extension's global storage; after it, the
 * new extension host fills the same connection's tree from that index without reading a
 * transcript again, and a new source for the same folders shows the saved rows first.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/extension.ts';
import type { LocalSource } from '../../../src/sources/local/localSource.ts';
import type { TreeNode } from '../../../src/views/sessionsTree.ts';
import { writeLocalCorpus } from '../../support/localCorpus.ts';
import { until } from '../support/until.ts';

const ID = 'reload-local';

/** Beside the runner's reload marker: a folder both phases know. */
function scenarioDir(): string {
  const marker = process.env.ASI_RELOAD_MARKER;
  assert.ok(marker, 'ASI_RELOAD_MARKER is set');
  return path.dirname(marker);
}

interface Phase1 {
  files: number;
  sessions: string[];
  outputTokens: number;
}

function localSource(api: ExtensionApi): LocalSource {
  const source = api.store.source(ID) as unknown as LocalSource | undefined;
  assert.ok(source?.index, 'the local connection has its source');
  return source;
}

/** Session ids of the connection's tree rows (status groups, first level). */
function treeSessions(api: ExtensionApi): string[] {
  const ids: string[] = [];
  for (const group of api.tree.getChildren({
    kind: 'connection',
    connectionId: ID,
  }) as TreeNode[]) {
    if (group.kind !== 'group') continue;
    for (const row of api.tree.getChildren(group) as TreeNode[]) {
      if (row.kind === 'session') ids.push(row.session.id);
    }
  }
  return ids.sort();
}

interface FirstLoad {
  provisional: boolean;
  sessions: string[];
  bytesRead: number;
  /** The connection row's description then (it says the rows are being checked). */
  description: string;
}

/**
 * Adds the connection and waits for its checked rows (after the saved ones, when it
 * showed them: LiveLocalSessions lists again on the source's onDidUpdate); what its first
 * load showed (the tree may start that load as soon as the connection exists).
 */
async function addAndLoad(api: ExtensionApi): Promise<FirstLoad> {
  let first: FirstLoad | undefined;
  const watch = api.store.onDidChange((id) => {
    const state = api.store.state(ID);
    if (first || id !== ID || !state?.loadedOnce) return;
    const bytesRead = localSource(api).index.cache.stats.bytesRead;
    first = {
      provisional: state.provisional,
      sessions: treeSessions(api),
      bytesRead,
      description: connectionDescription(api),
    };
  });
  try {
    api.registry.addEphemeral({ id: ID, label: 'This machine (reload)', kind: 'local' });
    await api.store.refreshAfterCurrent(ID);
    await until('the checked rows', () => {
      const state = api.store.state(ID);
      return state?.loadedOnce && !state.provisional && !state.loading;
    });
  } finally {
    watch.dispose();
  }
  assert.equal(api.store.state(ID)?.error, undefined);
  assert.ok(first, 'a first load');
  return first;
}

function connectionDescription(api: ExtensionApi): string {
  const item = api.tree.getTreeItem({ kind: 'connection', connectionId: ID });
  return String(item.description ?? '');
}

function outputTokens(api: ExtensionApi): number {
  return (api.store.state(ID)?.sessions ?? []).reduce((n, s) => n + (s.outputTokens ?? 0), 0);
}

export async function scanAndSaveIndex(api: ExtensionApi): Promise<void> {
  const corpus = await writeLocalCorpus(path.join(scenarioDir(), 'corpus'), {
    claudeSessions: 6,
    codexSessions: 3,
  });
  const config = vscode.workspace.getConfiguration('sessionInspector');
  await config.update(
    'local.claudeConfigDirs',
    [corpus.claudeDir],
    vscode.ConfigurationTarget.Global,
  );
  await config.update('local.codexHome', corpus.codexDir, vscode.ConfigurationTarget.Global);
  api.registry.addEphemeral({ id: ID, label: 'This machine (reload)', kind: 'local' });
  await api.store.refreshAfterCurrent(ID);
  assert.equal(api.store.state(ID)?.error, undefined);
  const source = localSource(api);
  const stats = source.index.cache.stats;
  assert.equal(stats.fullScans, corpus.files.length, 'every file was read once');
  assert.equal(stats.seeded, 0, 'nothing was known before');
  await source.index.saveIndex();
  const folder = path.join(api.globalStorageUri.fsPath, 'local-index');
  assert.ok(
    existsSync(folder) && readdirSync(folder).some((f) => f.endsWith('.idx')),
    `the index is in the global storage (${folder})`,
  );
  assert.ok(
    readdirSync(folder).some((f) => f.endsWith('.rows')),
    `the saved rows are beside it (${folder})`,
  );
  const sessions = treeSessions(api);
  assert.ok(sessions.length > 4, `the tree lists the corpus (${sessions.length})`);
  const phase1: Phase1 = { files: corpus.files.length, sessions, outputTokens: outputTokens(api) };
  writeFileSync(path.join(scenarioDir(), 'local-index.json'), JSON.stringify(phase1));
  console.log(
    `      ${corpus.files.length} files scanned, ${sessions.length} sessions in the tree`,
  );
}

export async function checkTreeFromIndex(api: ExtensionApi): Promise<void> {
  const phase1 = JSON.parse(
    readFileSync(path.join(scenarioDir(), 'local-index.json'), 'utf8'),
  ) as Phase1;
  try {
    // The saved rows are not shown when the settings they depend on changed across the
    // reload (the upgrade scenario migrates sessionInspector.local.prices in this window).
    const afterReload = await addAndLoad(api);
    const source = localSource(api);
    const stats = source.index.cache.stats;
    const persisted = source.index.persisted;
    assert.ok(persisted, 'the source keeps its index on disk');
    assert.equal(persisted.stats.loads, 1, 'the saved index was read');
    assert.equal(stats.seeded, phase1.files, 'every file came from the index');
    assert.equal(stats.fullScans, 0, 'no file was read from the start');
    assert.equal(stats.bytesRead, 0, 'no transcript byte was read');
    assert.deepEqual(treeSessions(api), phase1.sessions, 'the same sessions in the tree');
    assert.equal(outputTokens(api), phase1.outputTokens, 'with the same tokens');
    console.log(
      `      ${stats.seeded} files from the index (read in ${persisted.stats.loadMs.toFixed(0)} ms), 0 bytes of transcripts read; saved rows shown first: ${afterReload.provisional}`,
    );
    // A new source for the same folders (as a new window) shows the saved rows first,
    // written by the last one when it was disposed if the settings had changed.
    await api.registry.remove(ID);
    await source.dispose();
    const again = await addAndLoad(api);
    assert.ok(again.provisional, 'the first load showed the saved rows');
    assert.deepEqual(again.sessions, phase1.sessions, 'the saved sessions in the tree at once');
    assert.equal(again.bytesRead, 0, 'no transcript byte read for them');
    assert.match(again.description, /checking/, 'the connection says its rows are being checked');
    assert.doesNotMatch(connectionDescription(api), /checking/, 'and no longer once checked');
    assert.deepEqual(treeSessions(api), phase1.sessions, 'the same sessions once checked');
    assert.equal(outputTokens(api), phase1.outputTokens, 'with the same tokens');
  } finally {
    await api.registry.remove(ID);
    const config = vscode.workspace.getConfiguration('sessionInspector');
    await config.update('local.claudeConfigDirs', undefined, vscode.ConfigurationTarget.Global);
    await config.update('local.codexHome', undefined, vscode.ConfigurationTarget.Global);
  }
}
