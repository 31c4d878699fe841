/**
 * The files a session (and its subagents) created, edited or deleted, rebuilt from the
 * tool calls in its transcripts: each file's text before the session touched it and after
 * its last change, as far as the calls show them.
 *
 * "Before" is known when the agent created the file, or when a Claude Code Read showed the
 * whole file before the first change (a later whole-file Read can also give it back, by
 * undoing the recorded edits on it). Otherwise it is unknown and only the fragments the
 * calls replaced are known. Failed calls changed nothing: they are counted, not applied.
 */
import { posix, win32 } from 'node:path';
import type { FileRef, ToolCallEntry, TranscriptEntry } from '../transcript/model.ts';
import type { FileChange } from '../../shared/fileEdits.ts';
import { applyChange, diffOfChange, fileChangesOfToolCall } from '../../shared/fileEdits.ts';
import { isRecord, parseJson } from '../../shared/json.ts';

/** Claude Code's Read shows at most this many lines unless the call asks for more. */
const READ_DEFAULT_LINES = 2000;
/** Claude Code's Read cuts longer lines, so such a read is not the whole file. */
const READ_MAX_LINE_CHARS = 2000;

export type ChangedFileKind = 'created' | 'edited' | 'deleted' | 'written';

/** Why a file's "before" is not known. */
export type BeforeUnknownReason =
  /** The agent changed the file without reading it whole first. */
  | 'not-read'
  /** A change did not match the text rebuilt so far: the file changed outside the calls. */
  | 'mismatch';

/** One tool call that changed (or tried to change) the file. */
export interface ChangeCall {
  /** Undefined for the main transcript, else the subagent's agent id. */
  agentId?: string;
  /** The tool call's entry index in its transcript. */
  entryIndex: number;
  tool: string;
  status: ToolCallEntry['status'];
  /** A failed call: the file was not changed by it. */
  failed: boolean;
  added: number;
  removed: number;
}

/** A replaced fragment, as one call described it. */
export interface ChangeFragment {
  before: string;
  after: string;
}

export interface ChangedFile {
  /** Absolute when the transcript says where the agent worked; the last path (after a move). */
  path: string;
  /** apply_patch moved the file from here. */
  movedFrom?: string;
  kind: ChangedFileKind;
  /** Lines added and removed: of before → after when both are known, else summed over the calls. */
  added: number;
  removed: number;
  /** The whole text before the first change: null = the file did not exist; undefined = unknown. */
  before?: string | null;
  /** The whole text after the last change: null = deleted; undefined = unknown. */
  after?: string | null;
  /** How "before" became known. */
  beforeFrom?: 'created' | 'read' | 'later-read';
  /** Set when before or after is unknown. */
  unknownReason?: BeforeUnknownReason;
  /** Every fragment the applied calls replaced, in order (what is known when a side is not). */
  fragments: ChangeFragment[];
  calls: ChangeCall[];
  /** Calls that failed and were skipped. */
  failedCalls: number;
}

export interface SessionChanges {
  files: ChangedFile[];
  /** Failed file-changing calls across the session (skipped). */
  failedCalls: number;
}

/** A transcript's entries with full input and output texts (see collectChangeEntries). */
export interface ChangeTranscript {
  entries: readonly TranscriptEntry[];
}

export interface SessionChangesInput {
  main: ChangeTranscript;
  /** Subagent transcripts by agent id; each is placed where the main transcript spawns it. */
  subagents?: ReadonlyMap<string, ChangeTranscript>;
  /** The session's working directory, for relative paths (Codex). */
  cwd?: string;
}

interface FileState {
  path: string;
  movedFrom?: string;
  before: string | null | undefined;
  beforeFrom?: ChangedFile['beforeFrom'];
  current: string | null | undefined;
  /** The chain of known texts broke (a change did not match): before cannot be rebuilt. */
  broken: boolean;
  /** A Write said the file existed (Claude Code: "has been updated"). */
  existed: boolean;
  fragments: ChangeFragment[];
  calls: ChangeCall[];
  failedCalls: number;
  /** Per-call sums, for when the whole texts are not both known. */
  callAdded: number;
  callRemoved: number;
}

/** Rebuilds the session's file changes from its transcripts (pure; see the module comment). */
export function sessionChanges(input: SessionChangesInput): SessionChanges {
  const recorder = new ChangeRecorder(input);
  recorder.walk(input.main, undefined);
  // Subagents the main transcript does not name (yet) come last.
  for (const agentId of input.subagents?.keys() ?? []) recorder.inline(agentId);
  return { files: recorder.order.map(finish), failedCalls: recorder.failedCalls };
}

/** Follows the transcripts in order, keeping what is known of each file the calls touch. */
class ChangeRecorder {
  private readonly input: SessionChangesInput;
  private readonly states = new Map<string, FileState>();
  /** The files in the order the session first changed them. */
  readonly order: FileState[] = [];
  /** Whole texts Read showed before any change of the file. */
  private readonly seen = new Map<string, string>();
  /** Failed calls on a path the session has not changed (yet), by path. */
  private readonly pendingFailures = new Map<string, ChangeCall[]>();
  private readonly visited = new Set<string>();
  failedCalls = 0;

  constructor(input: SessionChangesInput) {
    this.input = input;
  }

  walk(transcript: ChangeTranscript, agentId: string | undefined): void {
    for (const entry of transcript.entries) {
      const spawned =
        entry.kind === 'subagent'
          ? entry.agentId
          : entry.kind === 'tool-call'
            ? entry.subagent?.agentId
            : undefined;
      if (spawned !== undefined) this.inline(spawned);
      if (entry.kind !== 'tool-call') continue;
      if (entry.name === 'Read') {
        this.readCall(entry);
        continue;
      }
      const changes = fileChangesOfToolCall(entry.name, entry.input);
      if (!changes) continue;
      if (entry.status === 'error') this.failedCalls++;
      for (const change of changes) this.applyCall(entry, change, agentId);
    }
  }

  /** A subagent's calls, where the main transcript spawns it (once). */
  inline(agentId: string): void {
    if (this.visited.has(agentId)) return;
    this.visited.add(agentId);
    const sub = this.input.subagents?.get(agentId);
    if (sub) this.walk(sub, agentId);
  }

  private readCall(entry: ToolCallEntry): void {
    if (entry.status !== 'ok' || entry.output === undefined) return;
    const parsed = parseJson(entry.input);
    if (!isRecord(parsed) || typeof parsed.file_path !== 'string') return;
    const text = wholeFileOfRead(parsed, entry.output);
    if (text === undefined) return;
    const path = resolvePath(parsed.file_path, entry.files, this.input.cwd);
    const state = this.states.get(path);
    if (!state) {
      this.seen.set(path, text);
      return;
    }
    if (state.before === undefined && !state.broken) {
      // Undo the recorded edits on the text read now, newest first.
      const rebuilt = undoFragments(text, state.fragments);
      if (rebuilt !== undefined) {
        state.before = rebuilt;
        state.beforeFrom = 'later-read';
      }
    }
    state.current = text;
  }

  private stateOf(path: string): FileState {
    let state = this.states.get(path);
    if (!state) {
      const known = this.seen.get(path);
      state = {
        path,
        before: known,
        ...(known !== undefined ? { beforeFrom: 'read' as const } : {}),
        current: known,
        broken: false,
        existed: known !== undefined,
        fragments: [],
        calls: [],
        failedCalls: 0,
        callAdded: 0,
        callRemoved: 0,
      };
      this.states.set(path, state);
      this.order.push(state);
    }
    return state;
  }

  private applyCall(entry: ToolCallEntry, change: FileChange, agentId: string | undefined): void {
    const path = resolvePath(change.path, entry.files, this.input.cwd);
    const diff = diffOfChange(change);
    const call = changeCall(entry, diff, agentId);
    if (call.failed) {
      this.recordFailure(path, call);
      return;
    }
    const fresh = !this.states.has(path);
    const state = this.stateOf(path);
    state.calls.push(call);
    state.callAdded += diff.added;
    state.callRemoved += diff.removed;
    if (fresh) this.adoptPendingFailures(path, state);
    const createdNow = change.kind === 'create' || (change.kind === 'write' && saysCreated(entry));
    if (fresh && state.before === undefined && createdNow) {
      state.before = null;
      state.beforeFrom = 'created';
      state.current = null;
    }
    if (change.kind === 'write' && saysUpdated(entry)) state.existed = true;
    recordFragments(state, change);
    advanceText(state, change);
    if (change.movedTo !== undefined) this.move(path, state, entry, change.movedTo);
  }

  /** A failed call is listed only with a file the session did change. */
  private recordFailure(path: string, call: ChangeCall): void {
    const state = this.states.get(path);
    if (state) {
      state.calls.push(call);
      state.failedCalls++;
    } else {
      this.pendingFailures.set(path, [...(this.pendingFailures.get(path) ?? []), call]);
    }
  }

  /** The failed calls made on the path before its first change go first in its list. */
  private adoptPendingFailures(path: string, state: FileState): void {
    const earlier = this.pendingFailures.get(path) ?? [];
    state.calls.unshift(...earlier);
    state.failedCalls += earlier.length;
    this.pendingFailures.delete(path);
  }

  private move(path: string, state: FileState, entry: ToolCallEntry, movedTo: string): void {
    const target = resolvePath(movedTo, entry.files, this.input.cwd);
    this.states.delete(path);
    state.movedFrom ??= state.path;
    state.path = target;
    this.states.set(target, state);
  }
}

function changeCall(
  entry: ToolCallEntry,
  diff: { added: number; removed: number },
  agentId: string | undefined,
): ChangeCall {
  const failed = entry.status === 'error';
  return {
    ...(agentId !== undefined ? { agentId } : {}),
    entryIndex: entry.index,
    tool: entry.name,
    status: entry.status,
    failed,
    added: failed ? 0 : diff.added,
    removed: failed ? 0 : diff.removed,
  };
}

/** What the change replaced, as the call describes it. */
function recordFragments(state: FileState, change: FileChange): void {
  if (change.kind === 'update') {
    for (const r of change.replacements ?? [])
      state.fragments.push({ before: r.oldText, after: r.newText });
  } else if (change.kind === 'delete') {
    state.fragments.push({ before: state.current ?? '', after: '' });
  } else {
    state.fragments.push({ before: state.current ?? '', after: change.content ?? '' });
  }
}

/** The file's whole text after the change, where the text before it is known. */
function advanceText(state: FileState, change: FileChange): void {
  const known = state.current;
  if (change.kind === 'update') {
    const next = known === null ? undefined : applyChange(known, change);
    if (known !== undefined && next === undefined) state.broken = true;
    state.current = next;
  } else if (change.kind === 'delete') {
    state.current = null;
  } else {
    state.current = change.content ?? '';
  }
}

function finish(state: FileState): ChangedFile {
  const before = state.broken ? undefined : state.before;
  const after = state.broken ? undefined : state.current;
  const kind: ChangedFileKind =
    after === null
      ? 'deleted'
      : before === null
        ? 'created'
        : before !== undefined || state.existed || state.calls.some((c) => c.tool !== 'Write')
          ? 'edited'
          : 'written';
  let added = state.callAdded;
  let removed = state.callRemoved;
  if (before !== undefined && after !== undefined) {
    const whole = diffOfChange({
      path: state.path,
      kind: 'update',
      replacements: [{ oldText: before ?? '', newText: after ?? '' }],
    });
    added = whole.added;
    removed = whole.removed;
  }
  const file: ChangedFile = {
    path: state.path,
    kind,
    added,
    removed,
    fragments: state.fragments,
    calls: state.calls,
    failedCalls: state.failedCalls,
  };
  if (state.movedFrom !== undefined) file.movedFrom = state.movedFrom;
  if (before !== undefined) file.before = before;
  if (after !== undefined) file.after = after;
  if (before !== undefined && state.beforeFrom) file.beforeFrom = state.beforeFrom;
  if (before === undefined || after === undefined)
    file.unknownReason = state.broken ? 'mismatch' : 'not-read';
  return file;
}

/**
 * The file's whole text from a Claude Code Read result (`     1→text`, or `     1\ttext`
 * before 2.0), or undefined when the read did not cover the whole file (an offset, a limit
 * it reached, the default line cap, a cut line) or the output is not a listing.
 */
export function wholeFileOfRead(
  input: Record<string, unknown>,
  output: string,
): string | undefined {
  const offset = typeof input.offset === 'number' ? input.offset : undefined;
  const limit = typeof input.limit === 'number' ? input.limit : undefined;
  if (offset !== undefined && offset > 1) return undefined;
  const reminder = output.indexOf('<system-reminder>');
  if (reminder === 0) return /contents are empty/.test(output) ? '' : undefined;
  let body = reminder > 0 ? output.slice(0, reminder) : output;
  if (reminder > 0) body = body.replace(/\n\n$/, '');
  if (body === '') return undefined;
  const lines = body.split('\n');
  const texts: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^ *(\d+)(?:→|\t)/.exec(lines[i]!);
    if (!m || Number(m[1]) !== i + 1) return undefined;
    const text = lines[i]!.slice(m[0].length);
    if (text.length >= READ_MAX_LINE_CHARS) return undefined;
    texts.push(text);
  }
  const cap = limit ?? READ_DEFAULT_LINES;
  if (texts.length >= cap) return undefined;
  return texts.join('\n');
}

/** The text before `fragments` were applied, or undefined when one cannot be placed exactly once. */
function undoFragments(text: string, fragments: readonly ChangeFragment[]): string | undefined {
  let result = text;
  for (let i = fragments.length - 1; i >= 0; i--) {
    const { before, after } = fragments[i]!;
    if (after === '') return undefined;
    const at = result.indexOf(after);
    if (at < 0 || result.indexOf(after, at + 1) >= 0) return undefined;
    result = result.slice(0, at) + before + result.slice(at + after.length);
  }
  return result;
}

function saysCreated(entry: ToolCallEntry): boolean {
  return /^File created successfully/.test(entry.output ?? '');
}

function saysUpdated(entry: ToolCallEntry): boolean {
  return /^The file .* has been updated/.test(entry.output ?? '');
}

const WINDOWS_ABSOLUTE = /^[A-Za-z]:[\\/]|^\\\\/;

/**
 * A path as the agent wrote it, made absolute: the normalizer already resolved the call's
 * file references against its cwd/workdir, so a reference ending in the same path wins;
 * else the session's working directory.
 */
export function resolvePath(
  path: string,
  refs: readonly FileRef[],
  cwd: string | undefined,
): string {
  const raw = path.trim();
  if (raw.startsWith('/') || raw.startsWith('~') || WINDOWS_ABSOLUTE.test(raw)) return raw;
  const tail = raw.replace(/^\.\//, '');
  const ref = refs.find(
    (r) => r.path === raw || r.path.endsWith(`/${tail}`) || r.path.endsWith(`\\${tail}`),
  );
  if (ref && ref.path !== raw) return ref.path;
  if (!cwd) return raw;
  if (cwd.startsWith('/')) return posix.join(cwd, raw);
  if (WINDOWS_ABSOLUTE.test(cwd)) return win32.join(cwd, raw);
  return raw;
}
