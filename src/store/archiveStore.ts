/**
 * Sessions the user marked done ("Archive"): hidden from the default tree and from the
 * waiting count until unarchived. Kept in global state per connection (`archive/<id>`), as
 * session ids with the time they were archived, newest last; each connection keeps at most
 * ARCHIVE_LIMIT (the oldest fall out, and their sessions show again).
 *
 * Archiving is the user's bookkeeping only: a remote session is not completed by it (the
 * Complete command does that through session_complete when the user asks).
 */

/** The slice of vscode.Memento this needs. */
export interface ArchiveMemory {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

export const ARCHIVE_LIMIT = 5_000;
const PREFIX = 'archive/';

/** One archived session: its id and when it was archived (ms since the epoch). */
type Entry = [sessionId: string, archivedAt: number];

export class ArchiveStore {
  private readonly memory: ArchiveMemory;
  private readonly limit: number;
  /** Read once per connection, then kept in step with what is written. */
  private readonly cache = new Map<string, Map<string, number>>();
  private readonly listeners = new Set<(connectionId: string) => void>();

  constructor(memory: ArchiveMemory, limit = ARCHIVE_LIMIT) {
    this.memory = memory;
    this.limit = limit;
  }

  onDidChange(listener: (connectionId: string) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  isArchived(connectionId: string, sessionId: string): boolean {
    return this.of(connectionId).has(sessionId);
  }

  /** When the session was archived (ms since the epoch), if it is. */
  archivedAt(connectionId: string, sessionId: string): number | undefined {
    return this.of(connectionId).get(sessionId);
  }

  count(connectionId: string): number {
    return this.of(connectionId).size;
  }

  async archive(connectionId: string, sessionIds: readonly string[], now = Date.now()) {
    const map = this.of(connectionId);
    for (const id of sessionIds) {
      map.delete(id); // re-archiving moves it to the newest end
      map.set(id, now);
    }
    while (map.size > this.limit) map.delete(map.keys().next().value!);
    await this.save(connectionId, map);
  }

  async unarchive(connectionId: string, sessionIds: readonly string[]) {
    const map = this.of(connectionId);
    let changed = false;
    for (const id of sessionIds) changed = map.delete(id) || changed;
    if (changed) await this.save(connectionId, map);
  }

  /** A removed connection's archive goes with it. */
  async forget(connectionId: string) {
    this.cache.delete(connectionId);
    await this.memory.update(PREFIX + connectionId, undefined);
    this.fire(connectionId);
  }

  private of(connectionId: string): Map<string, number> {
    let map = this.cache.get(connectionId);
    if (!map) {
      map = new Map();
      const stored = this.memory.get<unknown>(PREFIX + connectionId);
      // Global state is ours, but a hand-edited or older value must not break the tree.
      if (Array.isArray(stored)) {
        for (const item of stored) {
          if (Array.isArray(item) && typeof item[0] === 'string' && typeof item[1] === 'number')
            map.set(item[0], item[1]);
        }
      }
      this.cache.set(connectionId, map);
    }
    return map;
  }

  private async save(connectionId: string, map: Map<string, number>) {
    const entries: Entry[] = [...map.entries()];
    this.fire(connectionId);
    await this.memory.update(PREFIX + connectionId, entries);
  }

  private fire(connectionId: string) {
    for (const listener of this.listeners) listener(connectionId);
  }
}
