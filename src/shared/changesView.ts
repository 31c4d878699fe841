/**
 * The Changes tab's data: the files a session changed, as the host rebuilt them from its
 * tool calls (src/domain/changes). Paths are untrusted text from the transcript.
 */

export interface ChangeRowView {
  /** Position in the session's list; the host opens diffs by it. */
  index: number;
  path: string;
  /** The path relative to the session's project when inside it, else the path. */
  label: string;
  kind: 'created' | 'edited' | 'deleted' | 'written';
  movedFrom?: string;
  added: number;
  removed: number;
  /** False when the file's text before the session is not known (only fragments). */
  beforeKnown: boolean;
  /** Tool calls that changed the file (failed ones included). */
  calls: number;
  /** Calls that failed and changed nothing. */
  failedCalls: number;
  /** A subagent made at least one of the changes. */
  bySubagent: boolean;
}

export interface ChangesView {
  state: 'loading' | 'ready' | 'failed' | 'none';
  message?: string;
  files: ChangeRowView[];
  /** Failed file-changing calls in the whole session. */
  failedCalls: number;
  /** Subagents whose transcripts could not be read (their changes are missing). */
  missingSubagents: number;
}
