import { existsSync } from 'node:fs';
import type * as vscode from 'vscode';
import { sourceOperation, type LocalFiles } from '../sources/sessionSource.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import type { Logger } from '../util/logger.ts';
import { watchFiles } from './fileWatch.ts';

/** A burst of writes (one agent turn) becomes one refresh. */
const BATCH_DELAY_MS = 150;

/**
 * Keeps local connections live: watches their transcript folders and, when a file is
 * written, refreshes that connection with the written paths as hints, so the refresh
 * reads only the appended bytes (LocalIndex). Connections not loaded yet are left alone:
 * their first load reads everything anyway.
 */
export class LiveLocalSessions implements vscode.Disposable {
  private readonly store: SessionStore;
  private readonly log: Logger;
  /** Watchers by connection id, with the targets they watch. */
  private readonly watchers = new Map<string, { key: string; watch: vscode.Disposable }>();
  /** onDidUpdate subscriptions by connection id, with the source they are on. */
  private readonly updates = new Map<string, { source: object; sub: { dispose(): void } }>();
  private readonly subscription: { dispose(): void };

  constructor(store: SessionStore, log: Logger) {
    this.store = store;
    this.log = log;
    // Only a local connection's change (or the set of connections changing) can matter.
    this.subscription = store.onDidChange((id) => {
      if (id === undefined || this.localFiles(id)) this.sync();
    });
    this.sync();
  }

  dispose(): void {
    this.subscription.dispose();
    for (const { watch } of this.watchers.values()) watch.dispose();
    this.watchers.clear();
    for (const { sub } of this.updates.values()) sub.dispose();
    this.updates.clear();
  }

  /** The connection's local files, once it has loaded (its source exists by then). */
  private localFiles(id: string) {
    return this.store.state(id)?.loadedOnce
      ? sourceOperation(this.store.source(id), 'localFiles')
      : undefined;
  }

  /** Watchers for every loaded local connection; none for connections that are gone. */
  private sync(): void {
    const wanted = new Set<string>();
    for (const state of this.store.connections()) {
      const id = state.config.id;
      const source = this.localFiles(id);
      if (!source) continue;
      wanted.add(id);
      this.followUpdates(id, source);
      // A folder that appears later (a first session) gets its watcher at a later sync.
      const targets = source.watchTargets().filter((t) => existsSync(t.dir));
      const key = JSON.stringify(targets.map((t) => t.dir));
      if (this.watchers.get(id)?.key === key) continue;
      this.watchers.get(id)?.watch.dispose();
      const watch = watchFiles(
        targets,
        async (batch) => {
          const current = sourceOperation(this.store.source(id), 'localFiles');
          if (!current) return;
          if (batch.changed.length) current.noteChanges(batch.changed, 'changed');
          if (batch.created.length) current.noteChanges(batch.created, 'created');
          if (batch.deleted.length) current.noteChanges(batch.deleted, 'deleted');
          await this.store.refreshAfterCurrent(id);
        },
        { delayMs: BATCH_DELAY_MS, log: this.log, what: `live refresh of ${state.config.label}` },
      );
      this.watchers.set(id, { key, watch });
      this.log.info(
        `${state.config.label}: watching ${targets.map((t) => t.dir).join(', ') || 'nothing yet (no transcript folder exists)'}`,
      );
    }
    for (const [id, { watch }] of this.watchers) {
      if (wanted.has(id)) continue;
      watch.dispose();
      this.watchers.delete(id);
    }
    for (const [id, { sub }] of this.updates) {
      if (wanted.has(id)) continue;
      sub.dispose();
      this.updates.delete(id);
    }
  }

  /** Lists the connection again when its source says its sessions changed (onDidUpdate). */
  private followUpdates(id: string, source: LocalFiles): void {
    if (this.updates.get(id)?.source === source) return;
    this.updates.get(id)?.sub.dispose();
    this.updates.delete(id);
    const sub = source.onDidUpdate?.(() => void this.store.refreshAfterCurrent(id));
    if (sub) this.updates.set(id, { source, sub });
  }
}
