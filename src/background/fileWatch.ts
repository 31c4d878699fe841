import { watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { ChangeBatcher, type FileChangeBatch } from '../util/changeBatcher.ts';
import type { Logger } from '../util/logger.ts';

export interface WatchTarget {
  /** An absolute folder; a folder that does not exist (yet) is skipped. */
  dir: string;
  /** Watch the whole tree below `dir` (folders created later included). */
  recursive: boolean;
  /** Which files count, by their path relative to `dir` (default: all). */
  accept?: (relativePath: string) => boolean;
}

/**
 * Watches folders with Node's own watcher and hands the events on in batches (see
 * ChangeBatcher). Not VS Code's createFileSystemWatcher: outside the workspace, in a
 * remote or web host (code-server), that one reported only a folder's direct children
 * and missed every file in a folder created after the watch began — exactly where a new
 * agent session is written. A write is `changed`; a rename (create, delete, move) is
 * `created`, which makes the reader list the folders again.
 */
export function watchFiles(
  targets: readonly WatchTarget[],
  onBatch: (batch: FileChangeBatch) => Promise<void> | void,
  options: { delayMs: number; log: Logger; what: string },
): vscode.Disposable {
  const batcher = new ChangeBatcher(onBatch, {
    delayMs: options.delayMs,
    onError: (error) => options.log.warn(`${options.what}: ${(error as Error).message}`),
  });
  const watchers: FSWatcher[] = [];
  for (const target of targets) {
    let watcher: FSWatcher;
    try {
      watcher = watch(target.dir, { recursive: target.recursive, persistent: false });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        options.log.warn(
          `${options.what}: cannot watch ${target.dir} (${code ?? (error as Error).message}); changes show at the next refresh`,
        );
      }
      continue;
    }
    watcher.on('change', (event, name) => {
      if (typeof name !== 'string' || (target.accept && !target.accept(name))) return;
      batcher.add(event === 'change' ? 'changed' : 'created', path.join(target.dir, name));
    });
    // Too many watches (inotify limits) or the folder went away: say so, keep polling.
    watcher.on('error', (error) => {
      options.log.warn(`${options.what}: watching ${target.dir} stopped: ${error.message}`);
      watcher.close();
    });
    watchers.push(watcher);
  }
  return {
    dispose() {
      batcher.dispose();
      for (const w of watchers) w.close();
    },
  };
}
