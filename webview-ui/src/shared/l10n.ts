/**
 * The webview's language. The host answers `ready` with `init` (VS Code's display
 * language and the extension's l10n bundle): @vscode/l10n then translates the
 * `l10n.t(...)` strings of every component (the same bundle as the host's
 * `vscode.l10n.t` strings; `npm run l10n` extracts both), and dates, times, numbers and
 * relative times go through Intl in that language. Components that hold an
 * L10nController render again when it arrives.
 */
import * as l10n from '@vscode/l10n';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { isWebviewL10n } from '../../../src/shared/protocol.ts';

const CHANGED = 'session-inspector-l10n';

/** Until `init`: the page's lang (webviewHtml writes vscode.env.language there). */
let language: string | undefined = document.documentElement.lang || undefined;
const formats = new Map<
  string,
  Intl.DateTimeFormat | Intl.NumberFormat | Intl.RelativeTimeFormat
>();

/** Takes an `init` message's l10n; true when it was valid and applied. */
export function applyL10n(value: unknown): boolean {
  if (!isWebviewL10n(value)) return false;
  language = value.language || undefined;
  l10n.config({ contents: value.bundle ?? {} });
  formats.clear();
  if (language) document.documentElement.lang = language;
  window.dispatchEvent(new Event(CHANGED));
  return true;
}

// Installed when the first component module loads, before any component listens, so the
// strings are set when the component handling the same message renders.
window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const message = event.data as { type?: unknown; l10n?: unknown } | null;
  if (message && typeof message === 'object' && message.type === 'init') applyL10n(message.l10n);
});

/** Renders its component again when the language arrives or changes. */
export class L10nController implements ReactiveController {
  private readonly host: ReactiveControllerHost;
  private readonly update = () => this.host.requestUpdate();

  constructor(host: ReactiveControllerHost) {
    this.host = host;
    host.addController(this);
  }

  hostConnected(): void {
    window.addEventListener(CHANGED, this.update);
  }

  hostDisconnected(): void {
    window.removeEventListener(CHANGED, this.update);
  }
}

/** One formatter per kind and options; an unknown language tag falls back to the browser's. */
function format<T extends Intl.DateTimeFormat | Intl.NumberFormat | Intl.RelativeTimeFormat>(
  key: string,
  make: (locale: string | undefined) => T,
): T {
  let formatter = formats.get(key) as T | undefined;
  if (!formatter) {
    try {
      formatter = make(language);
    } catch {
      formatter = make(undefined);
    }
    formats.set(key, formatter);
  }
  return formatter;
}

/** A count as the language writes it (1,234 · 1.234 · 1 234). */
export function formatNumber(value: number): string {
  return format('number', (l) => new Intl.NumberFormat(l)).format(value);
}

function parse(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A date and time; a string that is not a date stays as written. */
export function formatDateTime(value: string | undefined): string {
  const date = parse(value);
  if (!date) return value ?? '';
  return format(
    'datetime',
    (l) => new Intl.DateTimeFormat(l, { dateStyle: 'medium', timeStyle: 'short' }),
  ).format(date);
}

/** The time of day (transcript rows); a string that is not a date stays as written. */
export function formatTime(value: string | undefined): string {
  const date = parse(value);
  if (!date) return value ?? '';
  return format('time', (l) => new Intl.DateTimeFormat(l, { timeStyle: 'medium' })).format(date);
}

/** A local day `YYYY-MM-DD` (dashboard series) in the language's short date form. */
export function formatDay(day: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return day;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return format(
    'day',
    (l) => new Intl.DateTimeFormat(l, { dateStyle: 'medium', timeZone: 'UTC' }),
  ).format(date);
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['week', 7 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];

/** How long ago (or how far ahead) a time is: "3 hours ago", "vor 3 Stunden". */
export function formatRelative(value: string | undefined, now = Date.now()): string {
  const date = parse(value);
  if (!date) return '';
  const seconds = (date.getTime() - now) / 1000;
  const [unit, size] = UNITS.find(([, s]) => Math.abs(seconds) >= s) ?? ['second', 1];
  return format('relative', (l) => new Intl.RelativeTimeFormat(l, { numeric: 'auto' })).format(
    Math.round(seconds / size),
    unit,
  );
}

/** A duration in minutes: "12 min". */
export function formatMinutes(minutes: number): string {
  return format(
    'minutes',
    (l) => new Intl.NumberFormat(l, { style: 'unit', unit: 'minute', unitDisplay: 'short' }),
  ).format(minutes);
}

/** A duration in seconds with one decimal: "4.2 s", "4,2 s". */
export function formatSeconds(seconds: number): string {
  return format(
    'seconds',
    (l) =>
      new Intl.NumberFormat(l, {
        style: 'unit',
        unit: 'second',
        unitDisplay: 'short',
        minimumFractionDigits: 1,
        maximumFractionDigits: 1,
      }),
  ).format(seconds);
}
