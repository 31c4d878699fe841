/**
 * What an index's snapshot shows, for comparing two ways of scanning the same files: the
 * usage report (UTC days) and every row, less the summary fields one of the ways is
 * documented not to read.
 */
import type { SessionSummary } from '../../../../src/shared/sessionSummary.ts';
import type { LocalIndex, LocalSnapshot } from '../../../../src/sources/local/localIndex.ts';
import { buildUsageReport, utcDay } from '../../../../src/sources/local/usageReport.ts';

/** The report, and every row without the `omit` fields of its summary (default: the label). */
export function shown(
  snapshot: LocalSnapshot,
  from: LocalIndex,
  omit: readonly (keyof SessionSummary)[] = ['label'],
): unknown {
  return {
    report: buildUsageReport(snapshot, from.pricing, { dayOf: utcDay }),
    rows: snapshot.sessions.map((s) => {
      const summary: Partial<SessionSummary> = { ...s.summary };
      for (const key of omit) delete summary[key];
      return { summary, records: s.records, project: s.project, children: s.children };
    }),
  };
}
