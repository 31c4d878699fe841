import type { SessionSummary } from '../shared/sessionSummary.ts';

// The row lives in src/shared, where the webview app can import it too.
export type { PendingTask, SessionSummary } from '../shared/sessionSummary.ts';

/** One page of sessions plus how to get the next. */
export interface SessionPage {
  sessions: SessionSummary[];
  total?: number;
  /** Opaque continuation (offset or page key); undefined = last page. */
  next?: string;
  /** Rows the backend sent that failed validation: shown, never silently dropped. */
  invalidRows: number;
  /**
   * Listings whose paging repeated itself (a page key or offset seen before, or pages of
   * sessions already listed), e.g. an agent key: their paging stopped with the rows read.
   */
  pagingRepeated?: string[];
  /**
   * Rows from a saved copy shown while the source checks them (a window opening on local
   * transcripts): a checked listing follows, so they are no baseline for "started waiting".
   */
  provisional?: boolean;
}
