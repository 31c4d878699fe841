/**
 * The ripgrep that VS Code ships, as a search engine over transcript files. It prints
 * one short line per match (`path NUL line:byteOffset:match`, --only-matching), never
 * the matching line itself: transcript lines run to megabytes, and only the few matches
 * shown need their line, which the caller reads back by offset.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import type { EnginePattern } from '../../domain/search/searchQuery.ts';

/** One match as the engine found it: byte offsets, the line not read yet. */
export interface RawMatch {
  path: string;
  /** 1-based line number. */
  line: number;
  /** Byte offset of the match in the file. */
  offset: number;
  /** Byte length of the match. */
  length: number;
}

/**
 * Where VS Code keeps its ripgrep under `appRoot`: @vscode/ripgrep (bin/rg) in most
 * builds, @vscode/ripgrep-universal (bin/<platform>-<arch>/rg) in newer ones, unpacked
 * from the asar archive in packaged desktop builds. code-server's appRoot (lib/vscode)
 * has the same layout.
 */
export function ripgrepCandidates(
  appRoot: string,
  platform: string = process.platform,
  arch: string = process.arch,
): string[] {
  const exe = platform === 'win32' ? 'rg.exe' : 'rg';
  const out: string[] = [];
  for (const modules of ['node_modules', 'node_modules.asar.unpacked']) {
    out.push(join(appRoot, modules, '@vscode', 'ripgrep', 'bin', exe));
    out.push(
      join(appRoot, modules, '@vscode', 'ripgrep-universal', 'bin', `${platform}-${arch}`, exe),
    );
  }
  return out;
}

/** The first candidate that exists and can be run; undefined when VS Code ships none here. */
export function findRipgrep(appRoot: string): string | undefined {
  for (const candidate of ripgrepCandidates(appRoot)) {
    try {
      accessSync(candidate, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  return undefined;
}

/** Longest command line per ripgrep run (Windows allows 32,767 characters, macOS 1 MB with the environment). */
const MAX_ARGS_CHARS =
  process.platform === 'win32' ? 30_000 : process.platform === 'darwin' ? 200_000 : 1_000_000;

export function ripgrepArgs(pattern: EnginePattern): string[] {
  return [
    '--no-config',
    '--text', // a NUL byte in a transcript must not end its search
    '--no-ignore',
    '--hidden',
    '--no-heading',
    '--with-filename',
    '--null',
    '--line-number',
    '--byte-offset',
    '--only-matching',
    '--color',
    'never',
    '--no-messages',
    pattern.fixed ? '--fixed-strings' : '--engine=auto',
    pattern.caseSensitive ? '--case-sensitive' : '--ignore-case',
    '-e',
    pattern.pattern,
    '--',
  ];
}

export class RipgrepError extends Error {}

/**
 * Runs ripgrep over `files` (in batches that fit a command line), calling `onMatch` for
 * every match in file order per batch. Resolves when done; aborting kills the process
 * and resolves early. `onMatch` returning false stops the search (a result cap).
 */
export async function runRipgrep(options: {
  rg: string;
  pattern: EnginePattern;
  files: readonly string[];
  signal?: AbortSignal;
  onMatch: (match: RawMatch) => boolean | void;
  /** Threads for ripgrep (default: its own choice). */
  threads?: number;
  /**
   * Files the first process searches alone (default: all in one): ripgrep prints a file's
   * matches when that file is done, so a small first batch shows the first results sooner.
   */
  firstBatch?: number;
}): Promise<void> {
  const base = ripgrepArgs(options.pattern);
  if (options.threads) base.unshift(`--threads=${options.threads}`);
  let batch: string[] = [];
  let chars = 0;
  const batches: string[][] = [];
  const first = options.firstBatch ?? 0;
  for (const [i, file] of options.files.entries()) {
    if (batch.length && (chars + file.length + 3 > MAX_ARGS_CHARS || i === first)) {
      batches.push(batch);
      batch = [];
      chars = 0;
    }
    batch.push(file);
    chars += file.length + 3;
  }
  if (batch.length) batches.push(batch);
  for (const files of batches) {
    if (options.signal?.aborted) return;
    const go = await runBatch(options.rg, [...base, ...files], options.signal, options.onMatch);
    if (!go) return;
  }
}

/** One ripgrep process; false when onMatch asked to stop. */
function runBatch(
  rg: string,
  args: string[],
  signal: AbortSignal | undefined,
  onMatch: (match: RawMatch) => boolean | void,
): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let stopped = false;
    let stderr = '';
    let rest: Buffer | undefined;
    const stop = () => {
      stopped = true;
      child.kill();
    };
    signal?.addEventListener('abort', stop, { once: true });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      if (stderr.length < 4000) stderr += text;
    });
    child.stdout.on('data', (chunk: Buffer) => {
      if (stopped) return;
      const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
      let from = 0;
      for (let nl = buf.indexOf(0x0a, from); nl !== -1; nl = buf.indexOf(0x0a, from)) {
        const match = parseLine(buf, from, nl);
        from = nl + 1;
        if (match && onMatch(match) === false) {
          stop();
          return;
        }
      }
      rest = from < buf.length ? buf.subarray(from) : undefined;
    });
    child.on('error', (error) => {
      signal?.removeEventListener('abort', stop);
      reject(new RipgrepError(`ripgrep could not run: ${error.message}`));
    });
    child.on('close', (code) => {
      signal?.removeEventListener('abort', stop);
      if (stopped) return resolve(false);
      // 0: matches, 1: none, 2: an error (a bad regex; unreadable files are skipped with --no-messages).
      if (code === 0 || code === 1) return resolve(true);
      reject(new RipgrepError(stderr.trim() || `ripgrep exited with code ${code}`));
    });
  });
}

/** `path NUL line:offset:text` (text's byte length is the match length). */
function parseLine(buf: Buffer, start: number, end: number): RawMatch | undefined {
  const nul = buf.indexOf(0, start);
  if (nul < 0 || nul >= end) return undefined;
  const c1 = buf.indexOf(0x3a, nul + 1);
  if (c1 < 0 || c1 >= end) return undefined;
  const c2 = buf.indexOf(0x3a, c1 + 1);
  if (c2 < 0 || c2 >= end) return undefined;
  let line = 0;
  for (let i = nul + 1; i < c1; i++) line = line * 10 + (buf[i]! - 0x30);
  let offset = 0;
  for (let i = c1 + 1; i < c2; i++) offset = offset * 10 + (buf[i]! - 0x30);
  return { path: buf.toString('utf8', start, nul), line, offset, length: end - (c2 + 1) };
}
