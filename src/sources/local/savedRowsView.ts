/**
 * The saved rows (savedRows.ts) as a listing sees them: filtered on their columns, with a
 * session's summary built only when a page shows it (a page is at most 100 rows of
 * thousands), its status the one saved for the age its last write has now. An index out
 * of range throws RowsProblem where it is used (the caller then lists the checked way).
 */
import type { DerivedStatus } from '../../domain/derivedStatus.ts';
import type { SessionSummary } from '../../domain/session.ts';
import type { StatusThresholds } from './localStatus.ts';
import { bandOf, bandsOf, NONE, parseJson, RowsProblem, type SavedColumns } from './savedRows.ts';
import type { LocalProblem } from './types.ts';

/** What a listing's filters look at (see passesFilters in localSource.ts). */
export type RowTest = (
  harness: string | undefined,
  status: DerivedStatus,
  activityMs: number,
  substantive: boolean,
) => boolean;

export class ShownRows {
  readonly length: number;
  readonly problems: LocalProblem[];
  private readonly c: SavedColumns;
  private readonly connectionId: string;
  /** Per row, its status's index in c.statuses for the age of its last write now. */
  private readonly shownStatus: Uint32Array;
  private readonly harness: Uint32Array | undefined;
  private readonly strings = new Map<number, string>();
  private readonly summaries = new Map<number, SessionSummary>();

  constructor(c: SavedColumns, connectionId: string, now: number, thresholds: StatusThresholds) {
    this.c = c;
    this.length = c.rows;
    this.problems = c.problems;
    this.connectionId = connectionId;
    const bands = bandsOf(thresholds);
    this.shownStatus = new Uint32Array(c.rows);
    for (let i = 0; i < c.rows; i++) {
      const status = c.status[4 * i + bandOf(bands, now - c.lastWrite[i]!)]!;
      if (status >= c.statuses.length) throw new RowsProblem('bad status index');
      this.shownStatus[i] = status;
    }
    const h = c.keys.findIndex(([key, kind]) => key === 'harness' && kind === 's');
    this.harness = h < 0 ? undefined : (c.columns[h] as Uint32Array);
  }

  /** Indexes of the rows that pass `test`, in the saved (shown) order. */
  select(test: RowTest): number[] {
    const out: number[] = [];
    const { c, harness } = this;
    for (let i = 0; i < c.rows; i++) {
      const h = harness?.[i];
      const status = c.statuses[this.shownStatus[i]!]!.status;
      if (
        test(
          h === undefined || h === NONE ? undefined : this.string(h),
          status,
          c.activity[i]!,
          c.quality[i] === 1,
        )
      ) {
        out.push(i);
      }
    }
    return out;
  }

  /** Row `i`'s summary, as the aggregation would set it now (built once). */
  summary(i: number): SessionSummary {
    let sum = this.summaries.get(i);
    if (sum) return sum;
    const { c } = this;
    const fields: Record<string, unknown> = { connectionId: this.connectionId };
    c.keys.forEach(([key, kind], k) => {
      const v = c.columns[k]![i]!;
      if (kind === 'n') {
        if (!Number.isNaN(v)) fields[key] = v;
      } else if (v !== NONE) {
        fields[key] = kind === 's' ? this.string(v) : parseJson(this.string(v));
      }
    });
    sum = fields as unknown as SessionSummary;
    // As setStatus (aggregate.ts) sets them.
    const { waitingSince, ...status } = c.statuses[this.shownStatus[i]!]!;
    sum.status = status;
    if (waitingSince) sum.waitingSince = waitingSince;
    if (status.status === 'finished' && sum.lastActivityAt) sum.endedAt = sum.lastActivityAt;
    this.summaries.set(i, sum);
    return sum;
  }

  private string(index: number): string {
    let s = this.strings.get(index);
    if (s === undefined) {
      const ends = this.c.stringEnds;
      const start = index === 0 ? 0 : ends[index - 1]!;
      const end = ends[index]!;
      if (!(index < ends.length && start <= end && end <= this.c.blob.length)) {
        throw new RowsProblem('bad string index');
      }
      s = this.c.blob.toString('utf8', start, end);
      this.strings.set(index, s);
    }
    return s;
  }
}
