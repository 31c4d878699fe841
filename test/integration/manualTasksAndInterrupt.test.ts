import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ReferenceBackend } from '../../src/demo/server.ts';
import type { ExtensionApi } from '../../src/extension.ts';
import { startTestBackend } from '../support/backend.ts';
import { ScriptedUser } from './support/ui.ts';
import { extensionApi } from './support/extensionApi.ts';

describe('manual tasks (Itential) and interrupt (agents REST API)', () => {
  let backend: ReferenceBackend;
  let api: ExtensionApi;
  let user: ScriptedUser;

  before(async () => {
    backend = await startTestBackend();
    api = await extensionApi();
    for (const [id, kind, url] of [
      ['tasks', 'mcp', backend.mcpUrls.itential],
      ['agents', 'rest', backend.url],
    ] as const) {
      await api.tokens.set(id, url, backend.token);
      api.registry.addEphemeral({ id, label: id, kind, url });
      await api.store.refreshAfterCurrent(id);
      while (api.store.state(id)?.next !== undefined) await api.store.loadMore(id);
    }
  });
  beforeEach(() => (user = new ScriptedUser()));
  afterEach(() => user.restore());
  after(async () => {
    await api.registry.remove('tasks');
    await api.registry.remove('agents');
    await backend.close();
  });

  const platformSession = (id: string) => {
    const session = api.store.state('tasks')?.sessions.find((s) => s.id === id);
    assert.ok(session, `session ${id} is listed`);
    return session;
  };

  it('preview → modal confirmation → completed; the count drops', async () => {
    const session = platformSession(backend.fixtures.itential.runningWithTasks.ViewData);
    const task = session.pendingTasks?.[0];
    assert.ok(task?.completionSupported);
    user.pick((items) => items[0]); // the success button
    user.click(undefined); // first: decline the modal
    await vscode.commands.executeCommand('sessionInspector.completeManualTask', {
      kind: 'session',
      session,
    });
    assert.equal(
      backend.state.appliedManualTasks(task.id),
      0,
      'declining the confirmation applies nothing',
    );
    const modal = user.messages.find((m) => m.level === 'warning');
    assert.match(modal?.text ?? '', /cannot be undone/);
    assert.ok(modal?.detail, 'the server preview is shown before confirming');

    const before = api.store.waiting().length;
    user.pick((items) => items[0]).click('*'); // success, then confirm with the task's own label
    await vscode.commands.executeCommand('sessionInspector.completeManualTask', {
      kind: 'session',
      session,
    });
    assert.equal(backend.state.appliedManualTasks(task.id), 1);
    assert.ok(user.messages.some((m) => m.level === 'info' && /was finished/.test(m.text)));
    assert.ok(api.store.waiting().length < before, 'the waiting count updates');
  });

  it('offers "failure" only when the task has a failure button', async () => {
    const withoutFailure = api.store
      .state('tasks')
      ?.sessions.find((s) =>
        s.pendingTasks?.some((t) => t.id === backend.fixtures.itential.taskWithoutFailureButton),
      );
    assert.ok(withoutFailure);
    const target = backend.fixtures.itential.taskWithoutFailureButton;
    let offered: string[] | undefined;
    // Either a task pick (several tasks) then the finish options, or the options directly.
    const answer = (items: readonly vscode.QuickPickItem[]) => {
      const tasks = items as readonly (vscode.QuickPickItem & { task?: { id: string } })[];
      if (tasks.some((i) => i.task)) return tasks.find((i) => i.task?.id === target);
      offered = items.map((i) => (i as { finish?: string }).finish ?? '?');
      return undefined;
    };
    user.pick(answer).pick(answer);
    await vscode.commands.executeCommand('sessionInspector.completeManualTask', {
      kind: 'session',
      session: withoutFailure,
    });
    assert.deepEqual(offered, ['success'], 'no failure option');
  });

  it('interrupts a running REST session; an idle one gets a calm message, not an error', async () => {
    const sessions = api.store.state('agents')?.sessions ?? [];
    const running = sessions.find(
      (s) =>
        s.id ===
        `${backend.fixtures.agents.running.agentKey}/${backend.fixtures.agents.running.sessionKey}`,
    );
    const stopped = sessions.find(
      (s) =>
        s.id ===
        `${backend.fixtures.agents.stopped.agentKey}/${backend.fixtures.agents.stopped.sessionKey}`,
    );
    assert.ok(running && stopped);
    await vscode.commands.executeCommand('sessionInspector.interruptSession', {
      kind: 'session',
      session: running,
    });
    assert.equal(
      backend.state.appliedInterrupts(
        backend.fixtures.agents.running.agentKey,
        backend.fixtures.agents.running.sessionKey,
      ),
      1,
    );
    assert.ok(user.messages.some((m) => m.level === 'info' && /was interrupted/.test(m.text)));
    // Listed again, the session reads as interrupted (its last event says so), not just stopped.
    await api.store.refreshAfterCurrent('agents');
    assert.deepEqual(api.store.state('agents')?.sessions.find((s) => s.id === running.id)?.status, {
      status: 'idle',
      outcome: 'interrupted',
      raw: 'stopped',
    });
    await vscode.commands.executeCommand('sessionInspector.interruptSession', {
      kind: 'session',
      session: stopped,
    });
    assert.ok(
      user.messages.some((m) => m.level === 'info' && /nothing running to interrupt/.test(m.text)),
    );
    assert.equal(
      user.messages.some((m) => m.level === 'error'),
      false,
    );
  });
});
