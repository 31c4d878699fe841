/**
 * Archived transcripts of a Closedloop-style MCP server (get-agent-session-transcript):
 * which files a session has and in what state, and each file as a verified local copy
 * that TranscriptDocument.open() can read.
 *
 * Downloads land in a content-addressed cache (TranscriptCache), so a file is fetched
 * once per checksum and opens offline afterwards; the last file list per session is
 * saved too, so an offline reopen still knows which checksum to look for.
 */
import { BackendError, isBackendError } from '../../domain/errors.ts';
import type { TranscriptFileView } from '../../shared/protocol.ts';
import { silentLogger, type Logger } from '../../util/logger.ts';
import { SharedTasks } from '../../util/sharedTasks.ts';
import type { JsonToolCaller } from '../mcp/jsonToolCaller.ts';
import { fileView, isDownloadable, TranscriptUnavailableError } from './availability.ts';
import { signedUrlExpiry } from './signedUrl.ts';
import { TranscriptCache, type TranscriptCacheOptions } from './transcriptCache.ts';
import { parseTranscriptList, type TranscriptDescriptor } from './transcriptDescriptors.ts';
import { downloadVerified, type DownloadProgress } from './verifiedDownload.ts';

export type { DownloadProgress } from './verifiedDownload.ts';
export type { TranscriptDescriptor } from './transcriptDescriptors.ts';

export const TRANSCRIPT_TOOL = 'get-agent-session-transcript';

export interface RemoteTranscriptsOptions {
  source: JsonToolCaller;
  /** The extension's global storage folder; files go to `<storageDir>/transcripts/`. */
  storageDir: string;
  /** Keeps the saved file lists of different connections apart. */
  connectionId?: string;
  /** Defaults to the global fetch (in the extension host it honours the proxy settings). */
  fetch?: typeof fetch;
  log?: Logger;
  /** A download fails when no byte arrives for this long (default 30 s). */
  idleTimeoutMs?: number;
  cache?: TranscriptCacheOptions;
}

export interface TranscriptFileList {
  sessionId: string;
  descriptors: TranscriptDescriptor[];
  /** One per descriptor, same order (main first). */
  files: TranscriptFileView[];
  /** The server could not be reached: this is the list saved at `savedAt`. */
  offline: boolean;
  savedAt?: string;
  /** Files the server described in a shape that could not be read. */
  invalidFiles: number;
}

export interface FetchFileOptions {
  signal?: AbortSignal;
  onProgress?: (progress: DownloadProgress) => void;
}

interface Listing {
  descriptors: TranscriptDescriptor[];
  /** Date.now() when the server answered; 0 for a list read back from disk (no URLs). */
  listedAt: number;
}

/** A remembered URL this close to expiry is not worth trying. */
const EXPIRY_MARGIN_MS = 15_000;
/** A remembered "not downloadable" state older than this is asked again. */
const RECHECK_UNAVAILABLE_MS = 30_000;

/** The server is out of reach (not: it refused) — the saved list may stand in. */
function isOffline(error: unknown): boolean {
  return (
    isBackendError(error) &&
    (error.kind === 'network' ||
      error.kind === 'timeout' ||
      error.kind === 'server' ||
      error.kind === 'rateLimited')
  );
}

function absent(fileKey: string): TranscriptDescriptor {
  return {
    fileKey,
    availability: 'missing',
    url: null,
    byteSize: null,
    rawSha256: null,
    uploadedAt: null,
    lastObservedAt: null,
    permanentFailureReason: null,
  };
}

export class RemoteTranscripts {
  private readonly source: JsonToolCaller;
  private readonly cache: TranscriptCache;
  private readonly connectionId: string;
  private readonly fetchImpl: typeof fetch | undefined;
  private readonly log: Logger;
  private readonly idleTimeoutMs: number;
  private readonly listings = new Map<string, Listing>();
  private readonly downloads = new SharedTasks<string, DownloadProgress>(
    () => new BackendError('canceled', 'Canceled.'),
  );

  constructor(options: RemoteTranscriptsOptions) {
    this.source = options.source;
    this.cache = new TranscriptCache(options.storageDir, options.cache);
    this.connectionId = options.connectionId ?? '';
    this.fetchImpl = options.fetch;
    this.log = options.log ?? silentLogger;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
  }

  /** The session's files and their states; the saved list when the server is out of reach. */
  async listFiles(sessionId: string, signal?: AbortSignal): Promise<TranscriptFileList> {
    try {
      const { listing, invalidFiles } = await this.listLive(sessionId, signal);
      return {
        sessionId,
        descriptors: listing.descriptors,
        files: await this.views(listing.descriptors, false),
        offline: false,
        invalidFiles,
      };
    } catch (error) {
      if (!isOffline(error)) throw error;
      const saved = await this.cache.loadDescriptors(this.indexKey(sessionId));
      if (!saved) throw error;
      this.log.info(`Transcript list for ${sessionId}: server out of reach, using the saved list`);
      this.listings.set(sessionId, { descriptors: saved.descriptors, listedAt: 0 });
      return {
        sessionId,
        descriptors: saved.descriptors,
        files: await this.views(saved.descriptors, true),
        offline: true,
        savedAt: saved.savedAt,
        invalidFiles: 0,
      };
    }
  }

  /**
   * A verified local copy of one file: from the cache when its checksum is there (no
   * network at all), else downloaded. Concurrent calls for the same file share one
   * download. Throws TranscriptUnavailableError for files in a state without content,
   * BackendError otherwise.
   */
  fetchFile(sessionId: string, fileKey: string, options: FetchFileOptions = {}): Promise<string> {
    return this.downloads.run(
      `${sessionId}\n${fileKey}`,
      (signal, progress) => this.fetchOnce(sessionId, fileKey, signal, progress),
      options,
    );
  }

  /** The cached copy of a file as last listed, without any network. */
  async cachedPath(sessionId: string, fileKey: string): Promise<string | undefined> {
    const d = (await this.remembered(sessionId))?.descriptors.find((f) => f.fileKey === fileKey);
    return d?.rawSha256 ? this.cache.lookup(d.rawSha256, d.byteSize) : undefined;
  }

  private async fetchOnce(
    sessionId: string,
    fileKey: string,
    signal: AbortSignal,
    progress: (p: DownloadProgress) => void,
  ): Promise<string> {
    let listing = await this.remembered(sessionId);
    // Lists made during this call are trusted as they are; a refused link gets one more.
    let fresh = false;
    let reminted = false;
    for (;;) {
      if (!listing) {
        listing = (await this.listLive(sessionId, signal)).listing;
        fresh = true;
      }
      const d = listing.descriptors.find((f) => f.fileKey === fileKey) ?? absent(fileKey);
      const hit = d.rawSha256 ? await this.cache.lookup(d.rawSha256, d.byteSize) : undefined;
      if (hit) return hit;
      const expired =
        !d.url || signedUrlExpiry(d.url, listing.listedAt) - Date.now() < EXPIRY_MARGIN_MS;
      const age = Date.now() - listing.listedAt;
      if (
        !fresh &&
        (listing.listedAt === 0 ||
          (isDownloadable(d) && expired) ||
          (!isDownloadable(d) && age > RECHECK_UNAVAILABLE_MS))
      ) {
        // Read back from disk (no URLs), the URL is (nearly) dead, or the state is old
        // enough to have changed (a retry after "still uploading"): ask the server now.
        listing = undefined;
        continue;
      }
      if (!d.url || !isDownloadable(d)) throw new TranscriptUnavailableError(d);
      if (!d.rawSha256) {
        throw new BackendError(
          'invalidResponse',
          `The server gave no checksum for transcript file "${fileKey}", so a download could not be verified.`,
        );
      }
      const mintedAt = listing.listedAt;
      try {
        return await this.download(sessionId, d, d.rawSha256, signal, progress);
      } catch (error) {
        if (!this.linkExpired(error, d.url, mintedAt)) throw error;
        if (reminted) {
          throw new BackendError(
            'forbidden',
            'The transcript download link was refused again right after a fresh one was made. Try again later; if it persists, the archive is refusing access.',
            { status: isBackendError(error) ? error.status : undefined, cause: error },
          );
        }
        this.log.info(`Transcript link for ${fileKey} expired; asking for a fresh one`);
        reminted = true;
        listing = undefined;
      }
    }
  }

  /** 403 from the file URL, or a broken transfer once the URL's lifetime had passed. */
  private linkExpired(error: unknown, url: string, mintedAt: number): boolean {
    if (!isBackendError(error)) return false;
    if (error.status === 403) return true;
    return (
      (error.kind === 'network' || error.kind === 'timeout') &&
      Date.now() >= signedUrlExpiry(url, mintedAt)
    );
  }

  private async download(
    sessionId: string,
    d: TranscriptDescriptor,
    sha256: string,
    signal: AbortSignal,
    progress: (p: DownloadProgress) => void,
  ): Promise<string> {
    const temp = await this.cache.tempPath();
    const started = Date.now();
    await downloadVerified({
      url: d.url!,
      expected: { sha256, byteSize: d.byteSize },
      dest: temp,
      fetch: this.fetchImpl ?? globalThis.fetch,
      signal,
      idleTimeoutMs: this.idleTimeoutMs,
      onProgress: progress,
    });
    const path = await this.cache.commit(temp, sha256);
    this.log.info(
      `Downloaded transcript ${d.fileKey} of ${sessionId} (${d.byteSize ?? '?'} bytes, ${Date.now() - started} ms)`,
    );
    return path;
  }

  private async listLive(
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<{ listing: Listing; invalidFiles: number }> {
    const payload = await this.source.callJson(TRANSCRIPT_TOOL, { sessionId }, signal);
    const { descriptors, invalidFiles } = parseTranscriptList(payload);
    const listing = { descriptors, listedAt: Date.now() };
    this.listings.set(sessionId, listing);
    await this.cache
      .saveDescriptors(this.indexKey(sessionId), descriptors)
      .catch((error: unknown) =>
        this.log.warn(`Could not save the transcript list for offline use: ${String(error)}`),
      );
    return { listing, invalidFiles };
  }

  /** The last list this window saw, else the one saved on disk. */
  private async remembered(sessionId: string): Promise<Listing | undefined> {
    const known = this.listings.get(sessionId);
    if (known) return known;
    const saved = await this.cache.loadDescriptors(this.indexKey(sessionId));
    return saved ? { descriptors: saved.descriptors, listedAt: 0 } : undefined;
  }

  private async views(
    descriptors: readonly TranscriptDescriptor[],
    offline: boolean,
  ): Promise<TranscriptFileView[]> {
    return Promise.all(
      descriptors.map(async (d) =>
        fileView(d, {
          cached: d.rawSha256 !== null && (await this.cache.has(d.rawSha256)),
          offline,
        }),
      ),
    );
  }

  private indexKey(sessionId: string): string {
    return this.connectionId ? `${this.connectionId}/${sessionId}` : sessionId;
  }
}
