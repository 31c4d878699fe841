import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ReferenceBackend } from '../../src/demo/server.ts';
import type { ExtensionApi } from '../../src/extension.ts';
import type { TreeNode } from '../../src/views/sessionsTree.ts';
import { startTestBackend } from '../support/backend.ts';
import { FaultInjector } from '../support/faults.ts';
import { until } from './support/until.ts';
import { extensionApi } from './support/extensionApi.ts';

const CONNECTION = 'integration-paging';

/**
 * A reporting server that ignores the offset (every page is the first one) used to fill
 * the tree with copies and keep Load more forever; now paging stops with a node.
 */
describe('paging that repeats itself, in the sessions tree', () => {
  const faults = new FaultInjector();
  let backend: ReferenceBackend;
  let api: ExtensionApi;
  const firstPages = new Map<number | undefined, unknown[]>();

  before(async () => {
    backend = await startTestBackend({ interceptor: faults.interceptor });
    faults.add({
      match: { area: 'mcp', tool: 'list-agent-sessions' },
      fault: {
        kind: 'rewriteJson',
        // Every page is the first page of the same size (the tree and the waiting scan
        // ask with different limits).
        rewrite: (value, req) => {
          const args = req.toolArguments as { offset?: number; limit?: number };
          const body = value as { items: unknown[] };
          if (!args.offset) {
            if (!firstPages.has(args.limit)) firstPages.set(args.limit, body.items);
            return value;
          }
          return { ...body, items: firstPages.get(args.limit) ?? body.items };
        },
      },
    });
    api = await extensionApi();
    await api.tokens.set(CONNECTION, backend.mcpUrl, backend.token);
    api.registry.addEphemeral({
      id: CONNECTION,
      label: 'Paging',
      kind: 'mcp',
      url: backend.mcpUrl,
    });
    await vscode.commands.executeCommand('sessionInspector.sessions.focus');
  });

  after(async () => {
    await api.registry.remove(CONNECTION);
    await backend.close();
  });

  const state = () => api.store.state(CONNECTION);
  const children = () =>
    api.tree.getChildren({ kind: 'connection', connectionId: CONNECTION }) as TreeNode[];

  it('Load more ends with "The server\'s paging repeated itself"; the loaded rows stay, each once', async () => {
    await until('first page', () => state()?.loadedOnce && !state()?.loading);
    const loaded = state()!.sessions.map((s) => s.id);
    assert.ok(state()!.next !== undefined, 'Load more is offered');
    await vscode.commands.executeCommand('sessionInspector.loadMore', CONNECTION);
    await until('paging stopped', () => state()?.pagingRepeated.length);
    const nodes = children();
    assert.equal(
      nodes.some((n) => n.kind === 'loadMore'),
      false,
      'no Load more any more',
    );
    const node = nodes.find((n) => n.kind === 'message' && n.message === 'pagingRepeated');
    assert.ok(node, 'a node says so');
    const item = api.tree.getTreeItem(node);
    assert.equal(item.label, "The server's paging repeated itself");
    assert.match(String(item.tooltip), /list-agent-sessions/);
    assert.deepEqual(
      state()!.sessions.map((s) => s.id),
      loaded,
      'the rows loaded before stay, none twice',
    );
    // A refresh (what polling does) does not bring Load more back.
    await vscode.commands.executeCommand('sessionInspector.refresh', CONNECTION);
    await until('refreshed', () => !state()?.loading);
    assert.equal(
      children().some((n) => n.kind === 'loadMore'),
      false,
    );
    assert.ok(children().some((n) => n.kind === 'message' && n.message === 'pagingRepeated'));
  });
});
