/**
 * Code block highlighting with highlight.js (core only in the main bundle). A language is
 * loaded the first time a block asks for it, from dist/webview/hljs/<name>.js next to the
 * bundle (see hljsLanguages.ts); until then, and for unknown languages, a block is plain
 * text. Nothing is guessed (no auto-detection over big blocks).
 *
 * highlight.js answers with HTML: escaped text and `<span class="hljs-…">`. That string is
 * never given to innerHTML: parseHighlighted turns it into a tree of class names and text,
 * which markdownView.ts binds as text, so a highlighter bug could at worst mis-colour.
 */
import hljs from 'highlight.js/lib/core';
import type { LanguageFn } from 'highlight.js';
import { HLJS_EMBEDS, HLJS_LANGUAGES, languageOfInfo } from './hljsLanguages.ts';

/** Bigger blocks are shown plain: highlighting is linear, but this runs while a row draws. */
export const MAX_HIGHLIGHT_CHARS = 20_000;

export type HlNode = string | { cls: string; children: HlNode[] };

const loading = new Set<string>();
const failed = new Set<string>();
const listeners = new Set<() => void>();
let version = 0;

/** Bumped whenever a language arrives (or fails): rendered code may change. */
export function highlightVersion(): number {
  return version;
}

/** Calls `listener` when a language has loaded; returns the unsubscribe. */
export function onLanguageLoaded(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Where a language's module is: next to this bundle, by a name from HLJS_LANGUAGES only. */
function moduleUrl(name: string): string {
  return new URL(`./hljs/${name}.js`, import.meta.url).href;
}

async function register(name: string): Promise<void> {
  if (hljs.getLanguage(name)) return;
  const module = (await import(moduleUrl(name))) as { default?: unknown };
  if (typeof module.default !== 'function') throw new Error(`hljs/${name}.js has no language`);
  hljs.registerLanguage(name, module.default as LanguageFn);
}

function load(name: string): void {
  if (loading.has(name) || failed.has(name) || !Object.hasOwn(HLJS_LANGUAGES, name)) return;
  loading.add(name);
  const done = (ok: boolean) => {
    loading.delete(name);
    if (!ok) failed.add(name);
    version++;
    for (const listener of listeners) listener();
  };
  // The embedded languages (xml's css and javascript) may fail alone: the block still shows.
  void Promise.all([
    register(name),
    ...(HLJS_EMBEDS[name] ?? []).map((embed) => register(embed).catch(() => undefined)),
  ]).then(
    () => done(true),
    () => done(false),
  );
}

/**
 * The highlighted tree of a code block, or undefined when it stays plain: an unknown
 * language, a block too big, or a language still on its way (then it is asked for, and
 * onLanguageLoaded listeners hear when to draw again).
 */
export function highlightCode(code: string, info: string): HlNode[] | undefined {
  const name = languageOfInfo(info);
  if (!name || code.length > MAX_HIGHLIGHT_CHARS) return undefined;
  if (!hljs.getLanguage(name)) {
    load(name);
    return undefined;
  }
  try {
    return parseHighlighted(hljs.highlight(code, { language: name, ignoreIllegals: true }).value);
  } catch {
    return undefined;
  }
}

const SPAN = /<span class="([\w -]{1,80})">|<\/span>/g;
const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#x27;': "'",
  '&#39;': "'",
};

/**
 * highlight.js's output as a tree: its spans become nodes with their classes, everything
 * else is text with highlight.js's escapes undone. Anything that is not one of its spans
 * stays text.
 */
export function parseHighlighted(output: string): HlNode[] {
  const root: HlNode[] = [];
  const stack: HlNode[][] = [root];
  let last = 0;
  const text = (end: number) => {
    if (end > last) {
      stack[stack.length - 1]!.push(
        output.slice(last, end).replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, (e) => ENTITIES[e]!),
      );
    }
  };
  for (const match of output.matchAll(SPAN)) {
    text(match.index);
    last = match.index + match[0].length;
    if (match[1] !== undefined) {
      const node = { cls: match[1], children: [] as HlNode[] };
      stack[stack.length - 1]!.push(node);
      stack.push(node.children);
    } else if (stack.length > 1) {
      stack.pop();
    }
  }
  text(output.length);
  return root;
}
