import { Marked } from 'marked';
import type * as vscode from 'vscode';
import { plainSurfaceText } from '../../../src/domain/surfaceText.ts';

/*
 * What VS Code makes of extension text on its own surfaces (see
 * test/unit/domain/surfaceText.test.ts, where these parsers are pinned):
 * - LINKS: notifications, progress titles and input prompts turn `[label](https:…|command:…|file:…)`
 *   into a clickable link.
 * - ICONS: quick picks, the status bar and input prompts turn `$(name)` into an icon.
 * - Markdown (tooltips; quick-pick descriptions and details repeat in a Markdown hover)
 *   goes through marked with GFM.
 */
const LINKS = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/i;
const ICONS = /(\\)?\$\(([A-Za-z0-9-]+(?:~[A-Za-z]+)?)\)/g;
const HIDDEN =
  /[\u200B\u202A-\u202E\u2066-\u2069\uFEFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Tags our own Markdown renders to; anything else came from data. */
const OWN_TAGS = new Set(['p', 'strong', 'em', 'code', 'ul', 'ol', 'li', 'br', 'hr']);
const marked = new Marked({ gfm: true });
const escapeHtml = (text: string) =>
  text.replace(/[<>&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!);

export interface PlainOptions {
  /** Longest text accepted (the sanitiser's bounds plus our own words). */
  max: number;
  /** Our own icons allowed at the very start (status bar, own picks). */
  ownIcons?: readonly string[];
  /** VS Code repeats it in a Markdown hover (quick-pick description and detail). */
  hover?: boolean;
}

/**
 * Checks every text the extension put on a VS Code surface and counts them, per surface,
 * with the payloads of the hostile corpus each one carried (recognised by a prefix of the
 * payload as the sanitiser shows it).
 */
export class SurfaceAudit {
  readonly failures: string[] = [];
  private readonly texts = new Map<string, number>();
  private readonly carrying = new Map<string, number>();
  private readonly payloadsSeen = new Map<string, Set<number>>();
  private readonly keys: { key: string; index: number }[];

  constructor(payloads: readonly string[]) {
    this.keys = payloads
      .map((payload, index) => ({ key: shownKey(payload), index }))
      .filter(({ key }) => key.length >= 8);
  }

  plain(surface: string, text: string | undefined, options: PlainOptions): void {
    if (text === undefined || text === '') return;
    const where = `${surface}: ${JSON.stringify(text.slice(0, 120))}`;
    if (LINKS.test(text)) this.fail(`${where}: a link forms`);
    for (const match of text.matchAll(ICONS)) {
      if (match[1]) continue;
      const own = match.index === 0 && (options.ownIcons ?? []).includes(match[2]!);
      if (!own) this.fail(`${where}: an icon forms ($(${match[2]}))`);
    }
    if (HIDDEN.test(text)) this.fail(`${where}: bidi, zero-width or lone surrogate characters`);
    if (text.length > options.max) this.fail(`${where}: ${text.length} characters`);
    if (options.hover) {
      const html = marked.parse(escapeHtml(text), { async: false });
      if (/<a\s|<img\s/i.test(html)) this.fail(`${where}: its Markdown hover links`);
    }
    this.count(surface, text);
  }

  markdown(surface: string, tooltip: string | vscode.MarkdownString | undefined): void {
    if (tooltip === undefined) return;
    if (typeof tooltip === 'string') {
      this.plain(surface, tooltip, { max: 10_000 });
      return;
    }
    const where = `${surface}: ${JSON.stringify(tooltip.value.slice(0, 120))}`;
    if (tooltip.isTrusted) this.fail(`${where}: trusted Markdown`);
    if (tooltip.supportHtml) this.fail(`${where}: HTML enabled`);
    if (tooltip.supportThemeIcons) this.fail(`${where}: icons enabled`);
    if (HIDDEN.test(tooltip.value)) this.fail(`${where}: bidi or zero-width characters`);
    if (tooltip.value.length > 10_000) this.fail(`${where}: ${tooltip.value.length} characters`);
    const html = marked.parse(tooltip.value, { async: false });
    for (const [, tag] of html.matchAll(/<([a-z][a-z0-9]*)/gi)) {
      if (!OWN_TAGS.has(tag!.toLowerCase())) this.fail(`${where}: renders <${tag}>`);
    }
    this.count(surface, tooltip.value.replace(/\\(.)/g, '$1'));
  }

  /** Per surface: texts checked, texts that carried a payload, distinct payloads seen. */
  table(): { surface: string; texts: number; carrying: number; payloads: number }[] {
    return [...this.texts].map(([surface, texts]) => ({
      surface,
      texts,
      carrying: this.carrying.get(surface) ?? 0,
      payloads: this.payloadsSeen.get(surface)?.size ?? 0,
    }));
  }

  distinctPayloads(): number {
    return new Set([...this.payloadsSeen.values()].flatMap((s) => [...s])).size;
  }

  private count(surface: string, text: string): void {
    this.texts.set(surface, (this.texts.get(surface) ?? 0) + 1);
    const shown = text.replaceAll('\u2060', '');
    let carried = false;
    for (const { key, index } of this.keys) {
      if (!shown.includes(key)) continue;
      carried = true;
      let seen = this.payloadsSeen.get(surface);
      if (!seen) this.payloadsSeen.set(surface, (seen = new Set()));
      seen.add(index);
    }
    if (carried) this.carrying.set(surface, (this.carrying.get(surface) ?? 0) + 1);
  }

  private fail(message: string): void {
    if (this.failures.length < 200) this.failures.push(message);
  }
}

/** The start of a payload as a surface shows it: sanitised, without the invisible joiners. */
function shownKey(payload: string): string {
  return plainSurfaceText(payload, { maxLength: 48 })
    .replace(/…$/, '')
    .replaceAll('\u2060', '')
    .trim();
}
