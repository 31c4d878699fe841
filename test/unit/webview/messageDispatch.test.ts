import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { messageDispatcher, type MessageHandlers } from '../../../src/webview/messageDispatch.ts';
import { isDashboardMessage, type DashboardToHost } from '../../../src/shared/dashboardProtocol.ts';
import { isWebviewMessage, type WebviewMessage } from '../../../src/shared/protocol.ts';

/** A dispatcher of the dashboard's protocol that records what ran. */
function dashboard(handlers: Partial<MessageHandlers<DashboardToHost>> = {}) {
  const ran: string[] = [];
  const failures: [string, string][] = [];
  const dispatch = messageDispatcher<DashboardToHost>({
    isMessage: isDashboardMessage,
    ready: () => void ran.push('ready'),
    handlers: {
      refresh: () => void ran.push('refresh'),
      setRange: (m) => void ran.push(`setRange ${m.days}`),
      ...handlers,
    },
    failed: (type, error) => failures.push([type, (error as Error).message]),
  });
  return { dispatch, ran, failures };
}

describe('webview message dispatch', () => {
  it('gives each message of the protocol to its handler, typed', async () => {
    const { dispatch, ran } = dashboard();
    assert.equal(await dispatch({ type: 'setRange', days: 30 }), true);
    assert.equal(await dispatch({ type: 'refresh' }), true);
    assert.deepEqual(ran, ['setRange 30', 'refresh']);
  });

  it('answers ready with the handshake, never a handler', async () => {
    const { dispatch, ran } = dashboard();
    await dispatch({ type: 'ready' });
    await dispatch({ type: 'ready' });
    assert.deepEqual(ran, ['ready', 'ready']);
  });

  it('drops what is not a message of the protocol: nothing runs', async () => {
    const { dispatch, ran, failures } = dashboard();
    for (const bad of [
      undefined,
      'refresh',
      { type: 'setRange', days: 14 },
      { type: 'getEntries', requestId: 1, start: 0, count: 1 },
      { type: 'toString' },
      { type: '__proto__' },
    ])
      assert.equal(await dispatch(bad), false, JSON.stringify(bad));
    assert.deepEqual(ran, []);
    assert.deepEqual(failures, []);
  });

  it('reports a handler that throws or rejects, naming the message, and keeps going', async () => {
    const { dispatch, ran, failures } = dashboard({
      refresh: () => {
        throw new Error('thrown');
      },
      setRange: async () => Promise.reject(new Error('rejected')),
    });
    await dispatch({ type: 'refresh' });
    await dispatch({ type: 'setRange', days: null });
    await dispatch({ type: 'ready' });
    assert.deepEqual(failures, [
      ['refresh', 'thrown'],
      ['setRange', 'rejected'],
    ]);
    assert.deepEqual(ran, ['ready']);
  });

  it('reports a failing handshake as ready', async () => {
    const failures: string[] = [];
    const dispatch = messageDispatcher<DashboardToHost>({
      isMessage: isDashboardMessage,
      ready: async () => Promise.reject(new Error('no store')),
      handlers: { refresh: () => undefined, setRange: () => undefined },
      failed: (type, error) => failures.push(`${type}: ${(error as Error).message}`),
    });
    assert.equal(await dispatch({ type: 'ready' }), true);
    assert.deepEqual(failures, ['ready: no store']);
  });

  it('settles after an async handler has', async () => {
    const seen: string[] = [];
    const handlers = {
      getEntries: async (m) => {
        await new Promise((resolve) => setImmediate(resolve));
        seen.push(`entries from ${m.start}`);
      },
    } satisfies Partial<MessageHandlers<WebviewMessage>>;
    const dispatch = messageDispatcher<WebviewMessage>({
      isMessage: isWebviewMessage,
      ready: () => undefined,
      handlers: handlers as unknown as MessageHandlers<WebviewMessage>,
      failed: (type, error) => seen.push(`${type} failed: ${(error as Error).message}`),
    });
    await dispatch({ type: 'getEntries', requestId: 1, start: 40, count: 10 });
    assert.deepEqual(seen, ['entries from 40']);
    // A message of the protocol without a handler in this table is a reported failure.
    await dispatch({ type: 'openRaw' });
    assert.equal(seen.length, 2);
    assert.match(seen[1]!, /^openRaw failed: /);
  });
});
