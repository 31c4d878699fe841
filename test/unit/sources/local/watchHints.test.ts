/**
 * Watcher hints: a refresh told which known files were written stats only those (a file
 * nobody mentioned is not listed until a full listing), while a created or deleted file,
 * an unknown path or no hint at all makes the refresh list every folder again.
 */
import assert from 'node:assert/strict';
import { appendFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LocalSource } from '../../../../src/sources/local/localSource.ts';
import { assistant, jsonl, prompt, tempDir, usage, writeAt } from './fixtures.ts';

async function setup() {
  const { dir, cleanup } = await tempDir();
  const claude = join(dir, 'claude');
  const codex = join(dir, 'codex');
  const file = join(claude, 'projects', '-p', 'S1.jsonl');
  await writeAt(file, jsonl(prompt('one'), assistant({ id: 'm1', usage: usage(1, 10) })));
  const source = new LocalSource({
    config: { id: 'local', label: 'Local', kind: 'local' },
    claudeConfigDirs: [claude],
    codexHome: codex,
  });
  const list = async () =>
    (await source.listSessions({ limit: 100 })).sessions.map((s) => ({
      id: s.id,
      output: s.outputTokens,
    }));
  return { dir, claude, codex, file, source, list, cleanup };
}

const line = (id: string, output: number) =>
  JSON.stringify(assistant({ id, usage: usage(1, output), seconds: 60 })) + '\n';

describe('watcher hints', () => {
  test('a hinted write is read without listing the folders again', async () => {
    const t = await setup();
    try {
      assert.deepEqual(await t.list(), [{ id: t.file, output: 10 }]);
      const unseen = join(t.claude, 'projects', '-p', 'S2.jsonl');
      await writeAt(unseen, jsonl(prompt('two')));
      const appended = line('m2', 5);
      await appendFile(t.file, appended);
      const read = t.source.index.cache.stats.bytesRead;
      t.source.noteChanges([t.file], 'changed');
      assert.deepEqual(await t.list(), [{ id: t.file, output: 15 }], 'S2 is not listed yet');
      assert.equal(t.source.index.cache.stats.bytesRead - read, Buffer.byteLength(appended));
      // No hint: a full listing finds the file the watcher did not mention.
      assert.deepEqual((await t.list()).map((s) => s.id).sort(), [t.file, unseen].sort());
    } finally {
      await t.cleanup();
    }
  });

  test('a created file, a deleted file or an unknown path makes a full listing', async () => {
    const t = await setup();
    try {
      await t.list();
      const created = join(t.claude, 'projects', '-p', 'S3.jsonl');
      await writeAt(created, jsonl(prompt('three')));
      t.source.noteChanges([created], 'created');
      assert.equal((await t.list()).length, 2);

      await rm(created);
      t.source.noteChanges([created], 'deleted');
      assert.deepEqual(
        (await t.list()).map((s) => s.id),
        [t.file],
      );

      const codexFile = join(t.codex, 'sessions', '2026', '07', '01', 'rollout-x.jsonl');
      await writeAt(codexFile, '');
      t.source.noteChanges([codexFile], 'changed');
      assert.equal((await t.list()).length, 2, 'a path the listing did not know');
    } finally {
      await t.cleanup();
    }
  });

  test('a hinted file that vanished falls back to a full listing', async () => {
    const t = await setup();
    try {
      await t.list();
      await rm(t.file);
      t.source.noteChanges([t.file], 'changed');
      assert.deepEqual(await t.list(), []);
    } finally {
      await t.cleanup();
    }
  });

  test('watch targets: projects/ of each Claude folder, sessions of the Codex home', () => {
    const source = new LocalSource({
      config: { id: 'local', label: 'Local', kind: 'local' },
      claudeConfigDirs: ['/a/claude', '/b/claude'],
      codexHome: '/c/codex',
    });
    const targets = source.watchTargets();
    assert.deepEqual(
      targets.map((t) => [t.dir, t.recursive]),
      [
        ['/a/claude/projects', true],
        ['/b/claude/projects', true],
        ['/c/codex/sessions', true],
        ['/c/codex/archived_sessions', true],
      ],
    );
    assert.equal(targets[0]!.accept('-p/S1.jsonl'), true);
    assert.equal(targets[0]!.accept('-p/S1.jsonl.tmp'), false);
  });
});
