/**
 * Text that a server, a transcript or a settings file chose, made safe for VS Code's own
 * surfaces. No vscode import: the rules are unit-tested against VS Code's own parsers.
 *
 * The rule: backend text reaches a notification, a progress title, a modal, a quick-pick
 * item, an input prompt, a tree item, the status bar or a tab title only through
 * plainSurfaceText, and a MarkdownString only through markdownSurfaceText. VS Code turns
 * `[label](command:…)` into a link that runs a command with the server's arguments
 * (notifications, progress, input prompts, Markdown hovers), `$(name)` into an icon (quick
 * picks, the status bar, input prompts), and bidi controls reorder what the user reads.
 *
 * What it does, and what it leaves alone:
 * - `](` and `$(` get an invisible WORD JOINER between their characters, so no link and no
 *   icon can form while the text reads exactly as before. (A backslash escape would not do:
 *   notifications, tree labels and tabs show it.)
 * - Bidi controls, zero-width and other invisible format characters (and the invisible
 *   "tag" characters) are removed; ZWJ/ZWNJ stay, as scripts and emoji need them.
 * - Lone surrogates become U+FFFD; control characters are removed; line breaks and tabs
 *   become spaces (single-line surfaces) or stay line breaks (`multiline`, modal details).
 * - Long text is cut with an ellipsis; only a bounded prefix is ever looked at, so a 1 MB
 *   name costs what a short one does.
 * - HTML is left as text: none of these surfaces renders it (Markdown escapes it below).
 * Applying it twice gives the same text.
 */

/** Names inside sentences, quick picks, tree labels, tab titles and persisted intents. */
export const LABEL_MAX_LENGTH = 100;
/** Longer single values: an error message inside a sentence, a tooltip line. */
export const DETAIL_MAX_LENGTH = 300;
/** A whole message (VS Code itself cuts notifications at 1000 characters). */
export const MESSAGE_MAX_LENGTH = 1000;

export interface SurfaceTextOptions {
  /** Longest result in UTF-16 code units, the ellipsis included (default MESSAGE_MAX_LENGTH). */
  maxLength?: number;
  /** Keep line breaks (modal details); otherwise every line break becomes a space. */
  multiline?: boolean;
  /**
   * Also break bare URLs and e-mail addresses (`https:⁠//…`, `www⁠.`, `a@⁠b`): for quick-pick
   * descriptions and details, which VS Code repeats in a Markdown hover that links them.
   */
  breakUrls?: boolean;
}

const WORD_JOINER = '\u2060';
const ELLIPSIS = '…';

/**
 * Removed everywhere: bidi embeddings, overrides, isolates and marks (U+061C, U+200E/F,
 * U+202A–E, U+2066–9), zero-width space and word joiner family (U+200B, U+2060–4, U+FEFF),
 * soft hyphen, Mongolian vowel separator, deprecated format controls (U+206A–F),
 * interlinear annotations (U+FFF9–B) and tag characters (U+E0000–7F, "ASCII smuggling").
 */
const INVISIBLE =
  /[\u00AD\u061C\u180E\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB\u{E0000}-\u{E007F}]/gu;
/** Characters that end a line or act like whitespace in a single-line surface. */
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]/g;
const CONTROLS = /\p{Cc}/gu;

export function plainSurfaceText(text: unknown, options: SurfaceTextOptions = {}): string {
  const max = Math.max(1, Math.floor(options.maxLength ?? MESSAGE_MAX_LENGTH));
  let s = typeof text === 'string' ? text : text === undefined || text === null ? '' : String(text);
  // Invisible characters only shrink the text, so a few times the limit is always enough.
  const window = max * 4 + 64;
  const longer = s.length > window;
  if (longer) s = s.slice(0, cutPoint(s, window));
  s = s.toWellFormed().replace(INVISIBLE, '');
  if (options.multiline) {
    s = s
      .replace(/\r\n?|[\u0085\u2028\u2029]/g, '\n')
      .replace(/[\t\v\f]/g, ' ')
      .replace(CONTROLS, (c) => (c === '\n' ? c : ''))
      .replace(/[^\S\n]+/g, ' ')
      .replace(/ *\n */g, '\n')
      .trim();
  } else {
    s = s.replace(BREAKS, ' ').replace(CONTROLS, '').replace(/\s+/g, ' ').trim();
  }
  s = s.replace(/\]\(/g, `]${WORD_JOINER}(`).replace(/\$\(/g, `$${WORD_JOINER}(`);
  if (options.breakUrls) {
    s = s
      .replace(/\b((?:https?|ftp|file|command|vscode[\w.-]*):)(?=\/\/)/gi, `$1${WORD_JOINER}`)
      .replace(/\b(www)\./gi, `$1${WORD_JOINER}.`)
      .replace(/@(?=[\p{L}\p{N}])/gu, `@${WORD_JOINER}`);
  }
  if (!longer && s.length <= max) return s;
  return `${s.slice(0, cutPoint(s, max - ELLIPSIS.length)).trimEnd()}${ELLIPSIS}`;
}

/**
 * Markdown source that renders as exactly plainSurfaceText(text) (one line): every ASCII
 * punctuation character is backslash-escaped, which CommonMark renders as the character
 * itself, so no emphasis, heading, list, table, HTML, entity, link, image or autolink can
 * form, and no escape backslash is left visible. (MarkdownString.appendText escapes less:
 * it leaves `<`, `&` and `:` alone, so `<https://x>` and bare URLs become links that show
 * its backslashes.) Use it with appendMarkdown, on a MarkdownString that is not trusted
 * and has supportThemeIcons and supportHtml off.
 */
export function markdownSurfaceText(
  text: unknown,
  options: Omit<SurfaceTextOptions, 'multiline'> = {},
): string {
  return plainSurfaceText(text, { ...options, multiline: false }).replace(
    /[!-/:-@[-`{-~]/g,
    '\\$&',
  );
}

/** A cut at or before `at` that does not split a surrogate pair. */
function cutPoint(s: string, at: number): number {
  const end = Math.max(0, Math.min(at, s.length));
  const code = s.charCodeAt(end - 1);
  return end > 0 && end < s.length && code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** A name (session, task, connection, project) inside a sentence, a pick, a title or a tab. */
export function surfaceLabel(text: unknown): string {
  return plainSurfaceText(text, { maxLength: LABEL_MAX_LENGTH });
}

/** An error's message (often the server's words) inside a sentence. */
export function surfaceError(error: unknown): string {
  const message = error instanceof Error ? error.message : error;
  return plainSurfaceText(message, { maxLength: DETAIL_MAX_LENGTH });
}
