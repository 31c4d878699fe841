import { createHash } from 'node:crypto';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { BackendError, errorKindForStatus } from '../../domain/errors.ts';

export interface DownloadProgress {
  bytesDone: number;
  bytesTotal?: number;
}

export interface VerifiedDownloadOptions {
  /** A presigned URL: it is its own credential, so no auth header is sent, and it is never logged. */
  url: string;
  expected: { sha256: string; byteSize: number | null };
  /** Created exclusively; deleted again unless the download verifies. */
  dest: string;
  fetch: typeof fetch;
  signal?: AbortSignal;
  /** Fails when no byte arrives for this long (a total limit would fail large files on slow links). */
  idleTimeoutMs: number;
  onProgress?: (progress: DownloadProgress) => void;
}

/** Progress at most this often: a webview message per 64 KiB chunk would flood it. */
const PROGRESS_EVERY_MS = 100;

export const CHECKSUM_MISMATCH_TEXT =
  'The downloaded transcript did not match its checksum, so it was not saved. Try again; if it keeps happening the archived file may be damaged.';

/**
 * Streams a file to `dest`, hashing and counting as it goes. Resolves only when the
 * bytes match the expected sha256 and size; on any failure `dest` is removed.
 * A 403 is reported with status 403 (an expired link, for S3-style URLs) so the caller
 * can mint a fresh one.
 */
export async function downloadVerified(options: VerifiedDownloadOptions): Promise<void> {
  const watch = new DownloadWatch(options);
  const file = await open(options.dest, 'wx');
  let ok = false;
  try {
    watch.arm();
    const response = await startDownload(options, watch);
    const { bytesDone, sha256 } = await writeBody(response, file, options, watch);
    const expected = options.expected;
    if (expected.byteSize !== null && bytesDone !== expected.byteSize)
      throw mismatch(`${bytesDone} of ${expected.byteSize} bytes`);
    if (sha256 !== expected.sha256) throw mismatch('sha256 differs');
    options.onProgress?.({ bytesDone, bytesTotal: expected.byteSize ?? undefined });
    ok = true;
  } finally {
    watch.dispose();
    await file.close().catch(() => undefined);
    if (!ok) await rm(options.dest, { force: true }).catch(() => undefined);
  }
}

/** The download's abort signal, its idle timer, and the error a broken download becomes. */
class DownloadWatch {
  private readonly options: VerifiedDownloadOptions;
  private readonly origin: string;
  private readonly idle = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  readonly signal: AbortSignal;

  constructor(options: VerifiedDownloadOptions) {
    this.options = options;
    this.origin = safeOrigin(options.url);
    this.signal = options.signal
      ? AbortSignal.any([options.signal, this.idle.signal])
      : this.idle.signal;
  }

  /** (Re)starts the idle timer: called whenever bytes arrive. */
  arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.idle.abort(), this.options.idleTimeoutMs);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }

  failure(error: unknown, during: string): BackendError {
    if (this.options.signal?.aborted)
      return new BackendError('canceled', 'Canceled.', { cause: error });
    if (this.idle.signal.aborted) {
      return new BackendError(
        'timeout',
        `The transcript download from ${this.origin} stalled (nothing for ${Math.round(this.options.idleTimeoutMs / 1000)} s).`,
        { cause: error },
      );
    }
    const reason = String((error as Error)?.cause ?? (error as Error)?.message ?? error);
    return new BackendError(
      'network',
      `The transcript download from ${this.origin} ${during}: ${reason}`,
      { cause: error },
    );
  }
}

/** The response, once it says OK; a 403 keeps its status so the caller can mint a new link. */
async function startDownload(
  options: VerifiedDownloadOptions,
  watch: DownloadWatch,
): Promise<Response> {
  let response: Response;
  try {
    response = await options.fetch(options.url, { signal: watch.signal, redirect: 'follow' });
  } catch (error) {
    throw watch.failure(error, 'could not start');
  }
  if (response.ok) return response;
  await response.body?.cancel().catch(() => undefined);
  if (response.status === 403) {
    throw new BackendError(
      'forbidden',
      `The transcript download link was refused (403); it has probably expired.`,
      { status: 403 },
    );
  }
  throw new BackendError(
    errorKindForStatus(response.status) ?? 'invalidResponse',
    `The transcript download from ${safeOrigin(options.url)} answered HTTP ${response.status}.`,
    { status: response.status },
  );
}

/** Writes the body to `file`, hashing and counting; stops early past the announced size. */
async function writeBody(
  response: Response,
  file: FileHandle,
  options: VerifiedDownloadOptions,
  watch: DownloadWatch,
): Promise<{ bytesDone: number; sha256: string }> {
  const expected = options.expected;
  const hash = createHash('sha256');
  let bytesDone = 0;
  let lastProgress = 0;
  const bytesTotal = expected.byteSize ?? undefined;
  const reader = response.body?.getReader();
  while (reader) {
    let bytes: Uint8Array;
    try {
      const chunk = await reader.read();
      if (chunk.done) break;
      bytes = chunk.value;
    } catch (error) {
      throw watch.failure(error, 'broke off');
    }
    watch.arm();
    bytesDone += bytes.length;
    if (expected.byteSize !== null && bytesDone > expected.byteSize) {
      // More than announced: no need to read the rest to know it is wrong.
      await reader.cancel().catch(() => undefined);
      throw mismatch(`more than the expected ${expected.byteSize} bytes`);
    }
    hash.update(bytes);
    for (let offset = 0; offset < bytes.length;) {
      const { bytesWritten } = await file.write(bytes, offset, bytes.length - offset);
      offset += bytesWritten;
    }
    const now = Date.now();
    if (options.onProgress && now - lastProgress >= PROGRESS_EVERY_MS) {
      lastProgress = now;
      options.onProgress({ bytesDone, bytesTotal });
    }
  }
  return { bytesDone, sha256: hash.digest('hex') };
}

function mismatch(detail: string): BackendError {
  return new BackendError('invalidResponse', `${CHECKSUM_MISMATCH_TEXT} (${detail})`);
}

/** The URL's origin only: its query string is the signature. */
function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the archive';
  }
}
