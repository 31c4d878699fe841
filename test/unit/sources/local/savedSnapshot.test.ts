/**
 * A window's first listing from the saved index (LocalIndex.savedSnapshot, LocalSource):
 * the sessions the index last saved come first, without a folder listed or a file stat'ed
 * or read; the refresh that follows corrects files changed, added and removed since, reads
 * only those, and is what the next listing and every other caller get.
 */
import assert from 'node:assert/strict';
import { appendFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { LocalIndex, type LocalSnapshot } from '../../../../src/sources/local/localIndex.ts';
import { LocalSource } from '../../../../src/sources/local/localSource.ts';
import { writeLocalCorpus, type LocalCorpus } from '../../../support/localCorpus.ts';
import { assistant, jsonl, prompt, tempDir, usage } from './fixtures.ts';

interface World {
  corpus: LocalCorpus;
  store: string;
  /** Rows a window that scanned before the changes saved. */
  savedRows: unknown;
  /** A gone file, a grown one and a new one, after the save. */
  gone: string;
  grown: string;
  added: string;
}

const rows = (s: LocalSnapshot | { sessions: { summary: unknown }[] }) =>
  s.sessions.map((x) => x.summary);

async function inWorld(body: (w: World) => Promise<void>): Promise<void> {
  const { dir, cleanup } = await tempDir('asi-saved-');
  try {
    const corpus = await writeLocalCorpus(join(dir, 'corpus'), {
      claudeSessions: 4,
      codexSessions: 3,
    });
    const store = join(dir, 'store');
    const first = new LocalIndex({
      claudeConfigDirs: [corpus.claudeDir],
      codexHome: corpus.codexDir,
      persist: { dir: store, version: '1.0.0' },
    });
    const saved = await first.refresh();
    await first.dispose();
    const sessions = saved.files.filter((f) => f.harness === 'claude-code' && f.role === 'session');
    const [gone, grown] = sessions.map((f) => f.path);
    assert.ok(gone && grown, 'enough sessions');
    await rm(gone);
    await appendFile(grown, jsonl(assistant({ id: 'later', usage: usage(5, 7), seconds: 9e6 })));
    const added = join(dirname(grown), '99999999-0000-4000-8000-000000000000.jsonl');
    await writeFile(added, jsonl(prompt('a new session')));
    await body({ corpus, store, savedRows: rows(saved), gone, grown, added });
  } finally {
    await cleanup();
  }
}

function open(w: World): LocalIndex {
  return new LocalIndex({
    claudeConfigDirs: [w.corpus.claudeDir],
    codexHome: w.corpus.codexDir,
    persist: { dir: w.store, version: '1.0.0' },
  });
}

/** What a window that never saw an index shows now. */
async function scanned(w: World): Promise<unknown> {
  const fresh = new LocalIndex({
    claudeConfigDirs: [w.corpus.claudeDir],
    codexHome: w.corpus.codexDir,
  });
  return rows(await fresh.refresh());
}

describe('first listing from the saved index', () => {
  test('the saved sessions first, untouched by changes since; the refresh after corrects them, reading only those', async () => {
    await inWorld(async (w) => {
      const index = open(w);
      const saved = await index.savedSnapshot();
      assert.ok(saved?.provisional, 'a saved snapshot');
      assert.deepEqual(rows(saved), w.savedRows, "the rows as saved: nothing listed or stat'ed");
      assert.ok(
        saved.files.some((f) => f.path === w.gone),
        'the gone file is still shown',
      );
      assert.equal(index.cache.stats.bytesRead, 0);
      assert.equal(index.snapshot, undefined, 'not kept as the last refresh');
      const verified = await index.refresh();
      assert.equal(verified.provisional, undefined);
      assert.deepEqual(rows(verified), await scanned(w));
      assert.ok(!verified.files.some((f) => f.path === w.gone), 'the gone file is gone');
      const s = index.cache.stats;
      assert.equal(s.fullScans, 1, 'only the new file is read from the start');
      assert.equal(s.appendScans, 1, 'the grown one continues from its saved end');
      assert.equal(await index.savedSnapshot(), undefined, 'once per window only');
      await index.dispose();
    });
  });

  test(
    'LocalSource: the first listings show the saved sessions, onDidUpdate fires, the next listing shows the checked ones without another refresh',
    { timeout: 60_000 },
    async () => {
      await inWorld(async (w) => {
        const source = new LocalSource({
          config: { id: 'local', kind: 'local', label: 'Local' } as never,
          claudeConfigDirs: [w.corpus.claudeDir],
          codexHome: w.corpus.codexDir,
          persist: { dir: w.store, version: '1.0.0' },
        });
        const updated = new Promise<void>((resolve) => source.onDidUpdate(resolve));
        const [page, waiting, problems] = await Promise.all([
          source.listSessions({ limit: 1000 }),
          source.listWaiting(undefined),
          source.listProblems(),
        ]);
        const savedIds = (w.savedRows as { id: string }[]).map((r) => r.id);
        assert.deepEqual(
          page.sessions.map((r) => r.id),
          savedIds,
          'the saved rows first',
        );
        assert.ok(Array.isArray(waiting.sessions) && Array.isArray(problems));
        await updated;
        const checked = source.index.snapshot;
        assert.ok(checked && !checked.provisional);
        // A listener that comes after the check, before a listing took it, is told too.
        await new Promise<void>((resolve) => source.onDidUpdate(resolve));
        const again = await source.listSessions({ limit: 1000 });
        assert.equal(source.index.snapshot, checked, 'the checked snapshot, no new refresh');
        assert.deepEqual(again.sessions, await scanned(w));
        // Other callers never get the saved snapshot.
        const report = await source.usage();
        assert.ok(report.totals.responses > 0);
        await source.dispose();
      });
    },
  );

  test('callers other than the listings get the checked sessions from the start', async () => {
    await inWorld(async (w) => {
      const source = new LocalSource({
        config: { id: 'local', kind: 'local', label: 'Local' } as never,
        claudeConfigDirs: [w.corpus.claudeDir],
        codexHome: w.corpus.codexDir,
        persist: { dir: w.store, version: '1.0.0' },
      });
      const files = await source.sessionFiles();
      assert.ok(!files.some((s) => s.path === w.gone));
      assert.ok(files.some((s) => s.path === w.added));
      await source.dispose();
    });
  });
});
