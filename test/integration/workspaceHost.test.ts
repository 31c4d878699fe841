import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension.ts';
import { sourceOperation } from '../../src/sources/sessionSource.ts';
import { until } from './support/until.ts';
import { extensionApi } from './support/extensionApi.ts';

/**
 * Remote development: the extension declares extensionKind workspace, so in a remote
 * window (SSH, containers, Codespaces) it runs in the remote extension host and reads that
 * machine's transcript folders. code-server is such a remote: the workbench runs in the
 * browser, the extension host in the server, which the test host started with
 * ASI_SERVER_AUTHORITY = its address.
 */
const ID = 'agent-session-inspector.agent-session-inspector';

/** The command lines of this process's ancestors (Linux /proc). */
function ancestors(): string[] {
  const lines: string[] = [];
  let pid = process.ppid;
  while (pid > 1 && lines.length < 20) {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    lines.push(cmdline);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  }
  return lines;
}

/** The folders a local connection's source watches: `projects/` of each Claude root, Codex's `sessions/`. */
async function watchedDirs(api: ExtensionApi, id: string): Promise<string[]> {
  await api.store.refreshAfterCurrent(id);
  const source = sourceOperation(api.store.source(id), 'localFiles');
  assert.ok(source, 'a local source');
  return source.watchTargets().map((t) => t.dir);
}

describe('remote development: the workspace-side extension host', () => {
  it('runs the extension as a workspace extension in the remote (server) extension host', async () => {
    console.log(
      `      VS Code ${vscode.version} (${vscode.env.appName}), remote ${vscode.env.remoteName}`,
    );
    const extension = vscode.extensions.getExtension(ID);
    assert.ok(extension);
    assert.equal(extension.extensionKind, vscode.ExtensionKind.Workspace);
    const authority = process.env.ASI_SERVER_AUTHORITY;
    if (authority) {
      // The code-server test host: a remote window whose authority is the server's address.
      assert.equal(vscode.env.remoteName, authority);
      assert.equal(vscode.env.uiKind, vscode.UIKind.Web);
      // A Node extension host (not the browser's web worker) started by the server.
      assert.ok(existsSync(`/proc/${process.pid}`), 'a process on the server machine');
      assert.ok(
        ancestors().some((cmd) => /code-server/.test(cmd)),
        'the extension host descends from the code-server process',
      );
    } else {
      // Desktop VS Code (VSCODE_EXECUTABLE): a local window, the local extension host.
      assert.equal(vscode.env.remoteName, undefined);
    }
  });

  it('reads the transcript folders of that host: its environment, then the machine settings', async () => {
    const api = await extensionApi();
    const claudeDir = process.env.CLAUDE_CONFIG_DIR;
    const codexHome = process.env.CODEX_HOME;
    assert.ok(claudeDir && codexHome, "the runner sets both variables in the host's environment");
    const id = 'workspace-host';
    api.registry.addEphemeral({ id, label: 'This machine', kind: 'local' });
    const config = vscode.workspace.getConfiguration('sessionInspector');
    try {
      assert.deepEqual(await watchedDirs(api, id), [
        path.join(claudeDir, 'projects'),
        path.join(codexHome, 'sessions'),
        path.join(codexHome, 'archived_sessions'),
      ]);
      // The machine-scoped setting comes before CODEX_HOME, and a change reconnects.
      const other = await mkdtemp(path.join(os.tmpdir(), 'asi-codex-setting-'));
      await config.update('local.codexHome', other, vscode.ConfigurationTarget.Global);
      assert.equal(config.inspect('local.codexHome')?.globalValue, other);
      await until('the source rebuilt with the setting', () => {
        const source = sourceOperation(api.store.source(id), 'localFiles');
        return (
          source !== undefined &&
          source.watchTargets().some((t) => t.dir === path.join(other, 'sessions'))
        );
      });
      assert.deepEqual(await watchedDirs(api, id), [
        path.join(claudeDir, 'projects'),
        path.join(other, 'sessions'),
        path.join(other, 'archived_sessions'),
      ]);
    } finally {
      await config.update('local.codexHome', undefined, vscode.ConfigurationTarget.Global);
      await api.registry.remove(id);
    }
  });
});
