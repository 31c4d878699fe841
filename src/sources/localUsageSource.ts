import type { UsageReport, UsageReportOptions } from './local/usageReport.ts';
import type { SessionSource } from './sessionSource.ts';

/** A source of local transcripts, which totals its own usage (no server to ask). */
export interface LocalUsageSource extends SessionSource {
  usage(options?: UsageReportOptions & { signal?: AbortSignal }): Promise<UsageReport>;
}

/** Checked by shape: the class lives in the lazily loaded sources bundle. */
export function hasLocalUsage(source: SessionSource | undefined): source is LocalUsageSource {
  return (
    !!source &&
    source.config.kind === 'local' &&
    typeof (source as Partial<LocalUsageSource>).usage === 'function'
  );
}
