import type { TranscriptFileView } from '../../shared/protocol.ts';
import type { TranscriptDescriptor } from './transcriptDescriptors.ts';

/**
 * What each availability state means to a user, and the error a fetch of a file that
 * cannot be downloaded ends in. Wording lives here so the panel and any command agree.
 */

export const UPLOAD_PENDING_TEXT = 'The transcript is still being uploaded; try again in a minute.';
export const STALE_TEXT = 'Shown from the last upload; newer activity may be missing.';

/** 'main' → "Main run"; 'subagent:<id>' → "Subagent <id>". */
export function fileLabel(fileKey: string): string {
  if (fileKey === 'main') return 'Main run';
  if (fileKey.startsWith('subagent:')) return `Subagent ${fileKey.slice('subagent:'.length)}`;
  return fileKey;
}

function day(iso: string | null): string | undefined {
  if (!iso || Number.isNaN(Date.parse(iso))) return undefined;
  return new Date(iso).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

/** The state in words; `cached` adds that the file opens without the network. */
export function describeAvailability(
  d: TranscriptDescriptor,
  where: { cached: boolean; offline: boolean },
): string {
  const uploaded = day(d.uploadedAt);
  let text: string;
  switch (d.availability) {
    case 'available':
      text = uploaded ? `Uploaded ${uploaded}.` : 'The transcript is available.';
      break;
    case 'stale':
      text = uploaded ? `${STALE_TEXT} (Last upload ${uploaded}.)` : STALE_TEXT;
      break;
    case 'uploadPending':
      text = UPLOAD_PENDING_TEXT;
      break;
    case 'uploadFailed':
      text =
        'The transcript upload failed, so there is nothing to show yet. It appears here if the agent uploads it again.';
      break;
    case 'permanentlyUnavailable':
      text = d.permanentFailureReason
        ? `This transcript will never be available: ${d.permanentFailureReason.replace(/\.+$/, '')}.`
        : 'This transcript will never be available.';
      break;
    case 'missing':
      text = 'No transcript was uploaded for this run.';
      break;
    default:
      text = `The server reports this transcript as "${d.availability}", which this version does not know.`;
  }
  if (where.offline) {
    return where.cached
      ? `Offline: showing the copy saved on this computer. ${text}`
      : `Offline, and this file was never downloaded to this computer.`;
  }
  return where.cached ? `${text} Saved on this computer.` : text;
}

export function fileView(
  d: TranscriptDescriptor,
  where: { cached: boolean; offline: boolean },
): TranscriptFileView {
  return {
    fileKey: d.fileKey,
    label: fileLabel(d.fileKey),
    availability: d.availability,
    description: describeAvailability(d, where),
  };
}

/** Only these states come with a URL (seed 002); an unknown state is tried if it has one. */
export function isDownloadable(d: TranscriptDescriptor): boolean {
  return d.availability === 'available' || d.availability === 'stale' || d.url !== null;
}

/**
 * A file that cannot be downloaded in its current state. Not a BackendError: nothing
 * failed, the archive has nothing to give yet (or ever).
 */
export class TranscriptUnavailableError extends Error {
  override readonly name = 'TranscriptUnavailableError';
  readonly fileKey: string;
  readonly availability: string;
  /** The same words as the file's TranscriptFileView.description. */
  readonly description: string;
  /** Waiting may help (an upload in progress or to be repeated). */
  readonly canRetry: boolean;

  constructor(d: TranscriptDescriptor) {
    const description = describeAvailability(d, { cached: false, offline: false });
    super(description);
    this.fileKey = d.fileKey;
    this.availability = d.availability;
    this.description = description;
    this.canRetry = d.availability === 'uploadPending' || d.availability === 'uploadFailed';
  }
}

/** Structural check, like isBackendError: bundles each carry their own copy of the class. */
export function isTranscriptUnavailableError(error: unknown): error is TranscriptUnavailableError {
  return error instanceof Error && error.name === 'TranscriptUnavailableError';
}
