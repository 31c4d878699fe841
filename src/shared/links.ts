/**
 * What a link in transcript Markdown may do. The webview asks before it draws a link, and
 * the host asks again before it acts on one (the webview's word is not trusted).
 *
 * - http(s) URLs open in the browser, through VS Code (which asks about unknown sites);
 * - file paths open in the editor at their line: an absolute path, or any path with a
 *   line (`src/a.ts:12`, `src/a.ts#L12`); the host opens only files inside the workspace;
 * - everything else (javascript:, data:, vbscript:, mailto:, relative paths without a
 *   line, …) is shown as text.
 */
export type LinkTarget =
  | { kind: 'external'; url: string }
  | { kind: 'file'; path: string; line?: number }
  | { kind: 'text' };

const TEXT: LinkTarget = { kind: 'text' };
/** Longer links are text: nobody clicks a megabyte, and it bounds the work. */
const MAX_LINK = 2_048;
const MAX_LINE = 10_000_000;
/** `path:12`, `path:12:5`, `path:12-20`, `path#L12`, `path#L12-L20`, `path#L12C3`. */
const LINE_SUFFIX = /(?::(\d+)(?:[:-]\d+)?|#L(\d+)(?:C\d+)?(?:-L?\d+(?:C\d+)?)?)$/;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const DRIVE = /^[a-z]:[\\/]/i;

/** A URL the browser may open: http or https with a host, normalised; undefined otherwise. */
export function externalUrl(href: string): string | undefined {
  if (href.length > MAX_LINK || !/^https?:\/\//i.test(href.trim())) return undefined;
  try {
    const url = new URL(href.trim());
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

/** Where a link's target leads, by the policy above. */
export function classifyLink(raw: string): LinkTarget {
  const href = raw.trim();
  // Control characters and whitespace never belong to a link we open.
  if (!href || href.length > MAX_LINK || hasControlOrSpace(href, true)) return TEXT;
  if (/^https?:/i.test(href)) {
    const url = externalUrl(href);
    return url ? { kind: 'external', url } : TEXT;
  }
  if (href.startsWith('//') || href.startsWith('\\\\')) return TEXT; // another host
  const suffix = LINE_SUFFIX.exec(href);
  const path = decodePath(suffix ? href.slice(0, suffix.index) : href);
  if (!path || path.length > 1_024 || hasControlOrSpace(path, false)) return TEXT;
  const absolute = DRIVE.test(path) || path.startsWith('/');
  // `javascript:…`, `data:…`, `mailto:…`: a scheme, not a drive letter.
  if (!DRIVE.test(path) && SCHEME.test(path)) return TEXT;
  if (!absolute) {
    // A relative path needs a line, and must look like a file (`a.ts`, `dir/file`).
    if (!suffix || !(/[\\/]/.test(path) || /\.[A-Za-z0-9]{1,12}$/.test(path))) return TEXT;
  }
  const line = suffix ? Number(suffix[1] ?? suffix[2]) : undefined;
  if (line !== undefined && !(line >= 1 && line <= MAX_LINE)) return { kind: 'file', path };
  return line === undefined ? { kind: 'file', path } : { kind: 'file', path, line };
}

/**
 * A file reference written as inline code (`src/a.ts:12`, `/abs/file.ts`): a path with a
 * line, or an absolute path with an extension. Anything else is code, not a link.
 */
export function fileRefOfCode(code: string): LinkTarget {
  const text = code.trim();
  if (!text || text.length > 1_024 || /\s/.test(text)) return TEXT;
  if (!LINE_SUFFIX.test(text) && !/^(?:\/|[a-z]:[\\/]).*\.[A-Za-z0-9]{1,12}$/i.test(text)) {
    return TEXT;
  }
  return classifyLink(text);
}

/** C0/C1 control characters (and, with `space`, the space): never part of a link we act on. */
function hasControlOrSpace(text: string, space: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || (space && code === 0x20)) return true;
  }
  return false;
}

function decodePath(path: string): string {
  if (!path.includes('%')) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
