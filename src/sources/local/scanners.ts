/**
 * Which scanner reads a file: a new one for a discovered file, or one that continues from
 * a state a scan helper or the persisted index saved. The scan cache and the persisted
 * index both make scanners; here, neither imports the other for it.
 */
import { ClaudeCodeScanner } from './claudeCodeScan.ts';
import { CodexScanner } from './codexScan.ts';
import type { DiscoveredFile } from './discovery.ts';
import type { ScannerState } from './scannerState.ts';
import type { UsageRecord } from './types.ts';

export type Scanner = ClaudeCodeScanner | CodexScanner;

export function newScanner(file: DiscoveredFile): Scanner {
  return file.harness === 'codex'
    ? new CodexScanner(file.path, file.sessionId)
    : new ClaudeCodeScanner(file.path, {
        role: file.role,
        ...(file.sessionId ? { sessionId: file.sessionId } : {}),
        ...(file.agentId ? { agentId: file.agentId } : {}),
      });
}

/** A scanner that continues from `state`, holding `usage` and `copies` (not copied). */
export function resumeScanner(
  path: string,
  state: ScannerState,
  usage: Map<string, UsageRecord>,
  copies: Map<string, UsageRecord>,
): Scanner {
  return state.harness === 'codex'
    ? CodexScanner.resume(path, state, usage)
    : ClaudeCodeScanner.resume(path, state, usage, copies);
}
