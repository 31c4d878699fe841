import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ReferenceBackend } from '../../src/demo/server.ts';
import type { SessionSummary } from '../../src/domain/session.ts';
import type { ExtensionApi } from '../../src/extension.ts';
import { connectMcp, startTestBackend } from '../support/backend.ts';
import { FaultInjector } from '../support/faults.ts';
import { ScriptedUser } from './support/ui.ts';
import { extensionApi } from './support/extensionApi.ts';

const CONNECTION = 'steering';

describe('completing and canceling sessions (session_complete)', () => {
  const faults = new FaultInjector();
  const sentKeys: string[] = [];
  let backend: ReferenceBackend;
  let api: ExtensionApi;
  let user: ScriptedUser;

  before(async () => {
    backend = await startTestBackend({
      interceptor: (request, next) => {
        if (request.toolName === 'session_complete') {
          sentKeys.push(
            String((request.toolArguments as { idempotencyKey?: string }).idempotencyKey),
          );
        }
        return faults.interceptor(request, next);
      },
    });
    api = await extensionApi();
    await api.tokens.set(CONNECTION, backend.mcpUrl, backend.token);
    api.registry.addEphemeral({
      id: CONNECTION,
      label: 'Steering',
      kind: 'mcp',
      url: backend.mcpUrl,
    });
    await api.store.refreshAfterCurrent(CONNECTION);
    while (api.store.state(CONNECTION)?.next !== undefined) await api.store.loadMore(CONNECTION);
  });

  beforeEach(() => {
    faults.clear();
    sentKeys.length = 0;
    user = new ScriptedUser();
  });
  afterEach(() => user.restore());
  after(async () => {
    await api.registry.remove(CONNECTION);
    await backend.close();
  });

  /** A different open session per test: each completion ends one. */
  const used = new Set<string>();
  function openSession(id?: string): SessionSummary {
    const sessions = api.store.state(CONNECTION)?.sessions ?? [];
    const found = id
      ? sessions.find((s) => s.id === id)
      : sessions.find((s) => s.status.status === 'active' && !used.has(s.id) && !s.endedAt);
    assert.ok(found, 'an open session to finish');
    used.add(found.id);
    return found;
  }
  const completeDialog = () =>
    user
      .type('Fixed the flaky retry and added a regression test')
      .pick((items) => items.filter((i) => i.picked)) // processed instructions, as pre-checked
      .pick((items) => items[0]); // no review

  it('completes with acknowledged instructions; says "completed" only after the server did', async () => {
    const session = openSession(backend.fixtures.closedloop.withPendingInstructions);
    const client = await connectMcp(backend);
    const pending = (
      await client.callTool({
        name: 'list-pending-instructions',
        arguments: { sessionId: session.id },
      })
    ).structuredContent as { items: { id: string; processed: boolean }[] };
    await client.close();
    // Acknowledge every pending one (check the unprocessed too) so nothing closes unacknowledged.
    user
      .type('Done')
      .pick((items) => items)
      .pick((items) => items[1]); // request review
    await vscode.commands.executeCommand('sessionInspector.completeSession', {
      kind: 'session',
      session,
    });
    assert.equal(backend.state.appliedCompletions(session.id), 1);
    const record = backend.state.completion(session.id);
    assert.deepEqual(
      [...(record?.acknowledgedInstructionIds ?? [])].sort(),
      pending.items.map((i) => i.id).sort(),
    );
    assert.equal(record?.reviewRequested, true);
    assert.ok(user.messages.some((m) => m.level === 'info' && m.text.includes('was completed')));
    assert.equal(
      api.completions.unfinished().length,
      0,
      'the intent is gone after a terminal answer',
    );
    const reread = api.store.state(CONNECTION)?.sessions.find((s) => s.id === session.id);
    assert.equal(reread?.status.status, 'finished', 'the session was re-read after success');
  });

  it('applies once when the connection drops after the server applied it; the retry carries the original key', async () => {
    const session = openSession();
    faults.add({
      match: { tool: 'session_complete' },
      fault: { kind: 'dropAfterHandler' },
      times: 1,
    });
    completeDialog().click('Retry');
    await vscode.commands.executeCommand('sessionInspector.completeSession', {
      kind: 'session',
      session,
    });
    assert.equal(sentKeys.length, 2, 'one send and one retry');
    assert.equal(sentKeys[0], sentKeys[1], 'the retry reused the key');
    assert.equal(backend.state.appliedCompletions(session.id), 1, "the server's own count");
    assert.ok(user.messages.some((m) => m.level === 'warning' && /Not confirmed/.test(m.text)));
    assert.ok(user.messages.some((m) => m.level === 'info' && m.text.includes('was completed')));
  });

  it('a refusal (isError) is a failure of the action, never "completed"', async () => {
    const session = openSession();
    // Finish it behind the extension's back, so session_complete refuses with 409.
    const client = await connectMcp(backend);
    await client.callTool({
      name: 'session_complete',
      arguments: { sessionId: session.id, idempotencyKey: 'other-client', status: 'completed' },
    });
    await client.close();
    completeDialog();
    await vscode.commands.executeCommand('sessionInspector.completeSession', {
      kind: 'session',
      session,
    });
    const error = user.messages.find((m) => m.level === 'error');
    assert.ok(
      error && /refused/.test(error.text) && /already ended/.test(error.text),
      JSON.stringify(user.messages),
    );
    assert.equal(
      user.messages.some((m) => /was completed/.test(m.text)),
      false,
    );
    assert.equal(api.completions.unfinished().length, 0, 'a refusal is terminal');
  });

  it('a timeout and an unreadable answer each say so and keep the intent for a safe retry', async () => {
    await vscode.workspace
      .getConfiguration('sessionInspector')
      .update('requestTimeoutSeconds', 2, vscode.ConfigurationTarget.Global);
    await api.store.reconnect(CONNECTION);
    try {
      const slow = openSession();
      faults.add({
        match: { tool: 'session_complete' },
        fault: { kind: 'latency', ms: 3500 },
        times: 1,
      });
      completeDialog().click('Discard');
      await vscode.commands.executeCommand('sessionInspector.completeSession', {
        kind: 'session',
        session: slow,
      });
      const timeout = user.messages.find((m) => m.level === 'warning');
      assert.match(timeout?.text ?? '', /did not answer in time/);

      const garbled = openSession();
      faults.add({
        match: { tool: 'session_complete' },
        fault: { kind: 'malformedJson' },
        times: 1,
      });
      completeDialog();
      await vscode.commands.executeCommand('sessionInspector.completeSession', {
        kind: 'session',
        session: garbled,
      });
      const unreadable = user.messages.filter((m) => m.level === 'warning').at(-1);
      assert.match(unreadable?.text ?? '', /could not be read/);
      assert.equal(
        user.messages.some((m) => /was completed/.test(m.text)),
        false,
      );
      const kept = api.completions.unfinishedFor(CONNECTION, garbled.id);
      assert.ok(kept, 'kept for retry');
      assert.equal(kept.idempotencyKey, sentKeys.at(-1));
      await api.completions.discard(kept);
    } finally {
      await vscode.workspace
        .getConfiguration('sessionInspector')
        .update('requestTimeoutSeconds', undefined, vscode.ConfigurationTarget.Global);
      await api.store.reconnect(CONNECTION);
    }
  });

  it('cancel asks for modal confirmation; declining sends nothing', async () => {
    const session = openSession();
    user.type('No longer needed'); // then the modal: no button clicked = declined
    await vscode.commands.executeCommand('sessionInspector.cancelSession', {
      kind: 'session',
      session,
    });
    assert.equal(sentKeys.length, 0);
    assert.ok(user.messages.some((m) => m.level === 'warning' && /cannot be resumed/.test(m.text)));
    user.type('No longer needed').click('Cancel Session');
    await vscode.commands.executeCommand('sessionInspector.cancelSession', {
      kind: 'session',
      session,
    });
    assert.equal(backend.state.completion(session.id)?.status, 'canceled');
  });
});
