/**
 * Archive (mark as done): kept per connection in global state, bounded, read back by a new
 * window; archived sessions and their subagents leave the default tree's groups.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { underArchived, withoutArchived } from '../../../src/domain/archived.ts';
import type { DerivedStatus } from '../../../src/domain/derivedStatus.ts';
import type { SessionSummary } from '../../../src/domain/session.ts';
import { ArchiveStore, type ArchiveMemory } from '../../../src/store/archiveStore.ts';

class Memory implements ArchiveMemory {
  readonly values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, structuredClone(value));
  }
}

function session(id: string, status: DerivedStatus, parentId?: string): SessionSummary {
  return { id, connectionId: 'c1', label: id, status: { status, raw: status }, parentId };
}

describe('ArchiveStore', () => {
  test('archives per connection and survives a new window (read from global state)', async () => {
    const memory = new Memory();
    const store = new ArchiveStore(memory);
    const changes: string[] = [];
    store.onDidChange((id) => changes.push(id));
    await store.archive('c1', ['s1', 's2'], 1000);
    await store.archive('c2', ['s1'], 2000);
    assert.deepEqual(changes, ['c1', 'c2']);
    assert.ok(store.isArchived('c1', 's1'));
    assert.ok(!store.isArchived('c1', 's3'));
    assert.deepEqual(memory.get('archive/c1'), [
      ['s1', 1000],
      ['s2', 1000],
    ]);

    const again = new ArchiveStore(memory);
    assert.ok(again.isArchived('c1', 's2'));
    assert.ok(again.isArchived('c2', 's1'));
    assert.ok(
      !again.isArchived('c2', 's2'),
      'the same id on another connection is another session',
    );
    assert.equal(again.archivedAt('c2', 's1'), 2000);

    await again.unarchive('c1', ['s1']);
    assert.ok(!new ArchiveStore(memory).isArchived('c1', 's1'));
    assert.ok(new ArchiveStore(memory).isArchived('c1', 's2'));
    await again.forget('c2');
    assert.equal(memory.get('archive/c2'), undefined);
  });

  test('bounded: the oldest fall out; archiving again makes a session the newest', async () => {
    const memory = new Memory();
    const store = new ArchiveStore(memory, 3);
    await store.archive('c1', ['a'], 1);
    await store.archive('c1', ['b'], 2);
    await store.archive('c1', ['c'], 3);
    await store.archive('c1', ['a'], 4); // a moves to the newest end
    await store.archive('c1', ['d'], 5); // b, now the oldest, falls out
    assert.equal(store.count('c1'), 3);
    assert.deepEqual(
      (memory.get<[string, number][]>('archive/c1') ?? []).map(([id]) => id),
      ['c', 'a', 'd'],
    );
    assert.ok(!store.isArchived('c1', 'b'));
  });

  test('a damaged stored value reads as nothing archived, not as an error', () => {
    const memory = new Memory();
    memory.values.set('archive/c1', [['ok', 1], 'junk', [2, 3], null, ['no-time']]);
    const store = new ArchiveStore(memory);
    assert.ok(store.isArchived('c1', 'ok'));
    assert.equal(store.count('c1'), 1);
    memory.values.set('archive/c2', { not: 'a list' });
    assert.equal(store.count('c2'), 0);
  });
});

describe('archived sessions in the tree', () => {
  test('archived sessions and their subagents leave the groups; empty groups go', () => {
    const byStatus = new Map<DerivedStatus, SessionSummary[]>([
      ['waiting', [session('w1', 'waiting')]],
      ['idle', [session('p', 'idle'), session('q', 'idle')]],
      ['active', [session('p-sub', 'active', 'p'), session('p-sub-sub', 'active', 'p-sub')]],
    ]);
    const archived = new Set(['w1', 'p']);
    const out = withoutArchived(byStatus, (id) => archived.has(id));
    assert.deepEqual([...out.keys()], ['idle']);
    assert.deepEqual(
      out.get('idle')!.map((s) => s.id),
      ['q'],
    );
    assert.ok(underArchived(session('p-sub', 'active', 'p'), (id) => archived.has(id)));
    assert.ok(!underArchived(session('q', 'idle'), (id) => archived.has(id)));
    // A parent loop in backend data does not hang.
    const loop = new Map([
      ['x', session('x', 'idle', 'y')],
      ['y', session('y', 'idle', 'x')],
    ]);
    assert.ok(!underArchived(loop.get('x')!, () => false, loop));
  });
});
