/**
 * Local transcripts for `npm start`: a generated Claude Code + Codex corpus (the one the
 * tests use) plus one Claude Code session that keeps being written while `npm start`
 * runs — a line every few seconds — so the live tree and transcript can be watched.
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
  stop(): void;
}

export async function startLocalDemo(dir: string): Promise<LocalDemo> {
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
  const timer = setInterval(() => {
    if (next >= lines.length) {
      clearInterval(timer);
      return;
    }
    void appendFile(file, lines[next++]!);
  }, LINE_EVERY_MS);
  timer.unref();
  return {
    env: { CLAUDE_CONFIG_DIR: corpus.claudeDir, CODEX_HOME: corpus.codexDir },
    stop: () => clearInterval(timer),
  };
}
