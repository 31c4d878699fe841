import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TranscriptDescriptor } from './transcriptDescriptors.ts';

/**
 * Downloaded transcripts on disk, addressed by their sha256 (`<storageDir>/transcripts/
 * <sha256>.jsonl`), plus a small index of the last descriptor list per session so a
 * reopen without network still knows which checksum each file had.
 *
 * Several VS Code windows share one global storage folder: every write goes to a unique
 * temporary name and is renamed into place (atomic), and a file only ever appears under
 * its checksum after it was verified, so readers never see a partial file.
 */

export interface IndexedSession {
  savedAt: string;
  /** As last listed, without URLs: presigned URLs are short-lived credentials, not kept. */
  descriptors: TranscriptDescriptor[];
}

interface IndexFile {
  version: 1;
  sessions: Record<string, IndexedSession>;
}

export interface TranscriptCacheOptions {
  /** Downloaded files beyond this are evicted, least recently opened first (default 2 GiB). */
  maxBytes?: number;
  /** Sessions kept in the descriptor index (default 500, oldest dropped). */
  maxSessions?: number;
}

const PART_SUFFIX = '.part';
/** A partial file this old belongs to a window that died mid-download. */
const ABANDONED_PART_MS = 24 * 3600_000;

export class TranscriptCache {
  readonly dir: string;
  private readonly indexPath: string;
  private readonly maxBytes: number;
  private readonly maxSessions: number;
  /** Index updates in this window run one after another (read, merge, write). */
  private indexQueue: Promise<unknown> = Promise.resolve();

  constructor(storageDir: string, options: TranscriptCacheOptions = {}) {
    this.dir = join(storageDir, 'transcripts');
    this.indexPath = join(this.dir, 'index.json');
    this.maxBytes = options.maxBytes ?? 2 * 1024 ** 3;
    this.maxSessions = options.maxSessions ?? 500;
  }

  pathFor(sha256: string): string {
    return join(this.dir, `${sha256}.jsonl`);
  }

  /** Whether a file with this checksum is cached (no side effects). */
  async has(sha256: string): Promise<boolean> {
    return (await stat(this.pathFor(sha256)).catch(() => undefined))?.isFile() ?? false;
  }

  /** The cached file for this checksum, if present with the expected size. */
  async lookup(sha256: string, byteSize: number | null): Promise<string | undefined> {
    const path = this.pathFor(sha256);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    if (byteSize !== null && info.size !== byteSize) {
      // Only verified files are renamed in, so this is damage from outside: drop it.
      await rm(path, { force: true });
      return undefined;
    }
    const now = new Date();
    // mtime marks "last opened" for eviction.
    await utimes(path, now, now).catch(() => undefined);
    return path;
  }

  /** A fresh temporary file name in the cache folder (same volume, so rename is atomic). */
  async tempPath(): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    return join(this.dir, `${randomBytes(8).toString('hex')}${PART_SUFFIX}`);
  }

  /** Moves a verified download into place under its checksum. */
  async commit(tempPath: string, sha256: string): Promise<string> {
    const path = this.pathFor(sha256);
    await rename(tempPath, path);
    await this.prune(path).catch(() => undefined);
    return path;
  }

  async discard(tempPath: string): Promise<void> {
    await rm(tempPath, { force: true }).catch(() => undefined);
  }

  async loadDescriptors(key: string): Promise<IndexedSession | undefined> {
    return (await this.readIndex()).sessions[key];
  }

  saveDescriptors(key: string, descriptors: readonly TranscriptDescriptor[]): Promise<void> {
    const run = this.indexQueue.then(async () => {
      const index = await this.readIndex();
      index.sessions[key] = {
        savedAt: new Date().toISOString(),
        descriptors: descriptors.map((d) => ({ ...d, url: null })),
      };
      const keys = Object.keys(index.sessions);
      if (keys.length > this.maxSessions) {
        keys
          .sort((a, b) => index.sessions[a]!.savedAt.localeCompare(index.sessions[b]!.savedAt))
          .slice(0, keys.length - this.maxSessions)
          .forEach((k) => delete index.sessions[k]);
      }
      await mkdir(this.dir, { recursive: true });
      const temp = `${this.indexPath}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temp, JSON.stringify(index));
      await rename(temp, this.indexPath);
    });
    this.indexQueue = run.catch(() => undefined);
    return run;
  }

  /** Every session in the descriptor index, by key (`<connectionId>/<sessionId>`). */
  async sessions(): Promise<Record<string, IndexedSession>> {
    return (await this.readIndex()).sessions;
  }

  private async readIndex(): Promise<IndexFile> {
    try {
      const parsed = JSON.parse(await readFile(this.indexPath, 'utf8')) as Partial<IndexFile>;
      if (parsed?.version === 1 && parsed.sessions && typeof parsed.sessions === 'object')
        return { version: 1, sessions: parsed.sessions };
    } catch {
      // Missing or damaged: the index is only a convenience for offline reopening.
    }
    return { version: 1, sessions: {} };
  }

  /** Evicts least recently opened files over maxBytes, and partial files left by dead windows. */
  private async prune(keep: string): Promise<void> {
    const now = Date.now();
    const files: { path: string; size: number; mtime: number }[] = [];
    for (const name of await readdir(this.dir)) {
      const path = join(this.dir, name);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile()) continue;
      if (name.endsWith(PART_SUFFIX)) {
        if (now - info.mtimeMs > ABANDONED_PART_MS) await rm(path, { force: true }).catch(() => 0);
      } else if (name.endsWith('.jsonl')) {
        files.push({ path, size: info.size, mtime: info.mtimeMs });
      }
    }
    let total = files.reduce((n, f) => n + f.size, 0);
    for (const file of files.sort((a, b) => a.mtime - b.mtime)) {
      if (total <= this.maxBytes) break;
      if (file.path === keep) continue;
      // Windows refuses to delete a file another window has open: keep it and go on.
      const removed = await rm(file.path, { force: true }).then(
        () => true,
        () => false,
      );
      if (removed) total -= file.size;
    }
  }
}
