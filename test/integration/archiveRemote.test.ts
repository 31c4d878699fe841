import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExportOutcome } from '../../src/commands/exportCommands.ts';
import type { ReferenceBackend } from '../../src/demo/server.ts';
import type { SessionSummary } from '../../src/domain/session.ts';
import type { ExtensionApi } from '../../src/extension.ts';
import { startTestBackend } from '../support/backend.ts';
import { ScriptedUser } from './support/ui.ts';
import { extensionApi } from './support/extensionApi.ts';

const CONNECTION = 'archive-remote';

/**
 * Archive and export on a remote (reporting MCP) connection of the reference backend: archiving
 * an open session never calls session_complete unless the user picks Complete and Archive;
 * a downloaded transcript exports with its subagents, the unavailable ones noted.
 */
describe('archive and export on a remote connection', () => {
  let backend: ReferenceBackend;
  let api: ExtensionApi;
  let user: ScriptedUser;
  let out: string;
  const completeCalls: string[] = [];

  before(async () => {
    backend = await startTestBackend({
      interceptor: (request, next) => {
        if (request.toolName === 'session_complete')
          completeCalls.push(String((request.toolArguments as { sessionId?: string }).sessionId));
        return next();
      },
    });
    api = await extensionApi();
    await api.tokens.set(CONNECTION, backend.mcpUrl, backend.token);
    api.registry.addEphemeral({
      id: CONNECTION,
      label: 'Archive (remote)',
      kind: 'mcp',
      url: backend.mcpUrl,
    });
    await api.store.refreshAfterCurrent(CONNECTION);
    while (api.store.state(CONNECTION)?.next !== undefined) await api.store.loadMore(CONNECTION);
    out = await mkdtemp(path.join(os.tmpdir(), 'asi-export-remote-'));
  });
  beforeEach(() => {
    user = new ScriptedUser();
    completeCalls.length = 0;
  });
  afterEach(() => user.restore());
  after(async () => {
    await api.archive.forget(CONNECTION);
    await api.registry.remove(CONNECTION);
    await backend.close();
    await rm(out, { recursive: true, force: true });
  });

  const sessions = () => api.store.state(CONNECTION)?.sessions ?? [];
  const node = (session: SessionSummary) => ({ kind: 'session', session });

  it('Archive hides an open session without completing it; Complete and Archive also completes it', async function () {
    this.timeout(60_000);
    assert.ok(
      api.store.state(CONNECTION)?.capabilities?.complete,
      'the server offers session_complete',
    );
    const open = sessions().filter(
      (s) => (s.status.status === 'active' || s.status.status === 'waiting') && !s.parentId,
    );
    const waiting = open.find((s) => s.status.status === 'waiting');
    const active = open.find(
      (s) =>
        s.status.status === 'active' &&
        s.id !== backend.fixtures.closedloop.withPendingInstructions,
    );
    assert.ok(waiting && active, 'the demo has a waiting and an active session');

    // A waiting session: archived only. It leaves the waiting count; nothing is sent.
    const countBefore = api.store.waiting().length;
    assert.ok(api.store.waiting().some((s) => s.id === waiting.id));
    user.click('Archive');
    await vscode.commands.executeCommand('sessionInspector.archiveSession', node(waiting));
    const question = user.messages.find((m) => m.buttons.includes('Complete and Archive'));
    assert.ok(question, 'asked: Archive or Complete and Archive');
    assert.match(question.detail ?? '', /the agent is not told/);
    assert.ok(api.archive.isArchived(CONNECTION, waiting.id));
    assert.deepEqual(completeCalls, [], 'Archive sent no session_complete');
    assert.equal(backend.state.appliedCompletions(waiting.id), 0);
    assert.equal(api.store.waiting().length, countBefore - 1, 'not counted as waiting any more');
    assert.ok(!api.store.waiting().some((s) => s.id === waiting.id));
    assert.equal(api.store.waitingNotCounted(), 1);
    assert.match(api.statusBar.shownTooltip?.value ?? '', /1 archived session is waiting too/);

    // Complete and Archive: the Complete command's own dialog, then session_complete once.
    user
      .click('Complete and Archive')
      .type('Done here')
      .pick((items) => items.filter((i) => i.picked))
      .pick((items) => items[0]);
    await vscode.commands.executeCommand('sessionInspector.archiveSession', node(active));
    assert.ok(api.archive.isArchived(CONNECTION, active.id));
    assert.deepEqual(completeCalls, [active.id], 'session_complete for that session, once');
    assert.equal(backend.state.appliedCompletions(active.id), 1);

    // Cancelling the question archives nothing.
    const another = open.find((s) => s.id !== waiting.id && s.id !== active.id);
    assert.ok(another, 'a third open session');
    user.click(undefined);
    await vscode.commands.executeCommand('sessionInspector.archiveSession', node(another));
    assert.ok(!api.archive.isArchived(CONNECTION, another.id), 'dismissed: not archived');
    await vscode.commands.executeCommand('sessionInspector.unarchiveSession', node(waiting));
    assert.ok(
      api.store.waiting().some((s) => s.id === waiting.id),
      'counted again',
    );
  });

  it('exports a downloaded transcript with its subagents; unavailable subagent files are noted', async function () {
    this.timeout(90_000);
    const session = sessions().find((s) => s.id === backend.fixtures.closedloop.mixedSubagentFiles);
    assert.ok(session, 'the session with mixed subagent files is listed');
    const target = vscode.Uri.file(path.join(out, 'remote.html'));
    const outcome = (await vscode.commands.executeCommand(
      'sessionInspector.exportTranscript',
      node(session),
      target,
      { format: 'html', includeSubagents: true },
    )) as ExportOutcome | undefined;
    assert.ok(outcome, 'exported');
    assert.ok(outcome.entries > 0);
    assert.ok(outcome.subagents >= 1, `subagents exported: ${outcome.subagents}`);
    assert.ok(outcome.failed.length >= 1, 'the unavailable subagent files are reported');
    const page = await readFile(target.fsPath, 'utf8');
    assert.doesNotMatch(page, /<script/i);
    assert.equal(
      (page.match(/<h2 class="part">Subagent: /g) ?? []).length,
      outcome.subagents + outcome.failed.length,
      'a section per subagent, read or not',
    );
    assert.ok(page.includes('This subagent&#39;s transcript could not be read'));
    assert.deepEqual(await readdir(out), ['remote.html'], 'no partial file left');
  });
});
