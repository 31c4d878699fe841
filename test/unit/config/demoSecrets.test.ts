/** The demo's tokens: recorded before they are stored, deleted at stop or, for a gone window, at activation. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type * as vscode from 'vscode';
import { DEMO_SECRETS_KEY, DemoSecrets } from '../../../src/config/demoSecrets.ts';
import { referenceBackendConnections } from '../../../src/config/demoConnections.ts';
import { TokenStore } from '../../../src/config/tokenStore.ts';

/** SecretStorage and Memento as plain maps (shared between "windows", as on one machine). */
function machine() {
  const secrets = new Map<string, string>();
  const memory = new Map<string, unknown>();
  const secretStorage = {
    get: async (key: string) => secrets.get(key),
    store: async (key: string, value: string) => void secrets.set(key, value),
    delete: async (key: string) => void secrets.delete(key),
  } as unknown as vscode.SecretStorage;
  const memento = {
    get: <T>(key: string) => memory.get(key) as T | undefined,
    update: async (key: string, value: unknown) => void memory.set(key, value),
  };
  return { secrets, memory, tokens: new TokenStore(secretStorage), memento };
}

/** What Open Demo does: record, then store a token per connection with a URL. */
async function openDemo(
  m: ReturnType<typeof machine>,
  ledger: DemoSecrets,
  port: number,
): Promise<void> {
  const connections = referenceBackendConnections(`http://127.0.0.1:${port}`, 'demo', 'Demo');
  await ledger.remember(connections.map((c) => ({ connectionId: c.id, url: c.url! })));
  for (const c of connections) await m.tokens.set(c.id, c.url!, 'secret');
}

test('stopping the demo deletes every token it stored, across restarts on new ports', async () => {
  const m = machine();
  const ledger = new DemoSecrets({ memory: m.memento, tokens: m.tokens, pid: 100 });
  await openDemo(m, ledger, 41001);
  await openDemo(m, ledger, 41002); // stopped and opened again: a new port, new keys
  await openDemo(m, ledger, 41002); // opened again while running: the same keys, once
  assert.equal(m.secrets.size, 6);
  assert.equal((m.memory.get(DEMO_SECRETS_KEY) as unknown[]).length, 6);
  assert.equal(await ledger.forgetOwn(), 6);
  assert.deepEqual([...m.secrets.keys()], []);
  assert.deepEqual(m.memory.get(DEMO_SECRETS_KEY), []);
});

test('an activation deletes the tokens of a window that is gone, not of one still running', async () => {
  const m = machine();
  const alive = new Set([100, 200, 300]);
  const isAlive = (pid: number) => alive.has(pid);
  const crashed = new DemoSecrets({ memory: m.memento, tokens: m.tokens, pid: 100, isAlive });
  const other = new DemoSecrets({ memory: m.memento, tokens: m.tokens, pid: 200, isAlive });
  await openDemo(m, crashed, 41001);
  await openDemo(m, other, 41002);
  await m.tokens.set('work', 'https://mcp.example.com/mcp', 'real token');
  alive.delete(100); // its window closed before its cleanup ran

  const next = new DemoSecrets({ memory: m.memento, tokens: m.tokens, pid: 300, isAlive });
  assert.equal(await next.forgetLeftovers(), 3);
  assert.deepEqual(
    [...m.secrets.keys()].sort(),
    [
      'sessionInspector.token/demo-agents/http://127.0.0.1:41002',
      'sessionInspector.token/demo-platform/http://127.0.0.1:41002',
      'sessionInspector.token/demo-reporting/http://127.0.0.1:41002',
      'sessionInspector.token/work/https://mcp.example.com',
    ],
    "the running window's demo and the user's own token stay",
  );
  assert.equal(await next.forgetLeftovers(), 0, 'nothing left to do the second time');
  assert.equal(await other.forgetOwn(), 3);
  assert.deepEqual([...m.secrets.keys()], ['sessionInspector.token/work/https://mcp.example.com']);
});

test('a damaged record is read as empty, not thrown on', async () => {
  const m = machine();
  m.memory.set(DEMO_SECRETS_KEY, [{ connectionId: 1 }, 'x', null]);
  const ledger = new DemoSecrets({
    memory: m.memento,
    tokens: m.tokens,
    pid: 1,
    isAlive: () => false,
  });
  assert.equal(await ledger.forgetLeftovers(), 0);
  await openDemo(m, ledger, 41003);
  assert.equal(await ledger.forgetOwn(), 3);
  assert.equal(m.secrets.size, 0);
});
