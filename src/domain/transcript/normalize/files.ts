/**
 * Files named in a tool call's input, so the UI can open them: path-like input fields
 * (Claude Code Read/Edit/Write/NotebookEdit, generic MCP tools), Read offsets as line
 * numbers, Codex apply_patch headers and a few read-only shell idioms (sed -n, nl, cat).
 */
import { posix, win32 } from 'node:path';
import type { FileRef } from '../model.ts';
import { isObject, num, str } from './text.ts';

const PATH_KEYS = ['file_path', 'filePath', 'notebook_path', 'path', 'target_file', 'file'];
const PATH_LIST_KEYS = ['paths', 'files', 'file_paths'];
const PATCH_HEADER = /^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm;
/** `sed -n '10,40p' file`, `nl -ba file`, `cat file`, `head -n 5 file`. */
const SHELL_READS = [
  /\bsed -n ['"]?(\d+),(\d+)p['"]? ([^\s|;&'"]+)/g,
  /\bnl -ba ([^\s|;&'"]+)/g,
  /\bcat ([^\s|;&'"<>-][^\s|;&'"<>]*)/g,
];
const MAX_REFS = 20;

export function fileRefsOf(input: unknown, cwd: string | undefined): FileRef[] {
  const refs: FileRef[] = [];
  const add = (raw: string, line?: number, endLine?: number) => {
    const path = resolve(raw.trim(), cwd);
    if (!path || refs.length >= MAX_REFS) return;
    if (refs.some((r) => r.path === path && r.line === line)) return;
    const ref: FileRef = { path };
    if (line !== undefined && line >= 1) ref.line = line;
    if (endLine !== undefined && line !== undefined && endLine >= line) ref.endLine = endLine;
    refs.push(ref);
  };
  if (typeof input === 'string') {
    patchFiles(input, add);
    return refs;
  }
  if (!isObject(input)) return refs;
  const workdir = str(input.workdir) ?? str(input.cwd);
  if (workdir) cwd = resolve(workdir, cwd) ?? cwd;
  for (const key of PATH_KEYS) {
    const value = str(input[key]);
    if (!value || value.includes('\n')) continue;
    const offset = num(input.offset);
    const limit = num(input.limit);
    if (offset !== undefined)
      add(value, offset, limit !== undefined ? offset + limit - 1 : undefined);
    else add(value);
  }
  for (const key of PATH_LIST_KEYS) {
    const list = input[key];
    if (Array.isArray(list)) for (const item of list) if (typeof item === 'string') add(item);
  }
  const patch = str(input.input) ?? str(input.patch);
  if (patch) patchFiles(patch, add);
  const command = commandText(input.command);
  if (command) {
    if (command.includes('*** Begin Patch')) patchFiles(command, add);
    else shellFiles(command, add);
  }
  return refs;
}

function commandText(command: unknown): string | undefined {
  if (typeof command === 'string') return command;
  if (Array.isArray(command)) return command.filter((c) => typeof c === 'string').join(' ');
  return undefined;
}

function patchFiles(text: string, add: (path: string) => void): void {
  for (const m of text.matchAll(PATCH_HEADER)) add((m[1] ?? m[2])!);
}

function shellFiles(command: string, add: (path: string, line?: number, end?: number) => void) {
  for (const m of command.matchAll(SHELL_READS[0]!)) add(m[3]!, Number(m[1]), Number(m[2]));
  for (const m of command.matchAll(SHELL_READS[1]!)) add(m[1]!);
  for (const m of command.matchAll(SHELL_READS[2]!)) if (/[./]/.test(m[1]!)) add(m[1]!);
}

const WINDOWS_ABSOLUTE = /^[A-Za-z]:[\\/]|^\\\\/;

/** Absolute paths stay; relative ones join the agent's cwd when it is known. */
function resolve(path: string, cwd: string | undefined): string | undefined {
  if (!path) return undefined;
  if (path.startsWith('/') || path.startsWith('~') || WINDOWS_ABSOLUTE.test(path)) return path;
  if (!cwd) return path;
  if (cwd.startsWith('/')) return posix.join(cwd, path);
  if (WINDOWS_ABSOLUTE.test(cwd)) return win32.join(cwd, path);
  return path;
}
