/**
 * The saved rows a window shows first (savedRows.ts, savedRowsView.ts, savedRowsFile.ts,
 * LocalIndex.savedRows, LocalSource, SessionStore): they round-trip the aggregation's rows
 * with the statuses of any later time; a damaged, cut-short, other-version or
 * other-settings file is ignored with one log line; a window's first listings show them
 * (provisional), the check after them shows what a scan shows, and neither raises a
 * "started waiting" notice that a first load would not.
 */
import assert from 'node:assert/strict';
import { appendFile, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import type { SessionFilters } from '../../../../src/domain/filters.ts';
import type { SessionPage, SessionSummary } from '../../../../src/domain/session.ts';
import { setStatus, type LocalSession } from '../../../../src/sources/local/aggregate.ts';
import { LocalIndex } from '../../../../src/sources/local/localIndex.ts';
import { LocalSource } from '../../../../src/sources/local/localSource.ts';
import { DEFAULT_STATUS_THRESHOLDS } from '../../../../src/sources/local/localStatus.ts';
import { decodeSavedRows, encodeSavedRows } from '../../../../src/sources/local/savedRows.ts';
import { ShownRows } from '../../../../src/sources/local/savedRowsView.ts';
import type { ConnectionConfig } from '../../../../src/sources/sessionSource.ts';
import { SessionStore } from '../../../../src/store/sessionStore.ts';
import type { Logger } from '../../../../src/util/logger.ts';
import { writeLocalCorpus, type LocalCorpus } from '../../../support/localCorpus.ts';
import { assistant, jsonl, prompt, tempDir, toolUse, usage } from './fixtures.ts';

const CONFIG = { id: 'local', kind: 'local', label: 'Local' } as ConnectionConfig;

interface World {
  corpus: LocalCorpus;
  store: string;
  /** The rows of the window that scanned and saved. */
  saved: SessionSummary[];
  logs: string[];
  open: (extra?: Partial<ConstructorParameters<typeof LocalIndex>[0]>) => LocalIndex;
  rowsFile: () => string;
}

async function inWorld(body: (w: World) => Promise<void>): Promise<void> {
  const { dir, cleanup } = await tempDir('asi-rows-');
  try {
    const corpus = await writeLocalCorpus(join(dir, 'corpus'), {
      claudeSessions: 4,
      codexSessions: 3,
    });
    const store = join(dir, 'store');
    const logs: string[] = [];
    const open: World['open'] = (extra = {}) =>
      new LocalIndex({
        claudeConfigDirs: [corpus.claudeDir],
        codexHome: corpus.codexDir,
        persist: { dir: store, version: '1.0.0', log: (m) => logs.push(m) },
        ...extra,
      });
    const first = open();
    const saved = (await first.refresh()).sessions.map((s) => s.summary);
    await first.dispose();
    const rowsFile = () => first.savedRowsFile!.file;
    await body({ corpus, store, saved, logs, open, rowsFile });
  } finally {
    await cleanup();
  }
}

/** Every row of `rows` (as a listing would build them). */
const all = (rows: ShownRows) => Array.from({ length: rows.length }, (_, i) => rows.summary(i));

/** What a window that never saw an index shows now. */
async function scanned(w: World): Promise<SessionSummary[]> {
  const fresh = new LocalIndex({
    claudeConfigDirs: [w.corpus.claudeDir],
    codexHome: w.corpus.codexDir,
  });
  return (await fresh.refresh()).sessions.map((s) => s.summary);
}

/**
 * A session store on the world's local connection (a LocalSource on its saved index), as
 * the extension builds it, with the "started waiting" notices it raised.
 */
function storeOnSavedRows(w: World): {
  store: SessionStore;
  notices: string[][];
  source: () => LocalSource;
} {
  let source: LocalSource | undefined;
  const log: Logger = { trace: () => {}, info: () => {}, warn: () => {}, error: () => {} };
  const store = new SessionStore({
    createSource: (config) =>
      (source = new LocalSource({
        config,
        claudeConfigDirs: [w.corpus.claudeDir],
        codexHome: w.corpus.codexDir,
        persist: { dir: w.store, version: '1.0.0' },
      })),
    log,
    pageSize: () => 100,
  });
  const notices: string[][] = [];
  store.onDidStartWaiting((sessions) => notices.push(sessions.map((s) => s.id)));
  store.setConnections([CONFIG]);
  return { store, notices, source: () => source! };
}

/** A Claude Code session of the corpus, with an unanswered question appended (waiting now). */
async function askUser(path: string, id: string): Promise<void> {
  const question = assistant({
    id,
    content: [toolUse(`t-${id}`, 'AskUserQuestion')],
    stop: 'tool_use',
    usage: usage(1, 1),
    seconds: 9e6,
  });
  await appendFile(path, jsonl(question));
}

describe('saved rows', () => {
  test('round trip: the rows as aggregated, with the statuses the clock gives later', async () => {
    const { dir, cleanup } = await tempDir('asi-rows-');
    try {
      const corpus = await writeLocalCorpus(dir, { claudeSessions: 5, codexSessions: 4 });
      const newest = Math.max(...corpus.files.map((f) => Date.parse(f.lastActivity)));
      // One session waits on a question (written at the newest activity).
      const asking = corpus.files.find((f) => f.harness === 'claude-code' && f.role === 'session')!;
      await askUser(asking.path, 'q1');
      await utimes(asking.path, new Date(newest), new Date(newest));
      const index = new LocalIndex({
        claudeConfigDirs: [corpus.claudeDir],
        codexHome: corpus.codexDir,
        now: () => newest + 10_000,
      });
      const snapshot = await index.refresh();
      const sessions: LocalSession[] = snapshot.sessions;
      // A field stored as JSON, and text past ASCII.
      sessions[0]!.summary = { ...sessions[0]!.summary, details: [['Tool', 'Bash']] };
      sessions[1]!.summary = { ...sessions[1]!.summary, label: 'naïve — ✓ 🚀 \u2028' };
      const statuses = new Set(sessions.map((s) => s.summary.status.status));
      assert.ok(statuses.has('waiting') && statuses.size > 2, [...statuses].join());
      const bytes = await encodeSavedRows(
        sessions,
        snapshot.problems,
        'cfg',
        DEFAULT_STATUS_THRESHOLDS,
        newest + 10_000,
      );
      assert.ok(snapshot.problems.length > 0, 'the corpus has problems');
      for (const later of [10_000, 5 * 60_000, 3_600_000, 2 * 86_400_000]) {
        const now = newest + later;
        const rows = new ShownRows(
          decodeSavedRows(bytes, 'cfg'),
          'other-id',
          now,
          DEFAULT_STATUS_THRESHOLDS,
        );
        for (const s of sessions) setStatus(s, now, DEFAULT_STATUS_THRESHOLDS);
        const expected = sessions.map((s) => ({ ...s.summary, connectionId: 'other-id' }));
        assert.deepEqual(all(rows), expected, `rows at +${later} ms`);
        assert.deepEqual(rows.problems, snapshot.problems);
        assert.deepEqual(
          rows.select((_h, status) => status === 'waiting'),
          expected.flatMap((s, i) => (s.status.status === 'waiting' ? [i] : [])),
        );
        assert.deepEqual(
          rows.select((h, _s, _ms, q) => h === 'codex' && q),
          sessions.flatMap((s, i) => (s.harness === 'codex' && s.file.substantive ? [i] : [])),
        );
      }
    } finally {
      await cleanup();
    }
  });

  test('the window that scanned saved them; a window opening shows them before any refresh', async () => {
    await inWorld(async (w) => {
      const index = w.open();
      const rows = await index.savedRows();
      assert.ok(rows, 'saved rows');
      assert.deepEqual(all(rows), w.saved);
      assert.equal(index.cache.stats.bytesRead, 0);
      assert.equal(index.persisted!.stats.loads, 0, 'the index itself is not read');
      await index.refresh();
      assert.equal(await index.savedRows(), undefined, 'only before the first refresh');
      assert.deepEqual(w.logs, []);
      await index.dispose();
    });
  });

  for (const [name, damage, reason] of [
    ['a flipped byte', (b: Buffer) => ((b[b.length - 3]! ^= 0x20), b), /checksum/],
    ['cut short', (b: Buffer) => b.subarray(0, b.length >> 1), /truncated/],
    ['not a rows file', () => Buffer.from('{}'), /not a rows file/],
  ] as const) {
    test(`${name}: ignored with one log line, written again at the next save`, async () => {
      await inWorld(async (w) => {
        await writeFile(w.rowsFile(), damage(await readFile(w.rowsFile())));
        const index = w.open();
        assert.equal(await index.savedRows(), undefined);
        assert.equal(await index.savedRowsFile!.load('local', Date.now()), undefined);
        assert.equal(w.logs.length, 1, w.logs.join('\n'));
        assert.match(w.logs[0]!, reason);
        // Nothing changed, yet the rows are saved again.
        await index.refresh();
        await index.saveIndex();
        const again = await w.open().savedRows();
        assert.ok(again);
        assert.deepEqual(all(again), w.saved);
        await index.dispose();
      });
    });
  }

  test('rows saved by another format version, with other prices or thresholds are ignored without a log line; another connection id is stamped', async () => {
    await inWorld(async (w) => {
      const bytes = await readFile(w.rowsFile());
      await writeFile(w.rowsFile(), Buffer.from(bytes).fill(0x63, 8, 9));
      assert.equal(await w.open().savedRows(), undefined, 'another format version');
      await writeFile(w.rowsFile(), bytes);
      const prices = w.open({ priceOverrides: { 'claude-sonnet-4-5': { input: 1, output: 1 } } });
      assert.equal(await prices.savedRows(), undefined);
      const thresholds = w.open({ thresholds: { activeMs: 1 } });
      assert.equal(await thresholds.savedRows(), undefined);
      assert.deepEqual(w.logs, []);
      const other = await w.open({ connectionId: 'second' }).savedRows();
      assert.ok(other);
      assert.deepEqual(
        all(other),
        w.saved.map((s) => ({ ...s, connectionId: 'second' })),
      );
      const folders = w.open({ codexHome: join(w.store, 'no-codex-here') });
      assert.equal(await folders.savedRows(), undefined, 'other folders: another file');
    });
  });

  test(
    'LocalSource: the saved rows first (provisional), then the checked ones after a file grew, one was removed and one added',
    { timeout: 60_000 },
    async () => {
      await inWorld(async (w) => {
        const sessions = w.corpus.files.filter(
          (f) => f.harness === 'claude-code' && f.role === 'session',
        );
        const [gone, grown] = sessions.map((f) => f.path);
        assert.ok(gone && grown);
        await rm(gone);
        await appendFile(
          grown,
          jsonl(assistant({ id: 'later', usage: usage(5, 7), seconds: 9e6 })),
        );
        const added = join(dirname(grown), '99999999-0000-4000-8000-000000000000.jsonl');
        await writeFile(added, jsonl(prompt('a new session')));
        const source = new LocalSource({
          config: CONFIG,
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
        assert.equal(page.provisional, true);
        assert.deepEqual(page.sessions, w.saved, 'the saved rows, untouched by the changes');
        assert.ok(page.sessions.some((s) => s.id === gone));
        assert.deepEqual(
          waiting.sessions,
          w.saved.filter((s) => s.status.status === 'waiting'),
        );
        assert.ok(problems.length > 0);
        await updated;
        const checked = source.index.snapshot;
        assert.ok(checked);
        // A listener that comes after the check, before a listing took it, is told too.
        await new Promise<void>((resolve) => source.onDidUpdate(resolve));
        const again = await source.listSessions({ limit: 1000 });
        assert.equal(again.provisional, undefined);
        assert.equal(source.index.snapshot, checked, 'the check, no second refresh');
        assert.deepEqual(again.sessions, await scanned(w));
        assert.ok(!again.sessions.some((s) => s.id === gone));
        assert.ok(again.sessions.some((s) => s.id === added));
        const s = source.index.cache.stats;
        assert.equal(s.fullScans, 1, 'only the new file is read from the start');
        assert.equal(s.appendScans, 1, 'the grown one continues from its saved end');
        await source.dispose();
      });
    },
  );

  test('LocalSource: filters and paging over the saved rows give what they give over the checked ones', async () => {
    await inWorld(async (w) => {
      const day = w.saved.find((s) => s.lastActivityAt)!.lastActivityAt!.slice(0, 10);
      const filterSets: (SessionFilters | undefined)[] = [
        undefined,
        { harness: 'codex' },
        { status: 'waiting' },
        { status: 'inactive' },
        { quality: 'substantive' },
        { quality: 'idle' },
        { startDate: day, endDate: day },
        { harness: 'claude-code', startDate: day },
      ];
      const listAll = async (source: LocalSource, filters: SessionFilters | undefined) => {
        const pages: SessionPage[] = [];
        let cursor: string | undefined;
        do {
          const page = await source.listSessions({
            limit: 3,
            ...(cursor ? { cursor } : {}),
            ...(filters ? { filters } : {}),
          });
          pages.push(page);
          cursor = page.next;
        } while (cursor);
        return pages;
      };
      const open = () =>
        new LocalSource({
          config: CONFIG,
          claudeConfigDirs: [w.corpus.claudeDir],
          codexHome: w.corpus.codexDir,
          persist: { dir: w.store, version: '1.0.0' },
        });
      let some = 0;
      for (const filters of filterSets) {
        const shown = open();
        const saved = await listAll(shown, filters);
        assert.ok(
          saved.every((p) => p.provisional),
          JSON.stringify(filters),
        );
        const checked = open();
        await checked.index.refresh();
        const fresh = await listAll(checked, filters);
        assert.deepEqual(
          saved.map((p) => ({ ...p, provisional: undefined })),
          fresh.map((p) => ({ ...p, provisional: undefined })),
          JSON.stringify(filters),
        );
        some += fresh[0]!.sessions.length > 0 ? 1 : 0;
        await shown.dispose();
        await checked.dispose();
      }
      assert.ok(some >= 6, `most filters keep some rows (${some})`);
    });
  });

  test('LocalSource: the usage report and session files only see checked rows', async () => {
    await inWorld(async (w) => {
      const gone = w.corpus.files.find((f) => f.role === 'session')!.path;
      await rm(gone);
      const source = new LocalSource({
        config: CONFIG,
        claudeConfigDirs: [w.corpus.claudeDir],
        codexHome: w.corpus.codexDir,
        persist: { dir: w.store, version: '1.0.0' },
      });
      const [files, report] = await Promise.all([source.sessionFiles(), source.usage()]);
      assert.ok(!files.some((s) => s.path === gone));
      assert.ok(report.totals.responses > 0);
      // The listing after them is a checked one too: the saved rows are for a first listing.
      const page = await source.listSessions({ limit: 1000 });
      assert.equal(page.provisional, undefined);
      assert.ok(!page.sessions.some((s) => s.id === gone));
      await source.dispose();
    });
  });

  test(
    'SessionStore: no "started waiting" from the saved rows or the check after them; later loads notify',
    { timeout: 60_000 },
    async () => {
      await inWorld(async (w) => {
        const [first, second] = w.corpus.files.filter(
          (f) => f.harness === 'claude-code' && f.role === 'session',
        );
        assert.ok(first && second);
        // Waiting since the save: the saved rows do not show it, the check does.
        await askUser(first.path, 'q1');
        const { store, notices, source: sourceOf } = storeOnSavedRows(w);
        await store.refresh(CONFIG.id);
        const state = store.state(CONFIG.id)!;
        assert.equal(state.provisional, true, 'the saved rows are shown');
        assert.ok(!store.waiting().some((s) => s.id === first.path));
        // As LiveLocalSessions does: list again when the check ends.
        await new Promise<void>((resolve) =>
          sourceOf().onDidUpdate(() => void store.refreshAfterCurrent(CONFIG.id).then(resolve)),
        );
        assert.equal(state.provisional, false);
        assert.ok(
          store.waiting().some((s) => s.id === first.path),
          'the check shows it waiting',
        );
        assert.deepEqual(notices, [], 'a first load raises no notice');
        // From then on a session that starts waiting is told.
        await askUser(second.path, 'q2');
        sourceOf().noteChanges([second.path], 'changed');
        await store.refresh(CONFIG.id);
        assert.deepEqual(notices, [[second.path]]);
        store.dispose();
        await sourceOf().dispose();
      });
    },
  );

  test('a poll of the waiting list while the saved rows are shown lists everything, without a notice', async () => {
    await inWorld(async (w) => {
      const first = w.corpus.files.find(
        (f) => f.harness === 'claude-code' && f.role === 'session',
      )!;
      await askUser(first.path, 'q1');
      const { store, notices, source: sourceOf } = storeOnSavedRows(w);
      await store.refresh(CONFIG.id);
      assert.equal(store.state(CONFIG.id)!.provisional, true);
      await store.refreshWaiting(CONFIG.id);
      assert.equal(store.state(CONFIG.id)!.provisional, false, 'a checked load');
      assert.ok(store.waiting().some((s) => s.id === first.path));
      assert.deepEqual(notices, []);
      store.dispose();
      await sourceOf().dispose();
    });
  });
});
