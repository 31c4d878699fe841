import * as assert from 'node:assert/strict';
import { appendFile, mkdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionSummary } from '../../src/domain/session.ts';
import { until } from './support/until.ts';
import { extensionApi } from './support/extensionApi.ts';
import { loadChecked } from './support/localLoad.ts';

/**
 * A Claude Code session being written, as the user meets it: the runner points
 * CLAUDE_CONFIG_DIR at a generated corpus; this test adds a session file there and writes
 * to it like an agent does. The tree and the open transcript must follow from the file
 * watcher alone (the poll interval is a minute), reading only the appended bytes.
 */
const SESSION_ID = '7f3c1a52-9d1e-4c7b-8a55-2b6f0d9e4c11';
const CWD = '/home/dev/live-demo';

function line(entry: Record<string, unknown>): string {
  return JSON.stringify(entry) + '\n';
}
const common = () => ({
  parentUuid: null,
  isSidechain: false,
  userType: 'external',
  cwd: CWD,
  sessionId: SESSION_ID,
  version: '2.1.40',
  gitBranch: 'main',
  timestamp: new Date().toISOString(),
});
const prompt = (text: string) =>
  line({ ...common(), type: 'user', uuid: `u-${text}`, message: { role: 'user', content: text } });
const reply = (id: string, text: string, output: number) =>
  line({
    ...common(),
    type: 'assistant',
    uuid: `a-${id}`,
    requestId: `req_${id}`,
    message: {
      id: `msg_${id}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 12, output_tokens: output, cache_read_input_tokens: 0 },
    },
  });

describe('local sessions, live', () => {
  it('a session being written shows up and grows in the tree and the open transcript', async function () {
    this.timeout(60_000);
    const claudeDir = process.env.CLAUDE_CONFIG_DIR;
    assert.ok(claudeDir, 'the runner points CLAUDE_CONFIG_DIR at a corpus');
    const api = await extensionApi();
    const id = 'live';
    const folder = path.join(claudeDir, 'projects', CWD.replaceAll('/', '-'));
    const file = path.join(folder, `${SESSION_ID}.jsonl`);
    api.registry.addEphemeral({ id, label: 'This machine (live)', kind: 'local' });
    const row = (): SessionSummary | undefined =>
      api.store.state(id)?.sessions.find((s) => s.id === file);
    try {
      await loadChecked(api, id);
      assert.equal(api.store.state(id)?.error, undefined);
      assert.equal(row(), undefined);

      // A new session file: the watcher's create event lists it.
      await mkdir(folder, { recursive: true });
      let started = Date.now();
      await writeFile(file, prompt('Add a health check') + reply('1', 'Added /healthz.', 40));
      await until('the new session in the tree', () => row()?.outputTokens === 40);
      console.log(`      new session listed after ${Date.now() - started} ms`);

      await vscode.commands.executeCommand('sessionInspector.openSession', {
        kind: 'session',
        session: row(),
      });
      const info = () => api.panels.transcriptInfo(id, file);
      const opened = await until('the transcript open in its panel', () => info(), 30_000);
      const entries = opened.entryCount;
      assert.ok(entries >= 2, `the transcript shows the two lines (${entries} entries)`);

      // The agent answers again: only these bytes are read, by the tree and the transcript.
      const source = api.store.source(id) as unknown as {
        index: { cache: { stats: { bytesRead: number } } };
      };
      const readBefore = source.index.cache.stats.bytesRead;
      const more = prompt('And a readiness check') + reply('2', 'Added /readyz.', 25);
      started = Date.now();
      await appendFile(file, more);
      await until('the tree row to count the new reply', () => row()?.outputTokens === 65);
      const treeMs = Date.now() - started;
      await until('the transcript to show the new entries', () => {
        const n = info()?.entryCount ?? 0;
        return n >= entries + 2 && n;
      });
      console.log(`      appended lines: tree ${treeMs} ms, transcript ${Date.now() - started} ms`);
      assert.equal(
        source.index.cache.stats.bytesRead - readBefore,
        Buffer.byteLength(more),
        'the refresh read the appended bytes and nothing else',
      );

      // Half a line waits for its end: no entry, no error row, until the rest arrives.
      const next = reply('3', 'Both checks are wired into the load balancer.', 30);
      const cut = Math.floor(next.length / 2);
      const before = info()!;
      await appendFile(file, next.slice(0, cut));
      await new Promise((r) => setTimeout(r, 1_500));
      assert.equal(info()?.entryCount, before.entryCount, 'a truncated line shows nothing yet');
      assert.equal(info()?.errorCount, before.errorCount, 'and is not an error');
      assert.equal(row()?.outputTokens, 65);
      await appendFile(file, next.slice(cut));
      await until('the completed line', () => row()?.outputTokens === 95);
      await until('the completed line in the transcript', () => {
        const n = info()?.entryCount ?? 0;
        return n === before.entryCount + 1 && n;
      });
      assert.equal(info()?.errorCount, before.errorCount);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await rm(folder, { recursive: true, force: true });
      await api.registry.remove(id);
    }
  });
});
