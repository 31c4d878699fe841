import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { BackendResponse, ReferenceBackend } from '../../src/demo/server.ts';
import type { SessionSummary } from '../../src/domain/session.ts';
import type { ExtensionApi } from '../../src/extension.ts';
import { startTestBackend } from '../support/backend.ts';
import { FaultInjector } from '../support/faults.ts';
import { ScriptedUser } from './support/ui.ts';
import { extensionApi } from './support/extensionApi.ts';

const REPORTING = 'outcomesReporting';
const PLATFORM = 'outcomesPlatform';
const AGENTS = 'outcomesAgents';

/** The tools/list answer without one tool: a server that does not offer it under that name. */
function withoutTool(response: BackendResponse, name: string): BackendResponse {
  const message = JSON.parse(Buffer.from(response.body as Uint8Array).toString('utf8')) as {
    result?: { tools?: { name: string }[] };
  };
  if (message.result?.tools)
    message.result.tools = message.result.tools.filter((t) => t.name !== name);
  const body = Buffer.from(JSON.stringify(message));
  return {
    ...response,
    headers: { ...response.headers, 'content-length': String(body.length) },
    body,
  };
}

/**
 * What the user is told when a steering action meets a fault: the truth (applied, still
 * open, not confirmed), never a confident answer the server's state contradicts.
 */
describe('steering under faults: the user is told what the server did', () => {
  const faults = new FaultInjector();
  /** Faults for complete_manual_task with confirm=true only (the preview is left alone). */
  const commitFaults = new FaultInjector();
  const completeArgs: Record<string, unknown>[] = [];
  let hidePendingInstructions = false;
  let backend: ReferenceBackend;
  let api: ExtensionApi;
  let user: ScriptedUser;

  before(async () => {
    backend = await startTestBackend({
      interceptor: async (request, next) => {
        if (request.toolName === 'session_complete')
          completeArgs.push(request.toolArguments as Record<string, unknown>);
        if (request.rpcMethod === 'tools/list' && hidePendingInstructions) {
          const outcome = await faults.interceptor(request, next);
          return 'status' in outcome ? withoutTool(outcome, 'list-pending-instructions') : outcome;
        }
        const committing =
          request.toolName === 'complete_manual_task' &&
          (request.toolArguments as { confirm?: unknown } | undefined)?.confirm === true;
        return (committing ? commitFaults : faults).interceptor(request, next);
      },
    });
    api = await extensionApi();
    for (const [id, kind, url] of [
      [REPORTING, 'mcp', backend.mcpUrls.closedloop],
      [PLATFORM, 'mcp', backend.mcpUrls.itential],
      [AGENTS, 'rest', backend.url],
    ] as const) {
      await api.tokens.set(id, url, backend.token);
      api.registry.addEphemeral({ id, label: id, kind, url });
      await api.store.refreshAfterCurrent(id);
      while (api.store.state(id)?.next !== undefined) await api.store.loadMore(id);
    }
  });
  beforeEach(() => {
    faults.clear();
    commitFaults.clear();
    completeArgs.length = 0;
    user = new ScriptedUser();
  });
  afterEach(() => user.restore());
  after(async () => {
    for (const id of [REPORTING, PLATFORM, AGENTS]) await api.registry.remove(id);
    await backend.close();
  });

  const find = (connection: string, id: string): SessionSummary => {
    const session = api.store.state(connection)?.sessions.find((s) => s.id === id);
    assert.ok(session, `session ${id} is listed`);
    return session;
  };
  const pendingIds = (sessionId: string) =>
    backend.state
      .instructions(sessionId)
      .filter((i) => i.state === 'pending')
      .map((i) => i.id)
      .sort();

  describe('Complete Manual Task when the answer is lost', () => {
    it('the connection drops after the server applied it: the task is re-read and reported finished, not "not finished"', async () => {
      const session = find(PLATFORM, backend.fixtures.itential.runningWithTasks.ViewHTML);
      const task = session.pendingTasks?.[0];
      assert.ok(task?.completionSupported);
      commitFaults.add({
        match: { tool: 'complete_manual_task' },
        fault: { kind: 'dropAfterHandler' },
        times: 1,
      });
      user.pick((items) => items[0]).click('*'); // success, then confirm in the modal
      await vscode.commands.executeCommand('sessionInspector.completeManualTask', {
        kind: 'session',
        session,
      });
      assert.equal(backend.state.appliedManualTasks(task.id), 1, 'applied once, by the server');
      assert.equal(
        user.messages.some((m) => m.level === 'error' || /not finished/.test(m.text)),
        false,
        JSON.stringify(user.messages),
      );
      const told = user.messages.at(-1);
      assert.equal(told?.level, 'info', JSON.stringify(user.messages));
      assert.match(told?.text ?? '', /answer to finishing .* was lost/);
      assert.match(told?.text ?? '', /now finished as/);
    });

    it('the connection drops before the server ran it: the task is still open, and Try Again applies it once', async () => {
      const session = find(PLATFORM, backend.fixtures.itential.runningWithTasks.InteractiveHTML);
      const task = session.pendingTasks?.[0];
      assert.ok(task?.completionSupported);
      commitFaults.add({
        match: { tool: 'complete_manual_task' },
        fault: { kind: 'dropBeforeHandler' },
        times: 1,
      });
      user.pick((items) => items[0]).click('*', 'Try Again');
      await vscode.commands.executeCommand('sessionInspector.completeManualTask', {
        kind: 'session',
        session,
      });
      const stillOpen = user.messages.find((m) => /still open/.test(m.text));
      assert.ok(stillOpen, JSON.stringify(user.messages));
      assert.equal(stillOpen.level, 'warning');
      assert.equal(backend.state.appliedManualTasks(task.id), 1, 'Try Again applied it once');
      assert.match(user.messages.at(-1)?.text ?? '', /was finished as/);
    });
  });

  describe('Complete Session when the pending instructions cannot be listed', () => {
    const completeWithoutListing = async (session: SessionSummary) => {
      user
        .type('Done')
        .pick((items) => items[0]) // no review
        .click('Complete Anyway');
      await vscode.commands.executeCommand('sessionInspector.completeSession', {
        kind: 'session',
        session,
      });
    };
    const assertOmittedAndClosedVisibly = (sessionId: string, waiting: string[]) => {
      const warned = user.messages.find(
        (m) => m.level === 'warning' && /could not be read|cannot list/.test(m.text),
      );
      assert.ok(warned, `told before confirming: ${JSON.stringify(user.messages)}`);
      assert.match(warned.text, /unacknowledged/);
      assert.equal(completeArgs.length, 1);
      assert.equal(
        'acknowledgedInstructionIds' in completeArgs[0]!,
        false,
        'the field is omitted, never sent as []',
      );
      assert.equal(backend.state.appliedCompletions(sessionId), 1);
      assert.deepEqual(
        [...(backend.state.completion(sessionId)?.unacknowledgedInstructionIds ?? [])].sort(),
        waiting,
        'the waiting instructions closed visibly as unacknowledged',
      );
      assert.ok(user.messages.some((m) => m.level === 'info' && /was completed/.test(m.text)));
    };

    it('the listing failed (503): the field is omitted and the user is told before confirming', async () => {
      const session = find(REPORTING, backend.fixtures.closedloop.withPendingInstructions);
      const waiting = pendingIds(session.id);
      assert.ok(waiting.length >= 2);
      faults.add({
        match: { tool: 'list-pending-instructions' },
        fault: { kind: 'status', status: 503 },
        times: 1,
      });
      await completeWithoutListing(session);
      assertOmittedAndClosedVisibly(session.id, waiting);
    });

    it('the server has no listing tool under the name we know: the same, never acknowledgedInstructionIds: []', async () => {
      const session = api.store
        .state(REPORTING)
        ?.sessions.find(
          (s) =>
            s.status.status === 'active' &&
            !s.endedAt &&
            backend.state.completion(s.id) === undefined &&
            pendingIds(s.id).length > 0,
        );
      assert.ok(session, 'another open session with pending instructions');
      const waiting = pendingIds(session.id);
      hidePendingInstructions = true;
      try {
        await api.store.reconnect(REPORTING);
        await completeWithoutListing(session);
      } finally {
        hidePendingInstructions = false;
        await api.store.reconnect(REPORTING);
      }
      assertOmittedAndClosedVisibly(session.id, waiting);
    });
  });

  it('a 503, 429 or reset while checking for session_complete is "could not check" with Retry, not "does not offer"', async () => {
    const session = find(REPORTING, backend.fixtures.closedloop.openWithoutInstructions);
    // Forget the tool list so the command asks tools/list again.
    await api.store.source(REPORTING)?.dispose();
    for (const fault of [
      { kind: 'status', status: 503 },
      { kind: 'rateLimit', retryAfterSeconds: 1 },
      { kind: 'dropBeforeHandler' },
    ] as const) {
      faults.add({ match: { rpcMethod: 'tools/list' }, fault, times: 1 });
    }
    user
      .click('Retry', 'Retry', 'Retry')
      .type('Checked and done')
      .pick((items) => items[0]); // no review
    await vscode.commands.executeCommand('sessionInspector.completeSession', {
      kind: 'session',
      session,
    });
    assert.equal(
      user.messages.some((m) => /does not offer/.test(m.text)),
      false,
      JSON.stringify(user.messages),
    );
    const checks = user.messages.filter((m) => /[Cc]ould not check/.test(m.text));
    assert.ok(checks.length >= 1, JSON.stringify(user.messages));
    assert.ok(checks.every((m) => m.level === 'warning'));
    assert.equal(backend.state.appliedCompletions(session.id), 1, 'Retry went on to complete it');
  });

  it('the Interrupt picker asks which session to interrupt, not to cancel', async () => {
    const placeholders: (string | undefined)[] = [];
    const window = vscode.window as unknown as Record<string, unknown>;
    const scripted = window.showQuickPick as (...args: unknown[]) => Promise<unknown>;
    window.showQuickPick = (items: unknown, options?: vscode.QuickPickOptions) => {
      placeholders.push(options?.placeHolder);
      return scripted(items, options);
    };
    user.pick(() => undefined); // dismissed
    await vscode.commands.executeCommand('sessionInspector.interruptSession');
    assert.deepEqual(placeholders, ['Interrupt which session?']);
    const running = backend.fixtures.agents.running;
    assert.equal(backend.state.appliedInterrupts(running.agentKey, running.sessionKey), 0);
  });
});
