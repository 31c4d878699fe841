import * as path from 'node:path';
import { watchFiles } from '../../background/fileWatch.ts';
import type { Logger } from '../../util/logger.ts';

/** A live transcript's writes are read in batches this far apart at most. */
const LIVE_BATCH_MS = 100;

/** A transcript file that can index what was appended to it (TranscriptDocument). */
interface Refreshable {
  refresh(): Promise<{ appendedEntries: number; reset: boolean }>;
}
function isRefreshable(source: object): source is Refreshable {
  return typeof (source as Partial<Refreshable>).refresh === 'function';
}

/**
 * An agent still writing this file: index what it appends (only the new bytes; an
 * unfinished last line waits for its end) and call `onGrown` when entries were added or
 * the file was replaced. Undefined when the source cannot index appended bytes.
 */
export function watchLiveTranscript(
  file: string,
  source: object,
  signal: AbortSignal,
  onGrown: () => Promise<void>,
  log: Logger,
): { dispose(): void } | undefined {
  if (!isRefreshable(source)) return undefined;
  return watchFiles(
    // The folder, not the file: a watch on the file would miss it being replaced.
    [{ dir: path.dirname(file), recursive: false, accept: (name) => name === path.basename(file) }],
    async () => {
      if (signal.aborted) return;
      const { appendedEntries, reset } = await source.refresh();
      if (signal.aborted || (appendedEntries === 0 && !reset)) return;
      await onGrown();
    },
    { delayMs: LIVE_BATCH_MS, log, what: `live transcript ${file}` },
  );
}
