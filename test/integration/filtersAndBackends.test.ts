import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ReferenceBackend } from '../../src/demo/server.ts';
import type { ExtensionApi } from '../../src/extension.ts';
import type { TreeNode } from '../../src/views/sessionsTree.ts';
import { startTestBackend } from '../support/backend.ts';
import { until } from './support/until.ts';
import { extensionApi } from './support/extensionApi.ts';

describe('filters, platform and REST connections, notifications, origin-bound tokens', () => {
  let backend: ReferenceBackend;
  let api: ExtensionApi;
  const listCalls: unknown[] = [];
  /** When set, list-agent-sessions answers drop this session (it "starts waiting" once cleared). */
  let hidden: string | undefined;

  before(async () => {
    backend = await startTestBackend({
      interceptor: async (request, next) => {
        if (request.toolName === 'list-agent-sessions') listCalls.push(request.toolArguments);
        const response = await next();
        if (
          !hidden ||
          request.toolName !== 'list-agent-sessions' ||
          !(response.body instanceof Uint8Array)
        ) {
          return response;
        }
        const text = Buffer.from(response.body).toString('utf8');
        const body = JSON.parse(text) as {
          result?: {
            structuredContent?: { items: { id: string }[] };
            content?: { text: string }[];
          };
        };
        const structured = body.result?.structuredContent;
        if (!structured) return response;
        structured.items = structured.items.filter((item) => item.id !== hidden);
        if (body.result?.content?.[0]) body.result.content[0].text = JSON.stringify(structured);
        const bytes = Buffer.from(JSON.stringify(body));
        return {
          ...response,
          headers: { ...response.headers, 'content-length': String(bytes.length) },
          body: bytes,
        };
      },
    });
    api = await extensionApi();
    await vscode.commands.executeCommand('sessionInspector.sessions.focus');
  });

  after(async () => {
    for (const id of ['filters', 'platform', 'rest']) await api.registry.remove(id);
    await backend.close();
  });

  async function connect(id: string, kind: 'mcp' | 'rest', url: string): Promise<void> {
    await api.tokens.set(id, url, backend.token);
    api.registry.addEphemeral({ id, label: id, kind, url });
    api.tree.getChildren();
    await until(`${id} loaded`, () => {
      const state = api.store.state(id);
      return state && !state.loading && (state.loadedOnce || state.error) ? state : undefined;
    });
  }

  it('a team scope without a team is refused before any request', async () => {
    await connect('filters', 'mcp', backend.mcpUrls.closedloop);
    const before = listCalls.length;
    await api.store.setFilters('filters', { viewerScope: 'team' });
    const state = api.store.state('filters');
    assert.equal(state?.error?.kind, 'invalidFilter');
    assert.match(state?.error?.message ?? '', /team ID/);
    assert.equal(listCalls.length, before, 'nothing was sent');
    const node = (
      api.tree.getChildren({ kind: 'connection', connectionId: 'filters' }) as TreeNode[]
    ).find((n) => n.kind === 'message');
    assert.ok(node);
    assert.equal(api.tree.getTreeItem(node).contextValue, 'error.filter');
  });

  it('a harness filter reaches the server, narrows the tree and shows in the view description', async () => {
    await api.store.setFilters('filters', { harness: 'codex' });
    const state = api.store.state('filters');
    assert.equal(state?.error, undefined);
    assert.ok((state?.sessions.length ?? 0) > 0);
    assert.ok(
      state?.sessions.every((s) => s.harness === 'codex'),
      'only codex sessions',
    );
    assert.deepEqual((listCalls.at(-1) as { harness?: string }).harness, 'codex');
    assert.match(api.view.description ?? '', /codex/);
    await api.store.setFilters('filters', {});
  });

  it('the text filter keeps matching sessions only', async () => {
    const target = api.store.state('filters')?.sessions[0];
    assert.ok(target?.repository);
    api.tree.setTextFilter(target.repository);
    try {
      const sessions = (
        api.tree.getChildren({ kind: 'connection', connectionId: 'filters' }) as TreeNode[]
      )
        .filter((n) => n.kind === 'group')
        .flatMap((g) => api.tree.getChildren(g) as TreeNode[])
        .filter((n): n is Extract<TreeNode, { kind: 'session' }> => n.kind === 'session');
      assert.ok(sessions.length > 0);
      assert.ok(
        sessions.every(
          (n) =>
            n.session.repository === target.repository ||
            n.session.label.includes(target.repository ?? ''),
        ),
      );
    } finally {
      api.tree.setTextFilter('');
    }
  });

  it('a session that starts waiting raises a notification with Open', async () => {
    const waiting = api.store.state('filters')?.waiting?.sessions[0];
    assert.ok(waiting, 'the demo has waiting sessions');
    const shown: string[] = [];
    const original = vscode.window.showInformationMessage;
    (vscode.window as { showInformationMessage: unknown }).showInformationMessage = async (
      message: string,
    ) => {
      shown.push(message);
      return undefined;
    };
    try {
      hidden = waiting.id;
      await api.store.refreshAfterCurrent('filters');
      assert.equal(
        api.store.state('filters')?.waiting?.sessions.some((s) => s.id === waiting.id),
        false,
      );
      hidden = undefined;
      await api.store.refreshAfterCurrent('filters');
      await until('notification', () => shown.length > 0);
      assert.ok(
        shown.some((m) => m.includes(waiting.label)),
        JSON.stringify(shown),
      );
    } finally {
      (vscode.window as { showInformationMessage: unknown }).showInformationMessage = original;
      hidden = undefined;
    }
  });

  it('platform sessions wait on manual tasks; a failed lookup makes the count incomplete', async () => {
    await connect('platform', 'mcp', backend.mcpUrls.itential);
    const state = api.store.state('platform');
    const waiting = state?.sessions.filter((s) => s.status.status === 'waiting') ?? [];
    assert.ok(waiting.length > 0);
    assert.ok(waiting.every((s) => (s.pendingTasks?.length ?? 0) > 0));
    assert.ok(state?.sessions.some((s) => s.waitingUnknown));
    assert.equal(api.store.waitingIncomplete(), true);
    const raw = new Set(state?.sessions.map((s) => s.status.raw));
    for (const value of ['PENDING', 'RUNNING', 'PAUSED', 'COMPLETE', 'FAILED', 'CANCELED']) {
      assert.ok(raw.has(value), `${value} is listed`);
    }
    const first = waiting[0];
    assert.ok(first);
    const children = api.tree.getChildren({ kind: 'session', session: first }) as TreeNode[];
    const taskNodes = children.filter((n) => n.kind === 'task');
    assert.equal(
      taskNodes.length,
      first.pendingTasks?.length,
      'each waiting manual task sits under its session',
    );
    const canceled = state?.sessions.find((s) => s.status.raw === 'CANCELED');
    assert.equal(canceled?.status.outcome, 'canceled', 'canceled is not shown as completed');
  });

  it('REST sessions: pending client tool calls wait, stopped is idle, sub-agent sessions nest', async () => {
    await connect('rest', 'rest', backend.url);
    let state = api.store.state('rest');
    while (state?.next !== undefined) {
      await api.store.loadMore('rest');
      state = api.store.state('rest');
    }
    const sessions = state?.sessions ?? [];
    assert.ok(sessions.some((s) => s.status.status === 'waiting'));
    assert.ok(
      sessions.filter((s) => s.status.raw === 'stopped').every((s) => s.status.status === 'idle'),
    );
    const child = sessions.find((s) => s.parentId && sessions.some((p) => p.id === s.parentId));
    assert.ok(child, 'the demo links a sub-agent session to its parent');
    const parent = sessions.find((s) => s.id === child.parentId);
    assert.ok(parent);
    const under = api.tree.getChildren({ kind: 'session', session: parent }) as TreeNode[];
    assert.ok(under.some((n) => n.kind === 'session' && n.session.id === child.id));
  });

  it('moving a connection to another origin does not send the old token there', async () => {
    const id = 'moving';
    await api.tokens.set(id, backend.mcpUrls.closedloop, backend.token);
    await api.registry.save({ id, label: 'Moving', kind: 'mcp', url: backend.mcpUrls.closedloop });
    api.tree.getChildren();
    await until('loaded', () => api.store.state(id)?.loadedOnce);
    // Same server, other origin (localhost vs 127.0.0.1): the token must not follow.
    const moved = backend.mcpUrls.closedloop.replace('127.0.0.1', 'localhost');
    await api.registry.save({ id, label: 'Moving', kind: 'mcp', url: moved });
    api.tree.getChildren();
    const state = await until('401', () => {
      const s = api.store.state(id);
      return s?.config.url === moved && s.error ? s : undefined;
    });
    assert.equal(state.error?.kind, 'unauthorized');
    await api.registry.remove(id);
  });
});
