/**
 * The saved rows on disk (format in savedRows.ts): `local-<key>.rows` beside the persisted
 * index, written whole to a temporary file and renamed over the old one, so a reader sees
 * the old rows or the new ones. A file saved by another version or with other settings
 * is ignored; a damaged or cut-short one too, with one log line. The window then opens
 * as without it, and the next save writes them again. Rows larger than MAX_ROWS_BYTES are
 * not saved (and older ones removed).
 */
import { mkdir, open, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { LocalSession } from './aggregate.ts';
import type { StatusThresholds } from './localStatus.ts';
import { replaceFile } from './persistedIndex.ts';
import { decodeSavedRows, encodeSavedRows, RowsProblem } from './savedRows.ts';
import { ShownRows } from './savedRowsView.ts';
import type { LocalProblem } from './types.ts';

/** Rows files beyond this are not written (a window then opens as without them). */
const MAX_ROWS_BYTES = 64 << 20;

export class SavedRowsFile {
  readonly file: string;
  private readonly dir: string;
  private readonly config: string;
  private readonly thresholds: StatusThresholds;
  private readonly log: ((message: string) => void) | undefined;
  private logged = false;

  /**
   * `indexFile`: the persisted index these rows sit beside. `config`: everything the rows
   * depend on (versions, folders, prices, thresholds); rows saved with another are ignored.
   */
  constructor(
    indexFile: string,
    config: string,
    thresholds: StatusThresholds,
    log?: (message: string) => void,
  ) {
    this.file = indexFile.replace(/\.idx$/, '') + '.rows';
    this.dir = dirname(indexFile);
    this.config = config;
    this.thresholds = thresholds;
    this.log = log;
  }

  /** The saved rows with their statuses for `now`; undefined when missing or unusable. */
  async load(connectionId: string, now: number): Promise<ShownRows | undefined> {
    let bytes: Buffer;
    try {
      bytes = await readWhole(this.file);
    } catch {
      return undefined;
    }
    try {
      const columns = decodeSavedRows(bytes, this.config);
      return new ShownRows(columns, connectionId, now, this.thresholds);
    } catch (error) {
      if (error instanceof RowsProblem && error.expected) return undefined;
      this.logOnce(
        `Local transcripts: the saved rows ${this.file} cannot be used ` +
          `(${error instanceof RowsProblem ? error.message : String(error)}); ` +
          'the sessions are shown once the folders are read.',
      );
      return undefined;
    }
  }

  /** Writes the rows a checked listing made at `now` (never throws; a failure is logged once). */
  async save(
    sessions: readonly LocalSession[],
    problems: readonly LocalProblem[],
    now: number,
  ): Promise<void> {
    try {
      const bytes = await encodeSavedRows(sessions, problems, this.config, this.thresholds, now);
      if (bytes.length > MAX_ROWS_BYTES) {
        await unlink(this.file).catch(() => undefined);
        return;
      }
      await mkdir(this.dir, { recursive: true });
      await replaceFile(this.file, async (handle) => {
        await handle.write(bytes, 0, bytes.length, 0);
      });
    } catch (error) {
      this.logOnce(
        `Local transcripts: the saved rows could not be written to ${this.file} ` +
          `(${error instanceof Error ? error.message : String(error)}).`,
      );
    }
  }

  private logOnce(message: string): void {
    if (this.logged) return;
    this.logged = true;
    this.log?.(message);
  }
}

/** The file's bytes in one read (readFile reads in 512 KB steps, a round trip each). */
async function readWhole(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const bytes = Buffer.allocUnsafeSlow(size);
    const { bytesRead } = await handle.read(bytes, 0, size, 0);
    return bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
