/**
 * What the test page exposes as `window.__probe`, shared by the page (which implements
 * it) and the Node tests (which call it through page.evaluate). DOM-free on purpose:
 * the Node side type-checks without the DOM library.
 */
import type { TranscriptEntry, TranscriptFileView } from '../../../src/shared/protocol.ts';

/** How the fake host answers getEntries. */
export interface TranscriptSetup {
  /** Generated entries (see fixture/generate.ts), or… */
  generated?: number;
  /** …these entries (with the untruncated parts as `${index}:${part}` → text). */
  entries?: TranscriptEntry[];
  fullTexts?: Record<string, string>;
  format?: string;
  /** The count the ready status gives, when it differs from the source's (still indexing). */
  entryCount?: number;
  /** Named big-text scenario built in the page (a 5 MB string does not cross CDP). */
  bigText?: boolean;
  /** The XSS corpus as entries of every kind (built in the page from xssCorpus.ts). */
  xss?: boolean;
  fileKey?: string;
  files?: TranscriptFileView[];
  errorCount?: number;
}

export interface RowInfo {
  index: number;
  placeholder: boolean;
  classes: string;
  /** innerText, cut to 300 characters. */
  text: string;
  textLength: number;
  /** The row intersects the feed's visible area. */
  visible: boolean;
  marks: string[];
  tabindex: string | null;
}

export interface ScanReport {
  /** Tag names found under each component's shadow root (nested shadow roots included). */
  tags: Record<string, string[]>;
  /** Things that must never appear: element, attribute or URL problems, described. */
  problems: string[];
  /** Concatenated text of the components, for "the payload shows as text" checks. */
  text: string;
}

export interface Probe {
  setTranscript(setup: TranscriptSetup): void;
  /** Sets a host → webview message as the host would post it. */
  send(message: unknown): void;
  posted(): unknown[];
  clearPosted(): void;
  rows(): RowInfo[];
  /** Entry elements (rows and placeholders) in the transcript's DOM. */
  entryElementCount(): number;
  /** Scrolls the transcript to a fraction (0 = top, 1 = end) of its scroll range. */
  scrollFeed(fraction: number): void;
  /** Scrolls down by most of a screen; true when the end was already reached. */
  pageDown(): boolean;
  setTranscriptHeight(px: number): void;
  /**
   * Pages through the whole transcript in the page (no round trip per page), opening every
   * expander and "show more" on each, until `expected` entries were rendered (three passes
   * at most); the distinct entries rendered.
   */
  walkTranscript(expected: number, maxPages?: number): Promise<{ entries: number; pages: number }>;
  /** Shows each of the app's tabs in turn (Details, Transcript, Comments, Usage, Changes). */
  showAppTabs(): Promise<number>;
  /** Clicks every collapsed expander and "show more" in the rendered rows; returns how many. */
  expandAll(): number;
  /** The element that has focus, through shadow roots: "tag.class[data-index]". */
  activeElement(): string;
  focusRow(index: number): boolean;
  scan(): ScanReport;
  /**
   * Every element any component (or the page) ever attached since the last clear, seen by
   * MutationObservers on every shadow root as it was created: elements a scan at the end
   * would miss (rows virtualized away, re-rendered) are in it too.
   */
  watched(): { tags: Record<string, string[]>; problems: string[]; elements: number };
  clearWatched(): void;
  /** Flags payloads would set, CSP violations and errors the page saw. */
  health(): { xss: unknown; violations: string[]; errors: string[] };
}
