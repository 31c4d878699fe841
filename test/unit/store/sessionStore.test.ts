/**
 * The store against an in-memory SessionSource: an honest fake of the interface
 * (offset paging, optional complete waiting list, scripted failures). The store is
 * the unit under test, not the source.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DerivedStatus } from '../../../src/domain/derivedStatus.ts';
import { BackendError } from '../../../src/domain/errors.ts';
import type { SessionFilters } from '../../../src/domain/filters.ts';
import type { SessionPage, SessionSummary } from '../../../src/domain/session.ts';
import type {
  ConnectionConfig,
  ListSessionsRequest,
  SessionSource,
  SourceCapabilities,
  SourceProblem,
} from '../../../src/sources/sessionSource.ts';
import type { FilterMemory } from '../../../src/store/sessionStore.ts';
import { SessionStore } from '../../../src/store/sessionStore.ts';
import type { Logger } from '../../../src/util/logger.ts';

function session(
  id: string,
  status: DerivedStatus,
  extra: Partial<SessionSummary> = {},
): SessionSummary {
  return {
    id,
    connectionId: 'c',
    label: id,
    status: { status, raw: status },
    ...extra,
  };
}

const config = (id: string, extra: Partial<ConnectionConfig> = {}): ConnectionConfig => ({
  id,
  label: `Conn ${id}`,
  kind: 'mcp',
  url: `http://example.invalid/${id}`,
  ...extra,
});

/** Offset-paged sessions; `harness` filters like a server would. */
class FakeSource implements SessionSource {
  readonly config: ConnectionConfig;
  readonly operations = {};
  sessions: SessionSummary[];
  /** The complete waiting list; undefined = the source has no listWaiting. */
  waitingList: { sessions: SessionSummary[]; complete: boolean } | undefined;
  /** Thrown by the next listSessions calls while set. */
  failWith: unknown;
  readonly requests: ListSessionsRequest[] = [];
  readonly waitingRequests: (SessionFilters | undefined)[] = [];
  disposed = false;
  invalidRows = 0;
  listWaiting:
    | ((
        filters: SessionFilters | undefined,
      ) => Promise<{ sessions: SessionSummary[]; complete: boolean }>)
    | undefined;
  /** When set, listSessions waits for this before answering. */
  gate: Promise<void> | undefined;
  /** What listProblems answers (an Error is thrown). */
  problemList: SourceProblem[] | Error = [];
  problemRequests = 0;
  /** Undefined until withProblems(): a source with no problems to report. */
  listProblems: (() => Promise<SourceProblem[]>) | undefined;
  /**
   * How the fake pages: by offset (honest), ignoring the offset (every page is the
   * first), answering with the cursor it was given, or with opaque keys (`key:<offset>`,
   * any other cursor is refused like a server refuses a foreign page_key).
   */
  pager: 'offset' | 'ignoresOffset' | 'sameCursor' | 'opaque' = 'offset';
  /** Sends the first row of each page twice. */
  duplicateFirst = false;

  withProblems(list: SourceProblem[]): this {
    this.problemList = list;
    this.listProblems = async () => {
      this.problemRequests++;
      if (this.problemList instanceof Error) throw this.problemList;
      return this.problemList;
    };
    return this;
  }

  constructor(
    cfg: ConnectionConfig,
    sessions: SessionSummary[],
    waitingList?: { sessions: SessionSummary[]; complete: boolean },
  ) {
    this.config = cfg;
    this.sessions = sessions;
    this.waitingList = waitingList;
    this.listWaiting = waitingList
      ? async (filters) => {
          this.waitingRequests.push(filters);
          if (this.failWith !== undefined) throw this.failWith;
          const list = this.waitingList!;
          return {
            sessions: list.sessions.filter((s) => matches(s, filters)),
            complete: list.complete,
          };
        }
      : undefined;
  }

  async capabilities(): Promise<SourceCapabilities> {
    return {
      listSessions: true,
      transcripts: false,
      comments: false,
      usage: false,
      manualTasks: false,
      complete: false,
      interrupt: false,
      resume: false,
    };
  }

  async listSessions(request: ListSessionsRequest): Promise<SessionPage> {
    this.requests.push(request);
    await this.gate;
    if (this.failWith !== undefined) throw this.failWith;
    const all = this.sessions.filter((s) => matches(s, request.filters));
    let offset = Number(request.cursor ?? 0);
    if (this.pager === 'opaque' && request.cursor !== undefined) {
      const match = /^key:(\d+)$/.exec(request.cursor);
      if (!match) throw new BackendError('invalidResponse', `Invalid page_key ${request.cursor}`);
      offset = Number(match[1]);
    }
    if (this.pager === 'ignoresOffset') offset = 0;
    const end = offset + request.limit;
    const rows = all.slice(offset, end);
    const more = end < all.length || this.pager === 'ignoresOffset';
    return {
      sessions: this.duplicateFirst && rows[0] ? [rows[0], ...rows] : rows,
      total: all.length,
      next: !more
        ? undefined
        : this.pager === 'opaque'
          ? `key:${end}`
          : this.pager === 'sameCursor' && request.cursor !== undefined
            ? request.cursor
            : String(end),
      invalidRows: this.invalidRows,
    };
  }

  async test(): Promise<string> {
    return 'ok';
  }

  async dispose(): Promise<void> {
    this.disposed = true;
  }
}

function matches(s: SessionSummary, filters: SessionFilters | undefined): boolean {
  return !filters?.harness || s.harness === filters.harness;
}

class MemoryFilters implements FilterMemory {
  readonly saved = new Map<string, SessionFilters>();
  readonly writes: [string, SessionFilters][] = [];
  get(connectionId: string): SessionFilters | undefined {
    return this.saved.get(connectionId);
  }
  async set(connectionId: string, filters: SessionFilters): Promise<void> {
    this.writes.push([connectionId, filters]);
    this.saved.set(connectionId, filters);
  }
}

class RecordingLogger implements Logger {
  readonly warnings: string[] = [];
  readonly infos: string[] = [];
  trace(): void {}
  info(message: string): void {
    this.infos.push(message);
  }
  warn(message: string): void {
    this.warnings.push(message);
  }
  error(): void {}
}

function setup(sources: FakeSource[], options: { pageSize?: number; memory?: FilterMemory } = {}) {
  const byId = new Map(sources.map((s) => [s.config.id, s]));
  const created: ConnectionConfig[] = [];
  const log = new RecordingLogger();
  const store = new SessionStore({
    createSource: (cfg) => {
      created.push(cfg);
      const source = byId.get(cfg.id);
      if (!source) throw new Error(`no fake for ${cfg.id}`);
      return source;
    },
    log,
    pageSize: () => options.pageSize ?? 3,
    ...(options.memory ? { filters: options.memory } : {}),
  });
  store.setConnections(sources.map((s) => s.config));
  return { store, created, log };
}

const ids = (list: readonly SessionSummary[] | undefined) => (list ?? []).map((s) => s.id);

const many = (n: number, status: DerivedStatus = 'active', prefix = 's') =>
  Array.from({ length: n }, (_, i) => session(`${prefix}${i + 1}`, status));

describe('SessionStore', () => {
  it('first load: the first page, total and cursor; loading is announced and cleared', async () => {
    const source = new FakeSource(config('a'), many(7));
    const { store } = setup([source]);
    const events: (string | undefined)[] = [];
    const loadingSeen: boolean[] = [];
    store.onDidChange((id) => {
      events.push(id);
      loadingSeen.push(store.state('a')!.loading);
    });
    await store.refresh('a');
    const state = store.state('a')!;
    assert.deepEqual(ids(state.sessions), ['s1', 's2', 's3']);
    assert.equal(state.total, 7);
    assert.equal(state.next, '3');
    assert.equal(state.loadedOnce, true);
    assert.equal(state.loading, false);
    assert.equal(state.error, undefined);
    assert.deepEqual(events, ['a', 'a']);
    assert.deepEqual(loadingSeen, [true, false]);
    assert.equal(source.requests[0]?.limit, 3);
    assert.equal(source.requests[0]?.cursor, undefined);
  });

  it('loadMore pages on and merges without duplicates when rows shifted meanwhile', async () => {
    const source = new FakeSource(config('a'), many(7));
    const { store } = setup([source]);
    await store.refresh('a');
    // A new session arrives at the top: offset 3 now starts at the old s3.
    source.sessions = [session('new', 'active'), ...source.sessions];
    await store.loadMore('a');
    const state = store.state('a')!;
    assert.equal(source.requests.at(-1)?.cursor, '3');
    assert.deepEqual(ids(state.sessions), ['s1', 's2', 's3', 's4', 's5']);
    assert.equal(new Set(ids(state.sessions)).size, state.sessions.length, 'no duplicates');
    assert.equal(state.next, '6');
    await store.loadMore('a');
    assert.deepEqual(ids(state.sessions), ['s1', 's2', 's3', 's4', 's5', 's6', 's7']);
    assert.equal(state.next, undefined);
    const requests = source.requests.length;
    await store.loadMore('a');
    assert.equal(source.requests.length, requests, 'nothing more to load: no request');
  });

  it('invalid rows are counted per load and summed over pages', async () => {
    const source = new FakeSource(config('a'), many(7));
    source.invalidRows = 2;
    const { store, log } = setup([source]);
    await store.refresh('a');
    await store.loadMore('a');
    assert.equal(store.state('a')!.invalidRows, 4);
    assert.ok(log.warnings.some((w) => w.includes('2 session rows failed validation')));
    await store.refresh('a');
    assert.equal(store.state('a')!.invalidRows, 2, 'a refresh starts counting again');
  });

  it('a failed refresh keeps the last good sessions and sets the error; the next success clears it', async () => {
    const source = new FakeSource(config('a'), many(5));
    const { store } = setup([source]);
    await store.refresh('a');
    source.failWith = new BackendError('server', 'answered 503', { status: 503 });
    await store.refresh('a');
    const state = store.state('a')!;
    assert.deepEqual(ids(state.sessions), ['s1', 's2', 's3']);
    assert.equal(state.error?.kind, 'server');
    assert.equal(state.error?.status, 503);
    assert.equal(state.loading, false);
    assert.equal(state.loadedOnce, true);

    source.failWith = new TypeError('not a backend error');
    await store.refresh('a');
    assert.equal(state.error?.kind, 'invalidResponse', 'anything else is an unusable answer');
    assert.match(state.error?.message ?? '', /not a backend error/);

    source.failWith = undefined;
    await store.refresh('a');
    assert.equal(state.error, undefined);
  });

  it('a failed first load leaves nothing loaded but the error', async () => {
    const source = new FakeSource(config('a'), many(5));
    source.failWith = new BackendError('unauthorized', 'Sign in again.', { status: 401 });
    const { store } = setup([source]);
    await store.refresh('a');
    const state = store.state('a')!;
    assert.equal(state.loadedOnce, false);
    assert.deepEqual(state.sessions, []);
    assert.equal(state.error?.kind, 'unauthorized');
  });

  it('the waiting list from listWaiting overrides the waiting sessions of the loaded pages', async () => {
    const loadedWaiting = session('w-loaded', 'waiting');
    const elsewhere = session('w-page-9', 'waiting');
    const source = new FakeSource(
      config('a'),
      [session('a1', 'active'), loadedWaiting, session('f1', 'finished'), ...many(5)],
      { sessions: [elsewhere], complete: true },
    );
    const { store } = setup([source]);
    await store.refresh('a');
    assert.deepEqual(ids(store.waiting()), ['w-page-9']);
    const groups = store.groups('a');
    assert.deepEqual(ids(groups.get('waiting')), ['w-page-9']);
    assert.deepEqual(ids(groups.get('active')), ['a1']);
    assert.deepEqual(ids(groups.get('finished')), ['f1']);
    assert.equal(
      [...groups.values()].flat().filter((s) => s.id === 'w-loaded').length,
      0,
      'a loaded row the complete list does not name is not shown as waiting',
    );
    assert.equal(source.waitingRequests.length, 1);
  });

  it('listWaiting is asked on a refresh, not on loadMore', async () => {
    const source = new FakeSource(config('a'), many(7), { sessions: [], complete: true });
    const { store } = setup([source]);
    await store.refresh('a');
    await store.loadMore('a');
    assert.equal(source.waitingRequests.length, 1);
    await store.refresh('a');
    assert.equal(source.waitingRequests.length, 2);
  });

  it('without listWaiting, the waiting sessions are those of the loaded pages', async () => {
    const source = new FakeSource(config('a'), [
      session('w1', 'waiting'),
      session('a1', 'active'),
      session('w2', 'waiting'),
      session('w3', 'waiting'),
    ]);
    const { store } = setup([source]);
    await store.refresh('a');
    assert.deepEqual(ids(store.waiting()), ['w1', 'w2']);
    assert.deepEqual(ids(store.groups('a').get('waiting')), ['w1', 'w2']);
    await store.loadMore('a');
    assert.deepEqual(ids(store.waiting()), ['w1', 'w2', 'w3']);
  });

  it('loads the source problems with the first page (not with later pages) and logs a summary per kind when they change', async () => {
    const problems: SourceProblem[] = [
      { kind: 'invalid-json', message: 'Line 3 is not JSON', path: '/t/a.jsonl', line: 3 },
      { kind: 'invalid-json', message: 'Line 9 is not JSON', path: '/t/a.jsonl', line: 9 },
      { kind: 'unreadable', message: 'EACCES', path: '/t/b.jsonl' },
    ];
    const source = new FakeSource(config('a', { kind: 'local' }), many(7)).withProblems(problems);
    const { store, log } = setup([source]);
    await store.refresh('a');
    assert.deepEqual(store.state('a')!.problems, problems);
    assert.deepEqual(
      log.warnings.filter((w) => w.includes('problem')),
      ['Conn a: 3 problems (invalid-json 2, unreadable 1)'],
    );
    assert.ok(
      log.infos.includes('Conn a: /t/a.jsonl:9 invalid-json: Line 9 is not JSON'),
      'each problem is in the log, with its place',
    );
    await store.loadMore('a');
    assert.equal(source.problemRequests, 1, 'a later page does not ask again');
    await store.refresh('a');
    assert.equal(source.problemRequests, 2, 'every first-page load asks');
    assert.equal(
      log.warnings.filter((w) => w.includes('problem')).length,
      1,
      'the same problems are not logged again',
    );
    source.problemList = problems.slice(0, 1);
    await store.refresh('a');
    assert.equal(store.state('a')!.problems.length, 1);
    assert.equal(log.warnings.at(-1), 'Conn a: 1 problem (invalid-json 1)');
    source.problemList = [];
    await store.refresh('a');
    assert.deepEqual(store.state('a')!.problems, []);
    assert.equal(log.infos.at(-1), 'Conn a: no problems in the input any more');
  });

  it('a source without listProblems has none; a failing listProblems keeps the last list and the sessions still load', async () => {
    const plain = new FakeSource(config('a'), many(2));
    const failing = new FakeSource(config('b'), many(2)).withProblems([
      { kind: 'truncated-line', message: 'Line 4 has no end yet', path: '/t/c.jsonl', line: 4 },
    ]);
    const { store, log } = setup([plain, failing]);
    await store.refresh('a');
    assert.deepEqual(store.state('a')!.problems, []);
    assert.equal(log.warnings.length, 0);
    await store.refresh('b');
    failing.problemList = new Error('disk went away');
    failing.sessions = many(3, 'idle', 'n');
    await store.refresh('b');
    const state = store.state('b')!;
    assert.equal(state.error, undefined, 'listing problems is not listing sessions');
    assert.deepEqual(ids(state.sessions), ['n1', 'n2', 'n3']);
    assert.equal(state.problems.length, 1, 'the last known problems stay');
    assert.ok(
      log.warnings.some((w) => w === 'Conn b: could not list problems: Error: disk went away'),
    );
  });

  it('waiting() spans connections', async () => {
    const a = new FakeSource(config('a'), [session('wa', 'waiting')]);
    const b = new FakeSource(config('b'), [session('x', 'active')], {
      sessions: [session('wb', 'waiting')],
      complete: true,
    });
    const { store } = setup([a, b]);
    await Promise.all([store.refresh('a'), store.refresh('b')]);
    assert.deepEqual(ids(store.waiting()).sort(), ['wa', 'wb']);
  });

  it('archived sessions are not counted as waiting, nor announced, and the count says how many it left out', async () => {
    const a = new FakeSource(config('a'), [session('wa', 'waiting'), session('wx', 'waiting')]);
    const b = new FakeSource(config('b'), [], {
      sessions: [session('wb', 'waiting')],
      complete: true,
    });
    const { store } = setup([a, b]);
    const archived = new Set(['wx', 'wb']);
    store.setNotCounted((s) => archived.has(s.id));
    const fired: string[][] = [];
    store.onDidStartWaiting((list) => fired.push(ids(list)));
    await Promise.all([store.refresh('a'), store.refresh('b')]);
    assert.deepEqual(ids(store.waiting()), ['wa']);
    assert.equal(store.waitingNotCounted(), 2);
    // The tree still gets every waiting session (it hides archived ones itself).
    assert.deepEqual(ids(store.groups('a').get('waiting') ?? []), ['wa', 'wx']);
    // An archived session that starts waiting again is not news; another one is.
    a.sessions = [session('wa', 'waiting'), session('wx', 'active'), session('wy', 'active')];
    await store.refresh('a');
    a.sessions = [session('wa', 'waiting'), session('wx', 'waiting'), session('wy', 'waiting')];
    await store.refresh('a');
    assert.deepEqual(fired, [['wy']]);
    archived.delete('wx');
    assert.deepEqual(ids(store.waiting()).sort(), ['wa', 'wx', 'wy']);
  });

  describe('waitingIncomplete', () => {
    it('is false when every connection loaded and could tell', async () => {
      const a = new FakeSource(config('a'), [session('w', 'waiting')]);
      const b = new FakeSource(config('b'), [], { sessions: [], complete: true });
      const { store } = setup([a, b]);
      await Promise.all([store.refresh('a'), store.refresh('b')]);
      assert.equal(store.waitingIncomplete(), false);
    });

    it('is true when a source says its waiting list is not complete', async () => {
      const a = new FakeSource(config('a'), []);
      const b = new FakeSource(config('b'), [], {
        sessions: [session('w', 'waiting')],
        complete: false,
      });
      const { store } = setup([a, b]);
      await Promise.all([store.refresh('a'), store.refresh('b')]);
      assert.equal(store.waitingIncomplete(), true);
    });

    it('is true when a loaded session could not tell whether it waits', async () => {
      const a = new FakeSource(config('a'), [session('x', 'active', { waitingUnknown: true })]);
      const { store } = setup([a]);
      await store.refresh('a');
      assert.equal(store.waitingIncomplete(), true);
    });

    it('is true when a connection failed, and false again once it recovers', async () => {
      const a = new FakeSource(config('a'), [session('w', 'waiting')]);
      const b = new FakeSource(config('b'), []);
      b.failWith = new BackendError('network', 'refused');
      const { store } = setup([a, b]);
      await Promise.all([store.refresh('a'), store.refresh('b')]);
      assert.equal(store.waitingIncomplete(), true);
      b.failWith = undefined;
      await store.refresh('b');
      assert.equal(store.waitingIncomplete(), false);
    });
  });

  describe('onDidStartWaiting', () => {
    it('never fires on the first load, then only for sessions newly waiting', async () => {
      const source = new FakeSource(config('a'), [
        session('w1', 'waiting'),
        session('a1', 'active'),
        session('a2', 'active'),
      ]);
      const { store } = setup([source]);
      const fired: string[][] = [];
      store.onDidStartWaiting((list) => fired.push(ids(list)));
      await store.refresh('a');
      assert.deepEqual(fired, [], 'the first load is not news');
      await store.refresh('a');
      assert.deepEqual(fired, [], 'nothing changed');
      source.sessions = [
        session('w1', 'waiting'),
        session('a1', 'waiting'),
        session('a2', 'active'),
      ];
      await store.refresh('a');
      assert.deepEqual(fired, [['a1']]);
      await store.refresh('a');
      assert.deepEqual(fired, [['a1']], 'still waiting is not news');
      source.sessions = [session('w1', 'active'), session('a1', 'active'), session('a2', 'active')];
      await store.refresh('a');
      source.sessions = [
        session('w1', 'waiting'),
        session('a1', 'active'),
        session('a2', 'active'),
      ];
      await store.refresh('a');
      assert.deepEqual(fired, [['a1'], ['w1']], 'waiting again after a break is news');
    });

    it('uses the complete waiting list when the source has one', async () => {
      const source = new FakeSource(config('a'), many(3), {
        sessions: [session('far1', 'waiting')],
        complete: true,
      });
      const { store } = setup([source]);
      const fired: string[][] = [];
      store.onDidStartWaiting((list) => fired.push(ids(list)));
      await store.refresh('a');
      source.waitingList = {
        sessions: [session('far1', 'waiting'), session('far2', 'waiting')],
        complete: true,
      };
      await store.refresh('a');
      assert.deepEqual(fired, [['far2']]);
    });

    it('a failed first load does not count as the first load', async () => {
      const source = new FakeSource(config('a'), [session('w1', 'waiting')]);
      source.failWith = new BackendError('server', '503');
      const { store } = setup([source]);
      const fired: string[][] = [];
      store.onDidStartWaiting((list) => fired.push(ids(list)));
      await store.refresh('a');
      source.failWith = undefined;
      await store.refresh('a');
      assert.deepEqual(fired, [], 'the first successful load is still the first');
    });

    it('loading more pages reveals older sessions; they did not start waiting', async () => {
      const source = new FakeSource(config('a'), [
        ...many(3),
        session('old-w1', 'waiting'),
        session('old-w2', 'waiting'),
      ]);
      const { store } = setup([source]);
      const fired: string[][] = [];
      store.onDidStartWaiting((list) => fired.push(ids(list)));
      await store.refresh('a');
      await store.loadMore('a');
      assert.deepEqual(ids(store.waiting()), ['old-w1', 'old-w2']);
      assert.deepEqual(fired, []);
    });

    it('a disposed listener is not called', async () => {
      const source = new FakeSource(config('a'), [session('a1', 'active')]);
      const { store } = setup([source]);
      const fired: string[][] = [];
      const sub = store.onDidStartWaiting((list) => fired.push(ids(list)));
      await store.refresh('a');
      sub.dispose();
      source.sessions = [session('a1', 'waiting')];
      await store.refresh('a');
      assert.deepEqual(fired, []);
    });
  });

  describe('filters', () => {
    it('setConnections starts a connection with its remembered filters', async () => {
      const memory = new MemoryFilters();
      memory.saved.set('a', { harness: 'codex' });
      const source = new FakeSource(config('a'), [
        session('x', 'active', { harness: 'claude-code' }),
        session('y', 'active', { harness: 'codex' }),
      ]);
      const { store } = setup([source], { memory });
      assert.deepEqual(store.state('a')!.filters, { harness: 'codex' });
      await store.refresh('a');
      assert.deepEqual(source.requests[0]?.filters, { harness: 'codex' });
      assert.deepEqual(ids(store.state('a')!.sessions), ['y']);
    });

    it('setFilters remembers the filters and reloads with them', async () => {
      const memory = new MemoryFilters();
      const source = new FakeSource(
        config('a'),
        [
          session('x', 'active', { harness: 'claude-code' }),
          session('y', 'waiting', { harness: 'codex' }),
        ],
        { sessions: [session('y', 'waiting', { harness: 'codex' })], complete: true },
      );
      const { store } = setup([source], { memory });
      await store.refresh('a');
      await store.setFilters('a', { harness: 'codex' });
      assert.deepEqual(memory.writes, [['a', { harness: 'codex' }]]);
      assert.deepEqual(store.state('a')!.filters, { harness: 'codex' });
      assert.equal(source.requests.length, 2, 'reloaded');
      assert.deepEqual(source.requests[1]?.filters, { harness: 'codex' });
      assert.equal(source.requests[1]?.cursor, undefined, 'from the first page');
      assert.deepEqual(source.waitingRequests.at(-1), { harness: 'codex' });
      assert.deepEqual(ids(store.state('a')!.sessions), ['y']);
    });

    it('after setFilters only rows of the new filter are shown, and paging restarts', async () => {
      const source = new FakeSource(config('a'), [
        ...many(6, 'active', 'c').map((s) => ({ ...s, harness: 'claude-code' })),
        ...many(5, 'active', 'x').map((s) => ({ ...s, harness: 'codex' })),
      ]);
      const { store } = setup([source]);
      await store.refresh('a');
      await store.loadMore('a');
      assert.equal(store.state('a')!.sessions.length, 6);
      await store.setFilters('a', { harness: 'codex' });
      const state = store.state('a')!;
      assert.deepEqual(ids(state.sessions), ['x1', 'x2', 'x3']);
      assert.equal(state.total, 5);
      assert.equal(state.next, '3', 'the next page of the filtered list follows the first');
      await store.loadMore('a');
      assert.deepEqual(ids(state.sessions), ['x1', 'x2', 'x3', 'x4', 'x5']);
    });

    it('setFilters while a load with the old filters is in flight still ends with the new filters', async () => {
      const source = new FakeSource(config('a'), [
        ...many(4, 'active', 'c').map((s) => ({ ...s, harness: 'claude-code' })),
        ...many(2, 'active', 'x').map((s) => ({ ...s, harness: 'codex' })),
      ]);
      const { store } = setup([source]);
      await store.refresh('a');
      let open: () => void = () => undefined;
      source.gate = new Promise<void>((resolve) => (open = resolve));
      const poll = store.refresh('a'); // e.g. the poller, with no filters
      const filtering = store.setFilters('a', { harness: 'codex' });
      open();
      await Promise.all([poll, filtering]);
      assert.deepEqual(source.requests.at(-1)?.filters, { harness: 'codex' });
      assert.deepEqual(ids(store.state('a')!.sessions), ['x1', 'x2']);
    });

    it('contradictory filters are refused before any request', async () => {
      const source = new FakeSource(config('a'), many(3), { sessions: [], complete: true });
      const { store } = setup([source]);
      await store.setFilters('a', { viewerScope: 'team' });
      const state = store.state('a')!;
      assert.equal(state.error?.kind, 'invalidFilter');
      assert.match(state.error?.message ?? '', /team ID/);
      assert.equal(source.requests.length, 0);
      assert.equal(source.waitingRequests.length, 0);
    });

    it('setFilters on an unknown connection does nothing', async () => {
      const memory = new MemoryFilters();
      const { store } = setup([new FakeSource(config('a'), [])], { memory });
      await store.setFilters('nope', { harness: 'codex' });
      assert.deepEqual(memory.writes, []);
    });
  });

  describe('setConnections', () => {
    it('drops removed connections: state gone, source disposed, waiting no longer counted', async () => {
      const a = new FakeSource(config('a'), [session('wa', 'waiting')]);
      const b = new FakeSource(config('b'), [session('wb', 'waiting')]);
      const { store } = setup([a, b]);
      await Promise.all([store.refresh('a'), store.refresh('b')]);
      const changes: (string | undefined)[] = [];
      store.onDidChange((id) => changes.push(id));
      store.setConnections([a.config]);
      assert.deepEqual(
        store.connections().map((c) => c.config.id),
        ['a'],
      );
      assert.equal(store.state('b'), undefined);
      assert.equal(b.disposed, true);
      assert.equal(a.disposed, false);
      assert.deepEqual(ids(store.waiting()), ['wa']);
      assert.deepEqual(changes, [undefined], 'one change for the whole list');
      assert.deepEqual(store.groups('b'), new Map());
    });

    it('keeps the state of unchanged connections and restarts changed ones', async () => {
      const a = new FakeSource(config('a'), [session('x', 'active')]);
      const { store, created } = setup([a]);
      await store.refresh('a');
      store.setConnections([config('a')]);
      assert.equal(store.state('a')!.loadedOnce, true, 'same config: kept');
      assert.equal(a.disposed, false);
      store.setConnections([config('a', { url: 'http://example.invalid/other' })]);
      assert.equal(a.disposed, true, 'changed config: old source disposed');
      assert.equal(store.state('a')!.loadedOnce, false);
      assert.equal(store.state('a')!.config.url, 'http://example.invalid/other');
      store.source('a');
      assert.equal(created.at(-1)?.url, 'http://example.invalid/other', 'a new source for it');
    });

    it('a connection removed while its load is in flight does not come back', async () => {
      const a = new FakeSource(config('a'), [session('x', 'active')]);
      let open: () => void = () => undefined;
      a.gate = new Promise<void>((resolve) => (open = resolve));
      const { store } = setup([a]);
      const loading = store.refresh('a');
      store.setConnections([]);
      open();
      await loading;
      assert.equal(store.state('a'), undefined);
      assert.deepEqual(store.connections(), []);
    });
  });

  it('a second refresh while one is in flight is not sent twice', async () => {
    const a = new FakeSource(config('a'), many(2));
    let open: () => void = () => undefined;
    a.gate = new Promise<void>((resolve) => (open = resolve));
    const { store } = setup([a]);
    const first = store.refresh('a');
    const second = store.refresh('a');
    open();
    await Promise.all([first, second]);
    assert.equal(a.requests.length, 1);
  });
});

describe('SessionStore.refreshWaiting (background polling)', () => {
  it('loads the first page when the connection never loaded', async () => {
    const source = new FakeSource(config('a'), many(3), { sessions: [], complete: true });
    const { store } = setup([source]);
    await store.refreshWaiting('a');
    assert.equal(source.requests.length, 1, 'the first page');
    assert.equal(store.state('a')?.loadedOnce, true);
  });

  it('after that asks only for the waiting list, and reports who started waiting', async () => {
    const source = new FakeSource(config('a'), many(3), { sessions: [], complete: true });
    const { store } = setup([source]);
    const started: string[][] = [];
    store.onDidStartWaiting((s) => started.push(ids(s)));
    await store.refreshWaiting('a');
    source.waitingList = { sessions: [session('w1', 'waiting')], complete: true };
    await store.refreshWaiting('a');
    assert.equal(source.requests.length, 1, 'no page asked again');
    assert.equal(source.waitingRequests.length, 2);
    assert.deepEqual(ids(store.waiting()), ['w1']);
    assert.deepEqual(started, [['w1']]);
  });

  it('a failing waiting list marks the connection and the count as incomplete', async () => {
    const source = new FakeSource(config('a'), many(3), { sessions: [], complete: true });
    const { store } = setup([source]);
    await store.refreshWaiting('a');
    source.failWith = new BackendError('network', 'down');
    await store.refreshWaiting('a');
    assert.equal(store.state('a')?.error?.kind, 'network');
    assert.equal(store.waitingIncomplete(), true);
  });

  it('without listWaiting it refreshes the first page', async () => {
    const source = new FakeSource(config('a'), [session('w1', 'waiting')]);
    const { store } = setup([source]);
    await store.refreshWaiting('a');
    await store.refreshWaiting('a');
    assert.equal(source.requests.length, 2);
  });
});

describe('paging that repeats itself', () => {
  it('a source that ignores the offset: Load more stops at once, rows kept once, the node stays through polls', async () => {
    const source = new FakeSource(config('a'), many(9));
    source.pager = 'ignoresOffset';
    const { store, log } = setup([source]);
    await store.refresh('a');
    const state = store.state('a')!;
    assert.equal(state.next, '3');
    await store.loadMore('a');
    assert.equal(state.next, undefined, 'no Load more any more');
    assert.deepEqual(state.pagingRepeated, ['session list']);
    assert.deepEqual(ids(state.sessions), ['s1', 's2', 's3']);
    assert.equal(log.warnings.filter((w) => w.includes('paging repeated itself')).length, 1);
    await store.refresh('a');
    assert.equal(state.next, undefined, 'a poll does not bring the loop back');
    assert.deepEqual(state.pagingRepeated, ['session list']);
    const requests = source.requests.length;
    await store.loadMore('a');
    assert.equal(source.requests.length, requests);
    // New filters page afresh.
    await store.setFilters('a', { harness: undefined });
    assert.deepEqual(state.pagingRepeated, []);
    assert.equal(state.next, '3');
  });

  it('a source that answers Load more with the cursor it was given: its rows are kept, paging stops', async () => {
    const source = new FakeSource(config('a'), many(9));
    source.pager = 'sameCursor';
    const { store } = setup([source]);
    await store.refresh('a');
    await store.loadMore('a');
    const state = store.state('a')!;
    assert.deepEqual(ids(state.sessions), ['s1', 's2', 's3', 's4', 's5', 's6']);
    assert.equal(state.next, undefined);
    assert.deepEqual(state.pagingRepeated, ['session list']);
  });

  it('Load more tells the source which ids are loaded; a refresh does not', async () => {
    const source = new FakeSource(config('a'), many(9));
    const { store } = setup([source]);
    await store.refresh('a');
    await store.loadMore('a');
    assert.equal(source.requests[0]?.loaded, undefined);
    assert.deepEqual([...(source.requests[1]?.loaded ?? [])], ['s1', 's2', 's3']);
  });

  it('a source that names a listing whose paging repeated: shown, and other rows keep paging', async () => {
    const source = new FakeSource(config('a'), many(9));
    const { store } = setup([source]);
    const list = source.listSessions.bind(source);
    source.listSessions = async (request) => ({
      ...(await list(request)),
      ...(request.cursor === '3' ? { pagingRepeated: ['agent_x'] } : {}),
    });
    await store.refresh('a');
    await store.loadMore('a');
    const state = store.state('a')!;
    assert.deepEqual(state.pagingRepeated, ['agent_x']);
    assert.equal(state.next, '6', 'the rest pages on');
    await store.loadMore('a');
    assert.deepEqual(
      ids(state.sessions),
      many(9).map((x) => x.id),
    );
  });

  it('the same session twice in one answer, or in the waiting list, counts once (the first row)', async () => {
    const waiting = [session('w1', 'waiting'), session('w1', 'waiting', { label: 'copy' })];
    const source = new FakeSource(config('a'), [...many(2, 'waiting', 'w'), ...many(4)], {
      sessions: waiting,
      complete: true,
    });
    source.duplicateFirst = true;
    const { store } = setup([source]);
    await store.refresh('a');
    const state = store.state('a')!;
    assert.deepEqual(ids(state.sessions), ['w1', 'w2', 's1']);
    assert.deepEqual(ids(store.waiting()), ['w1']);
    assert.equal(store.waiting()[0]?.label, 'w1');
    await store.loadMore('a');
    assert.deepEqual(ids(state.sessions), ['w1', 'w2', 's1', 's2', 's3', 's4']);
    assert.deepEqual(state.pagingRepeated, []);
  });

  it('an opaque cursor (page_key) continues after a poll where the loaded rows end', async () => {
    const source = new FakeSource(config('a'), many(9));
    source.pager = 'opaque';
    const { store } = setup([source]);
    await store.refresh('a');
    await store.loadMore('a');
    const state = store.state('a')!;
    assert.equal(state.next, 'key:6');
    await store.refresh('a');
    assert.equal(state.next, 'key:6', 'not an offset made up from the row count');
    await store.loadMore('a');
    assert.equal(state.error, undefined);
    assert.deepEqual(
      ids(state.sessions),
      many(9).map((x) => x.id),
    );
    assert.equal(state.next, undefined);
  });
});
