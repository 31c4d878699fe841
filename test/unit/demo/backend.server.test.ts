import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  callTool,
  connectMcp,
  startTestBackend,
  TEST_SEED,
  type LooseJson,
} from '../../support/backend.ts';

describe('reference backend server', () => {
  it('answers /healthz and binds 127.0.0.1 only', async () => {
    const backend = await startTestBackend();
    try {
      assert.match(backend.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const response = await fetch(`${backend.url}/healthz`);
      assert.equal(response.status, 200);
      assert.equal((await fetch(`${backend.url}/nope`)).status, 404);
    } finally {
      await backend.close();
    }
  });

  it('refuses MCP requests without a valid bearer token with 401 and WWW-Authenticate', async () => {
    const backend = await startTestBackend();
    try {
      const init = (auth?: string): RequestInit => ({
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(auth ? { authorization: auth } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      for (const auth of [undefined, 'Bearer wrong', `Basic ${backend.token}`]) {
        const response = await fetch(backend.mcpUrl, init(auth));
        assert.equal(response.status, 401, String(auth));
        assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer /);
      }
      await assert.rejects(connectMcp(backend, { token: 'wrong' }));
      await assert.rejects(connectMcp(backend, { token: null }));
    } finally {
      await backend.close();
    }
  });

  it('serves each seed system on its own path and all tools on /mcp, in both protocol eras', async () => {
    const backend = await startTestBackend();
    try {
      const names = async (url: string, negotiation: 'legacy' | 'auto' = 'legacy') => {
        const client = await connectMcp(backend, { url, negotiation });
        try {
          return (await client.listTools()).tools.map((t) => t.name).sort();
        } finally {
          await client.close();
        }
      };
      const closedloop = await names(backend.mcpUrls.closedloop);
      const itential = await names(backend.mcpUrls.itential);
      assert.deepEqual(closedloop, [
        'get-agent-session-analytics',
        'get-agent-session-transcript',
        'get-agent-session-usage',
        'list-agent-sessions',
        'list-pending-instructions',
        'list-session-comments',
        'session_complete',
      ]);
      assert.deepEqual(itential, [
        'complete_manual_task',
        'describe_manual_task',
        'describe_session',
        'describe_session_token_usage',
        'get_sessions',
      ]);
      assert.deepEqual(await names(backend.mcpUrl), [...closedloop, ...itential].sort());
      assert.deepEqual(await names(backend.mcpUrl, 'auto'), await names(backend.mcpUrl));
      const modern = await connectMcp(backend, { negotiation: 'auto' });
      assert.equal(modern.getNegotiatedProtocolVersion(), '2026-07-28');
      const result = await callTool(modern, 'list-agent-sessions', { limit: 2 });
      assert.equal(result.json.items.length, 2);
      await modern.close();
    } finally {
      await backend.close();
    }
  });

  it('refuses requests addressed to a non-loopback host name (DNS rebinding)', async () => {
    const backend = await startTestBackend();
    try {
      const { request } = await import('node:http');
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          `${backend.url}/healthz`,
          { headers: { host: 'evil.example:80' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
      assert.equal(status, 403);
    } finally {
      await backend.close();
    }
  });

  it('produces the same data for the same seed and different data for another', async () => {
    const snapshot = async (seed: number) => {
      const backend = await startTestBackend({ seed });
      const client = await connectMcp(backend);
      try {
        const list = (await callTool(client, 'list-agent-sessions', { quality: 'all', limit: 100 }))
          .json;
        const files = (
          await callTool(client, 'get-agent-session-transcript', {
            sessionId: backend.fixtures.closedloop.mainAvailability.available,
          })
        ).json.files.map((f: LooseJson) => [f.fileKey, f.rawSha256, f.byteSize]);
        const comments = (
          await callTool(client, 'list-session-comments', {
            sessionId: backend.fixtures.closedloop.manyComments,
            limit: 100,
          })
        ).json;
        const itential = (await callTool(client, 'get_sessions')).json;
        const rest = await (
          await fetch(`${backend.restUrl}/agents/customer_support/sessions?limit=100`, {
            headers: { 'x-api-key': backend.token },
          })
        ).json();
        return JSON.stringify({
          list,
          files,
          comments,
          itential,
          rest,
          fixtures: backend.fixtures,
        });
      } finally {
        await client.close();
        await backend.close();
      }
    };
    const a = await snapshot(TEST_SEED);
    const b = await snapshot(TEST_SEED);
    const c = await snapshot(TEST_SEED + 1);
    assert.equal(a, b);
    assert.notEqual(a, c);
  });

  it('runs from the command line and stops cleanly on SIGTERM', async () => {
    const cli = fileURLToPath(new URL('../../../src/demo/cli.ts', import.meta.url));
    const child = spawn(process.execPath, [cli, '--port', '0', '--seed', '3'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const lines = createInterface({ input: child.stdout });
      const iterator = lines[Symbol.asyncIterator]();
      const first = (await iterator.next()).value as string;
      const match = /^listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(first);
      assert.ok(match, first);
      const tokenLine = (await iterator.next()).value as string;
      const token = /^token: (\S+)$/.exec(tokenLine)?.[1];
      assert.ok(token, tokenLine);
      assert.equal((await fetch(`${match[1]}/healthz`)).status, 200);
      const rest = await fetch(`${match[1]}/v2/agents`, { headers: { 'x-api-key': token } });
      assert.equal(rest.status, 200);
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      assert.equal(code, 0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
