/**
 * The one-shot index of the usage-report CLI (LocalIndexOptions.oneShot): the same report
 * and the same rows (labels aside) as the extension's index, without reading subagent
 * meta files or keeping anything for a later refresh.
 */
import assert from 'node:assert/strict';
import { appendFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { LocalIndex } from '../../../../src/sources/local/localIndex.ts';
import { writeLocalCorpus, type LocalCorpus } from '../../../support/localCorpus.ts';
import { tempDir } from './fixtures.ts';
import { shown } from './shownRows.ts';

const NOW = Date.parse('2026-06-05T00:00:00.000Z');

function index(corpus: LocalCorpus, oneShot: boolean): LocalIndex {
  return new LocalIndex({
    claudeConfigDirs: [corpus.claudeDir],
    codexHome: corpus.codexDir,
    now: () => NOW,
    ...(oneShot ? { oneShot } : {}),
  });
}

describe('one-shot index (usage-report CLI)', () => {
  test('gives the report and rows of the normal index, reading no subagent meta file and keeping no row', async () => {
    const { dir, cleanup } = await tempDir('asi-oneshot-');
    try {
      const corpus = await writeLocalCorpus(dir, { claudeSessions: 9, codexSessions: 5 });
      const normal = index(corpus, false);
      const once = index(corpus, true);
      const expected = await normal.refresh();
      const got = await once.refresh();
      assert.ok(
        expected.files.filter((f) => f.metaPath).length >= 2,
        'the corpus has subagent meta files',
      );
      assert.ok(normal.cache.stats.metaReads >= 2, 'the normal index reads them');
      assert.ok(expected.sessions.some((s) => s.role === 'subagent' && s.summary.parentId));
      assert.deepEqual(shown(got, once), shown(expected, normal));
      assert.equal(once.cache.stats.metaReads, 0, 'no meta file read');
      assert.equal(once.aggregation.size, 0, 'no row kept for a later refresh');
      assert.ok(normal.aggregation.size > 0);

      // Refreshed again after all (nothing was kept): still what a normal index shows.
      const grown = corpus.files.find((f) => f.harness === 'claude-code' && f.role === 'session')!;
      await appendFile(grown.path, '{"type":"summary","summary":"later"}\n');
      const fresh = index(corpus, false);
      assert.deepEqual(shown(await once.refresh(), once), shown(await fresh.refresh(), fresh));
    } finally {
      await cleanup();
    }
  });
});
