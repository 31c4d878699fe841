import type * as vscode from 'vscode';
import { redact } from '../domain/redact.ts';
import type { Logger } from '../util/logger.ts';

/** Every line passes through redact() before it reaches the Output panel. */
export function createRedactingLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    trace: (m) => channel.trace(redact(m)),
    info: (m) => channel.info(redact(m)),
    warn: (m) => channel.warn(redact(m)),
    error: (m) => channel.error(redact(m)),
  };
}
