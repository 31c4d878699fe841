// Mocha runner loaded by VS Code as extensionTestsPath: runs every *.test.cjs next to it.
import Mocha from 'mocha';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import util from 'node:util';

export function run(): Promise<void> {
  // The web workbench relays console.log(fmt, ...args) unformatted; format here.
  (Mocha.reporters.Base as unknown as { consoleLog: (...a: unknown[]) => void }).consoleLog = (
    ...args: unknown[]
  ) => console.log(util.format(...args));
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });
  const dir = __dirname;
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.test.cjs'))
    .sort()) {
    mocha.addFile(path.join(dir, file));
  }
  return new Promise((resolve, reject) => {
    mocha.run((failures) =>
      failures > 0 ? reject(new Error(`${failures} integration tests failed`)) : resolve(),
    );
  });
}
