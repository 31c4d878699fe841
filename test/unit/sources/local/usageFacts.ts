/**
 * What the usage report and the aggregation behind it read of a file's summary: a read for
 * a count of usage only (skipStatus, the usage-report CLI) must give these as a full read
 * does. Titles, branch, version, models, substance and status facts are left out there.
 */
import type { FileSummary } from '../../../../src/sources/local/types.ts';

export function usageFacts(s: FileSummary) {
  return {
    path: s.path,
    harness: s.harness,
    role: s.role,
    usage: [...s.usage],
    copies: [...s.copies],
    // De-duplication order (first), row order (last), and the report's days.
    firstMs: s.firstMs,
    lastMs: s.lastMs,
    firstTimestamp: s.firstTimestamp,
    lastTimestamp: s.lastTimestamp,
    // Which row a file's usage counts in, and under which project.
    sessionId: s.sessionId,
    agentId: s.agentId,
    cwd: s.cwd,
    subagents: s.subagents,
    noTokenInfo: s.noTokenInfo,
    lines: s.lines,
    bytes: s.bytes,
  };
}
