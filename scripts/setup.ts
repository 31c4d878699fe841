// `npm run setup`: installs code-server (first use) and checks for Chromium, so the
// test and start commands find everything. Safe to run again: it skips what exists.
import { chromiumPath, codeServerBin, ensureCodeServer, node24Dir } from './lib/tools.ts';

console.log(`node 24: ${node24Dir()}`);
ensureCodeServer();
console.log(`code-server: ${codeServerBin()}`);
try {
  console.log(`chromium: ${chromiumPath()}`);
} catch (error) {
  console.warn(
    `warning: ${(error as Error).message} (needed by npm test; npm start prints a URL for any browser)`,
  );
}
