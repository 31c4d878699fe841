import type { TranscriptEntry } from '../../../src/shared/protocol.ts';

/** Entries per getEntries request; the host accepts up to 200, smaller windows load faster. */
export const WINDOW_SIZE = 50;

interface Window {
  /** Index of `entries[0]` (the host may answer from another start than asked). */
  start: number;
  entries: TranscriptEntry[];
}

/**
 * The transcript windows the webview holds: a bounded LRU keyed by the aligned window
 * start, so a 100,000-entry transcript never sits in the webview's memory at once.
 * Entries capped at PREVIEW_CHARS per part keep one window's size bounded too.
 */
export class WindowCache {
  private readonly windows = new Map<number, Window>();
  private readonly maxWindows: number;

  constructor(maxWindows: number) {
    this.maxWindows = maxWindows;
  }

  /** The aligned start of the window that holds `index`. */
  static windowOf(index: number): number {
    return index - (index % WINDOW_SIZE);
  }

  has(start: number): boolean {
    return this.windows.has(start);
  }

  entry(index: number): TranscriptEntry | undefined {
    const window = this.windows.get(WindowCache.windowOf(index));
    return window?.entries[index - window.start];
  }

  /** Marks a window as recently used (it is on screen). */
  touch(start: number): void {
    const window = this.windows.get(start);
    if (!window) return;
    this.windows.delete(start);
    this.windows.set(start, window);
  }

  /** Stores a window; evicts the least recently used ones that `keep` does not protect. */
  put(key: number, start: number, entries: TranscriptEntry[], keep: (key: number) => boolean) {
    this.windows.delete(key);
    this.windows.set(key, { start, entries });
    for (const old of this.windows.keys()) {
      if (this.windows.size <= this.maxWindows) break;
      if (old !== key && !keep(old)) this.windows.delete(old);
    }
  }

  /**
   * Forgets the windows from `start` on: a growing transcript has more entries there now,
   * and its old last entry may have changed (a tool call that got its result).
   */
  dropFrom(start: number): void {
    for (const key of [...this.windows.keys()]) if (key >= start) this.windows.delete(key);
  }

  clear(): void {
    this.windows.clear();
  }

  get size(): number {
    return this.windows.size;
  }
}
