import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { discoverLocalFiles } from '../../src/sources/local/discovery.ts';
import { ScanCache } from '../../src/sources/local/scanCache.ts';
import { until } from './support/until.ts';

/**
 * The extension scans a big first listing in helper processes (parallelScan.ts). Only a
 * real extension host says whether they start there: its runtime (code-server's Node, or
 * Electron run as Node), its environment, the bundled dist/scanWorker.cjs. The runner's
 * corpus is below the size that starts helpers, so this test scans it with the threshold
 * at zero and the extension's own helper script.
 */

/** Child processes of this process (Linux: every thread's children in /proc). */
function childPids(): number[] {
  const tasks = `/proc/${process.pid}/task`;
  return readdirSync(tasks).flatMap((tid) =>
    readFileSync(path.join(tasks, tid, 'children'), 'utf8')
      .split(' ')
      .filter(Boolean)
      .map(Number),
  );
}

describe('local scans in helper processes', () => {
  it('helper processes start in the extension host, scan like this thread, and exit', async function () {
    this.timeout(60_000);
    const extension = vscode.extensions.getExtension(
      'agent-session-inspector.agent-session-inspector',
    );
    assert.ok(extension, 'the extension is installed');
    const claudeDir = process.env.CLAUDE_CONFIG_DIR;
    const codexHome = process.env.CODEX_HOME;
    assert.ok(claudeDir && codexHome, 'the runner points both harnesses at a corpus');
    const { files } = await discoverLocalFiles({ claudeConfigDirs: [claudeDir], codexHome });
    assert.ok(files.length > 4, 'the corpus has files to share out');

    const before = new Set(childPids());
    const expected = await new ScanCache().scanAll(files);
    const helpers = new ScanCache({
      scanWorker: path.join(extension.extensionPath, 'dist', 'scanWorker.cjs'),
      helpers: 'processes',
      workers: 2,
      parallelMinBytes: 0,
    });
    helpers.startWorkers();
    const started = childPids().filter((pid) => !before.has(pid));
    assert.equal(started.length, 2, 'two helper processes started');
    const got = await helpers.scanAll(files);
    assert.deepEqual(got, expected);
    // Files written in the last minutes (another test's live session) stay here.
    const recent = files.filter((f) => Date.now() - f.mtimeMs < 15 * 60_000).length;
    assert.ok(
      helpers.stats.workerScans > 0 && helpers.stats.workerScans >= files.length - recent,
      `the helpers read the files (${helpers.stats.workerScans} of ${files.length})`,
    );
    await until('the helper processes exit', () =>
      started.every((pid) => !childPids().includes(pid)),
    );
  });
});
