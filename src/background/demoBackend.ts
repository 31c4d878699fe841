import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import type { Logger } from '../util/logger.ts';

interface RunningDemo {
  url: string;
  close(): Promise<void>;
}
type StartDemo = (options: { port: number; token: string }) => Promise<RunningDemo>;

/**
 * Runs the bundled reference backend (dist/demo.cjs) on 127.0.0.1 inside the
 * extension host, so someone without an account can try the extension. The
 * bundle is loaded only when the user asks for the demo.
 */
export class DemoBackend implements vscode.Disposable {
  private running: Promise<{ url: string; token: string; demo: RunningDemo }> | undefined;
  private readonly extensionPath: string;
  private readonly log: Logger;

  constructor(extensionPath: string, log: Logger) {
    this.extensionPath = extensionPath;
    this.log = log;
  }

  start(): Promise<{ url: string; token: string }> {
    this.running ??= (async () => {
      const modulePath = path.join(this.extensionPath, 'dist', 'demo.cjs');
      // A runtime require keeps the demo out of the main bundle.
      const { startReferenceBackend } = require(modulePath) as { startReferenceBackend: StartDemo };
      const token = randomBytes(24).toString('base64url');
      const demo = await startReferenceBackend({ port: 0, token });
      this.log.info(`demo backend listening on ${demo.url}`);
      return { url: demo.url, token, demo };
    })();
    this.running.catch(() => (this.running = undefined));
    return this.running;
  }

  /** Closes the backend; the next start() picks a new port and token. */
  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    await running?.then((r) => r.demo.close()).catch(() => undefined);
  }

  dispose(): Promise<void> {
    return this.stop();
  }
}
