import type { TranscriptEntry } from '../../domain/transcript/model.ts';
import type { OpenedTranscript } from '../../sources/transcripts/openTranscript.ts';
import type { PanelContext } from './panelDeps.ts';

/** Entries read for the per-turn usage chart; beyond this the chart shows the first turns. */
const USAGE_SCAN_ENTRIES = 20_000;
/** The per-turn chart of a growing transcript is rebuilt at most this often. */
const LIVE_USAGE_MS = 5_000;

type TranscriptSource = OpenedTranscript['source'];

/**
 * The Usage tab: the session's totals (from the store's summary) and its tokens per model
 * turn (from the main transcript's entries, read in bounded windows).
 */
export class UsageTab {
  private entries: TranscriptEntry[] = [];
  private collectedAt = 0;
  private readonly ctx: PanelContext;

  constructor(ctx: PanelContext) {
    this.ctx = ctx;
  }

  post(): void {
    this.ctx.post({
      type: 'usage',
      view: this.ctx.adapters().buildSessionUsage(this.ctx.session(), this.entries),
    });
  }

  /**
   * Reads the per-turn tokens of the transcript. A panel closed (or switched to another
   * file) meanwhile closes the file under the read: that is not a failure, and must not
   * surface as an unhandled rejection.
   */
  async collect(source: TranscriptSource, signal: AbortSignal): Promise<void> {
    this.collectedAt = Date.now();
    const found: TranscriptEntry[] = [];
    const limit = Math.min(source.info().entryCount, USAGE_SCAN_ENTRIES);
    try {
      for (let start = 0; start < limit && !signal.aborted; start += 1000) {
        const window = await source.getWindow(start, 1000);
        found.push(...window.entries.filter((e) => e.usage));
      }
    } catch (error) {
      if (!signal.aborted)
        this.ctx.log.warn(`usage of ${this.ctx.session().id}: ${(error as Error).message}`);
      return;
    }
    if (signal.aborted) return;
    this.entries = found;
    this.post();
  }

  /** A live transcript grew: its per-turn chart is rebuilt, at most every few seconds. */
  async grew(source: TranscriptSource, signal: AbortSignal): Promise<void> {
    if (Date.now() - this.collectedAt > LIVE_USAGE_MS) await this.collect(source, signal);
  }

  reset(): void {
    this.entries = [];
    this.collectedAt = 0;
  }
}
