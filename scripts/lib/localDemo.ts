/**
 * Local transcripts for `npm start`: a generated Claude Code + Codex corpus (the one the
 * tests use) plus one Claude Code session that keeps being written while `npm start`
 * runs — a line every few seconds, stamped with the time it is written — so the live tree
 * and transcript can be watched.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateClaudeCodeTranscript } from '../../src/demo/transcripts/index.ts';
import { writeLocalCorpus } from '../../test/support/localCorpus.ts';

const LINE_EVERY_MS = 3_000;
const CWD = '/home/dev/orbit-api';

export interface LocalDemo {
  /** CLAUDE_CONFIG_DIR and CODEX_HOME for the VS Code that opens. */
  env: Record<string, string>;
  /** The session that keeps being written. */
  liveFile: string;
  /** Starts appending the live session's lines (once VS Code is up, so none are missed). */
  startWriting(): void;
  stop(): void;
}

export async function startLocalDemo(dir: string, lineEveryMs = LINE_EVERY_MS): Promise<LocalDemo> {
  await rm(dir, { recursive: true, force: true });
  const corpus = await writeLocalCorpus(dir);
  const sessionId = randomUUID();
  const { main } = generateClaudeCodeTranscript({
    seed: 4242,
    sessionId,
    cwd: CWD,
    model: 'claude-sonnet-4-5-20250929',
    startedAt: new Date(Date.now() - 5 * 60_000).toISOString(),
    turns: 40,
  });
  const lines = main.split(/(?<=\n)/);
  const file = path.join(
    corpus.claudeDir,
    'projects',
    CWD.replaceAll('/', '-'),
    `${sessionId}.jsonl`,
  );
  await mkdir(path.dirname(file), { recursive: true });
  // A finished session whose agent changed three files, for the Changes view.
  const changesId = randomUUID();
  await writeFile(
    path.join(path.dirname(file), `${changesId}.jsonl`),
    generateClaudeCodeTranscript({
      seed: 2020,
      sessionId: changesId,
      cwd: CWD,
      model: 'claude-sonnet-4-5-20250929',
      startedAt: new Date(Date.now() - 50 * 60_000).toISOString(),
      turns: 2,
      editsThreeFiles: true,
    }).main,
  );
  // The session has been going for a while; the rest arrives line by line.
  let next = Math.min(lines.length, 12);
  await writeFile(file, lines.slice(0, next).join(''));
  let timer: NodeJS.Timeout | undefined;
  const stop = () => clearInterval(timer);
  return {
    env: { CLAUDE_CONFIG_DIR: corpus.claudeDir, CODEX_HOME: corpus.codexDir },
    liveFile: file,
    startWriting: () => {
      timer ??= setInterval(() => {
        if (next >= lines.length) stop();
        else void appendFile(file, stampedNow(lines[next++]!));
      }, lineEveryMs);
      timer.unref();
    },
    stop,
  };
}

/**
 * The line with its times set to now: every `timestamp`, at any depth (a progress line's
 * copy of a subagent's line, a file-history snapshot's), and any later `backupTime`. The
 * generator spreads the turns over hours; written every few seconds with those times, the
 * session would soon show times in the future. A line that is not JSON (a generated
 * quirk) is written as it is.
 */
function stampedNow(line: string): string {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  const now = new Date();
  const stamp = (value: unknown): void => {
    if (!value || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    for (const [key, v] of Object.entries(record)) {
      if (key === 'timestamp' && typeof v === 'string') record[key] = now.toISOString();
      else if (key === 'backupTime' && typeof v === 'string' && Date.parse(v) > now.getTime())
        record[key] = now.toISOString();
      else stamp(v);
    }
  };
  stamp(entry);
  return `${JSON.stringify(entry)}\n`;
}
