// Mocha runner loaded by VS Code as extensionTestsPath: runs every *.test.cjs next to it,
// or, with ASI_RELOAD_MARKER set, one phase of the window-reload scenario.
import Mocha from 'mocha';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import * as vscode from 'vscode';

export function run(): Promise<void> {
  // The web workbench relays console.log(fmt, ...args) unformatted; format here.
  (Mocha.reporters.Base as unknown as { consoleLog: (...a: unknown[]) => void }).consoleLog = (
    ...args: unknown[]
  ) => console.log(util.format(...args));
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });
  const dir = __dirname;
  const reloadMarker = process.env.ASI_RELOAD_MARKER;
  if (reloadMarker) {
    // Phase one runs, writes the marker and reloads the window; VS Code then runs this
    // file again in the new extension host, which finds the marker and runs phase two.
    const second = existsSync(reloadMarker);
    mocha.addFile(
      path.join(dir, 'phases', second ? 'reloadAfter.test.cjs' : 'reloadBefore.test.cjs'),
    );
    if (!second) {
      return new Promise((_resolve, reject) => {
        mocha.run((failures) => {
          if (failures > 0) {
            reject(new Error(`${failures} tests failed before the reload`));
            return;
          }
          writeFileSync(reloadMarker, new Date().toISOString());
          // Never settles: the window reloads and the next extension host runs phase two.
          void vscode.commands.executeCommand('workbench.action.reloadWindow');
        });
      });
    }
  } else {
    // ASI_TEST_FILTER=localLive runs only the files whose name contains it (while developing).
    const only = process.env.ASI_TEST_FILTER ?? '';
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.test.cjs') && f.includes(only))
      .sort()) {
      mocha.addFile(path.join(dir, file));
    }
  }
  return new Promise((resolve, reject) => {
    mocha.run((failures) =>
      failures > 0 ? reject(new Error(`${failures} integration tests failed`)) : resolve(),
    );
  });
}
