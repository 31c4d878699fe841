import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/extension.ts';

/** The extension under test, activated, with the API it returns for tests. */
export async function extensionApi(): Promise<ExtensionApi> {
  return (await vscode.extensions
    .getExtension<ExtensionApi>('agent-session-inspector.agent-session-inspector')
    ?.activate()) as ExtensionApi;
}

/** A phrase the assistant wrote in a Claude Code session of the generated corpus, and where. */
export function assistantPhrase(files: string[]): { path: string; line: number; phrase: string } {
  for (const path of files) {
    if (path.includes('subagents') || !path.includes('projects')) continue;
    const lines = readFileSync(path, 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      let value: { type?: string; message?: { content?: { type: string; text?: string }[] } };
      try {
        value = JSON.parse(lines[i]!);
      } catch {
        continue;
      }
      if (value.type !== 'assistant') continue;
      const text = value.message?.content?.find((b) => b.type === 'text')?.text ?? '';
      const phrase = /\b[a-z]{4,} [a-z]{4,} [a-z]{4,}\b/i.exec(text)?.[0];
      if (phrase) return { path, line: i + 1, phrase };
    }
  }
  throw new Error('no assistant text in the corpus');
}
