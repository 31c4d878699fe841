/**
 * What a tool call did to files, read from the call's own input: Claude Code's Edit,
 * MultiEdit and Write, and Codex's apply_patch (as its own tool, or run through the shell
 * tool by older CLIs). It says what the agent asked for, not what the disk holds now.
 *
 * Shared by the host (the Changes view rebuilds each file's before → after) and the
 * webview (the transcript draws each call as a unified diff), so it is pure and small.
 */
import { structuredPatch } from 'diff';
import { isRecord, parseJson } from './json.ts';

/**
 * create: a new file with known content. update: fragments replaced in an existing file.
 * delete: the file was removed. write: the whole content was written; the input alone
 * cannot tell whether the file existed before (Claude Code's Write does both).
 */
export type FileChangeKind = 'create' | 'update' | 'delete' | 'write';

export interface TextReplacement {
  oldText: string;
  newText: string;
  /** Edit's `replace_all`: every occurrence, not the first one. */
  replaceAll?: boolean;
}

export interface FileChange {
  /** As written in the input (absolute for Claude Code, usually relative for Codex). */
  path: string;
  /** apply_patch's `*** Move to:` target. */
  movedTo?: string;
  kind: FileChangeKind;
  /** update: the fragments replaced, in order. */
  replacements?: TextReplacement[];
  /** create / write: the whole new content. */
  content?: string;
}

export interface DiffLine {
  kind: 'context' | 'add' | 'remove';
  text: string;
}

export interface DiffHunk {
  /** `@@ -a,b +c,d @@` — line numbers count within the fragment when only a fragment is known. */
  header: string;
  lines: DiffLine[];
}

export interface FileDiff {
  change: FileChange;
  hunks: DiffHunk[];
  added: number;
  removed: number;
}

const CLAUDE_EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'Write']);
const PATCH_BEGIN = '*** Begin Patch';
const PATCH_END = '*** End Patch';

/**
 * The file changes a tool call describes, or undefined when it is not a file-editing call
 * or its input cannot be read (for example an input cut to the preview length).
 */
export function fileChangesOfToolCall(name: string, input: string): FileChange[] | undefined {
  if (CLAUDE_EDIT_TOOLS.has(name)) return claudeCodeChanges(name, parseJson(input));
  if (!input.includes(PATCH_BEGIN)) return undefined;
  const json = parseJson(input);
  const patch = json === undefined ? input : findPatchText(json);
  return patch === undefined ? undefined : parseApplyPatch(patch);
}

function claudeCodeChanges(name: string, input: unknown): FileChange[] | undefined {
  if (!isRecord(input) || typeof input.file_path !== 'string') return undefined;
  const path = input.file_path;
  if (name === 'Write') {
    return typeof input.content === 'string'
      ? [{ path, kind: 'write', content: input.content }]
      : undefined;
  }
  const edits = name === 'MultiEdit' ? input.edits : [input];
  if (!Array.isArray(edits)) return undefined;
  const replacements: TextReplacement[] = [];
  for (const edit of edits) {
    if (
      !isRecord(edit) ||
      typeof edit.old_string !== 'string' ||
      typeof edit.new_string !== 'string'
    ) {
      return undefined;
    }
    replacements.push({
      oldText: edit.old_string,
      newText: edit.new_string,
      ...(edit.replace_all === true ? { replaceAll: true } : {}),
    });
  }
  // Claude Code creates a file with an Edit whose old_string is empty.
  if (replacements.length === 1 && replacements[0]!.oldText === '') {
    return [{ path, kind: 'create', content: replacements[0]!.newText }];
  }
  return [{ path, kind: 'update', replacements }];
}

/** The patch inside a JSON input: `{ input }` of the apply_patch tool, or a shell command's words. */
function findPatchText(value: unknown): string | undefined {
  if (typeof value === 'string') {
    const begin = value.indexOf(PATCH_BEGIN);
    if (begin < 0) return undefined;
    const end = value.indexOf(PATCH_END, begin);
    return end < 0 ? value.slice(begin) : value.slice(begin, end + PATCH_END.length);
  }
  const children = Array.isArray(value) ? value : isRecord(value) ? Object.values(value) : [];
  for (const child of children) {
    const found = findPatchText(child);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Codex's patch format: `*** Add File:` (lines prefixed +), `*** Delete File:`,
 * `*** Update File:` with an optional `*** Move to:` and `@@` hunks of ' ', '-' and '+'
 * lines. Undefined when the text holds no file section.
 */
export function parseApplyPatch(patch: string): FileChange[] | undefined {
  const changes: FileChange[] = [];
  let current: FileChange | undefined;
  let hunk: { old: string[]; new: string[] } | undefined;
  let added: string[] = [];
  const closeHunk = (): void => {
    if (current && hunk && (hunk.old.length > 0 || hunk.new.length > 0)) {
      (current.replacements ??= []).push({
        oldText: joinLines(hunk.old),
        newText: joinLines(hunk.new),
      });
    }
    hunk = undefined;
  };
  const closeFile = (): void => {
    closeHunk();
    if (current?.kind === 'create') current.content = added.map((line) => `${line}\n`).join('');
    if (current) changes.push(current);
    current = undefined;
    added = [];
  };
  for (const line of patch.split(/\r?\n/)) {
    const header = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(line);
    if (header) {
      closeFile();
      const kind = header[1] === 'Add' ? 'create' : header[1] === 'Delete' ? 'delete' : 'update';
      current = { path: header[2]!.trim(), kind };
      continue;
    }
    if (!current) continue;
    const move = /^\*\*\* Move to: (.+)$/.exec(line);
    if (move) {
      current.movedTo = move[1]!.trim();
      continue;
    }
    if (line.startsWith('***')) continue; // End Patch, End of File
    if (current.kind === 'create') {
      if (line.startsWith('+')) added.push(line.slice(1));
      continue;
    }
    if (current.kind !== 'update') continue;
    if (line.startsWith('@@')) {
      closeHunk();
      hunk = { old: [], new: [] };
      continue;
    }
    hunk ??= { old: [], new: [] };
    const body = line.slice(1);
    if (line.startsWith('-')) hunk.old.push(body);
    else if (line.startsWith('+')) hunk.new.push(body);
    else if (line.startsWith(' ') || line === '') {
      hunk.old.push(body);
      hunk.new.push(body);
    }
  }
  closeFile();
  return changes.length > 0 ? changes : undefined;
}

/** A unified diff of one change, with its +/- counts. */
export function diffOfChange(change: FileChange, context = 3): FileDiff {
  const pairs: [string, string][] =
    change.kind === 'update'
      ? (change.replacements ?? []).map((r) => [r.oldText, r.newText])
      : change.kind === 'delete'
        ? []
        : [['', change.content ?? '']];
  const hunks: DiffHunk[] = [];
  let added = 0;
  let removed = 0;
  for (const [before, after] of pairs) {
    // A new file needs no diff algorithm (jsdiff took 0.4 s for 20,000 added lines), and a
    // replacement that differs in more than MAX_EDIT_LINES lines is shown whole: Myers'
    // diff costs O(N·D), seconds for a few thousand dissimilar lines, and this runs while
    // the transcript draws.
    const patch =
      before === ''
        ? { hunks: wholeHunks(before, after, context) }
        : (structuredPatch('a', 'b', withNewline(before), withNewline(after), '', '', {
            context,
            maxEditLength: MAX_EDIT_LINES,
          }) ?? { hunks: wholeHunks(before, after, context) });
    for (const h of patch.hunks) {
      const lines: DiffLine[] = [];
      for (const raw of h.lines) {
        if (raw.startsWith('\\')) continue; // "\ No newline at end of file"
        const kind = raw[0] === '+' ? 'add' : raw[0] === '-' ? 'remove' : 'context';
        if (kind === 'add') added++;
        if (kind === 'remove') removed++;
        lines.push({ kind, text: raw.slice(1) });
      }
      hunks.push({
        header: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
        lines,
      });
    }
  }
  return { change, hunks, added, removed };
}

/**
 * The file's text after `change`, given the text before it (undefined when unknown).
 * Undefined when the result cannot be known: an update of an unknown file, or a fragment
 * that is not in the known text (the file changed outside the transcript).
 */
export function applyChange(before: string | undefined, change: FileChange): string | undefined {
  switch (change.kind) {
    case 'create':
    case 'write':
      return change.content;
    case 'delete':
      return undefined;
    case 'update': {
      if (before === undefined) return undefined;
      let text = before;
      for (const r of change.replacements ?? []) {
        if (r.oldText === '' || !text.includes(r.oldText)) return undefined;
        text = r.replaceAll
          ? text.split(r.oldText).join(r.newText)
          : text.replace(r.oldText, () => r.newText);
      }
      return text;
    }
  }
}

/** Replacements that differ in more lines than this are diffed as a whole (see diffOfChange). */
export const MAX_EDIT_LINES = 200;

interface RawHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/**
 * One hunk that removes every differing line and adds every new one, after the lines both
 * texts start and end with (as jsdiff numbers it: an empty side starts at line 1).
 */
function wholeHunks(before: string, after: string, context: number): RawHunk[] {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail++;
  }
  if (head === a.length && head === b.length) return [];
  const lead = a.slice(Math.max(0, head - context), head);
  const trail = a.slice(a.length - tail, Math.min(a.length, a.length - tail + context));
  const removed = a.slice(head, a.length - tail);
  const added = b.slice(head, b.length - tail);
  const start = head - lead.length + 1;
  return [
    {
      oldStart: start,
      oldLines: lead.length + removed.length + trail.length,
      newStart: start,
      newLines: lead.length + added.length + trail.length,
      lines: [
        ...lead.map((l) => ` ${l}`),
        ...removed.map((l) => `-${l}`),
        ...added.map((l) => `+${l}`),
        ...trail.map((l) => ` ${l}`),
      ],
    },
  ];
}

/** Lines of a text; a final newline ends the last line rather than starting another. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

function joinLines(lines: string[]): string {
  return lines.join('\n');
}
