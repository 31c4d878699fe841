/**
 * Small Markdown helpers for exports: fences that cannot be closed by the text they hold,
 * inline code that cannot be broken out of, and a scan for fences a text leaves open.
 */

/** A fence of backticks longer than any run of backticks in `text` (at least three). */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** `text` as one fenced code block that nothing inside it can close. */
export function fenced(text: string, info = ''): string {
  const fence = fenceFor(text);
  const body = text.endsWith('\n') ? text : `${text}\n`;
  return `${fence}${info}\n${body}${fence}\n`;
}

/** One line of untrusted text as an inline code span (newlines become spaces). */
export function inlineCode(text: string): string {
  const line = text.replace(/[\r\n]+/g, ' ');
  if (line === '') return '';
  let longest = 0;
  for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const ticks = '`'.repeat(longest + 1);
  const pad = line.startsWith('`') || line.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${line}${pad}${ticks}`;
}

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

export interface FencePart {
  kind: 'text' | 'code';
  text: string;
  /** The info string after the opening fence (a language name, usually). */
  info?: string;
  /** A code block the text never closed; `fence` is its opening fence. */
  open?: boolean;
  fence?: string;
}

/**
 * Text split into prose and fenced code blocks (CommonMark fences: ``` or ~~~, three or
 * more, up to three spaces of indent). A fence left open runs to the end of the text.
 */
export function splitFences(text: string): FencePart[] {
  const parts: FencePart[] = [];
  const lines = text.split('\n');
  let prose: string[] = [];
  let code: string[] | undefined;
  let opener = '';
  let info = '';
  for (const line of lines) {
    const match = FENCE_LINE.exec(line);
    if (code === undefined) {
      // A backtick fence's info string cannot contain a backtick.
      if (match && !(match[1]![0] === '`' && match[2]!.includes('`'))) {
        if (prose.length) parts.push({ kind: 'text', text: prose.join('\n') });
        prose = [];
        code = [];
        opener = match[1]!;
        info = match[2]!.trim();
      } else prose.push(line);
      continue;
    }
    const closes =
      match &&
      match[1]![0] === opener[0] &&
      match[1]!.length >= opener.length &&
      match[2]!.trim() === '';
    if (closes) {
      parts.push({ kind: 'code', text: code.join('\n'), info });
      code = undefined;
    } else code.push(line);
  }
  if (code !== undefined)
    parts.push({ kind: 'code', text: code.join('\n'), info, open: true, fence: opener });
  else if (prose.length) parts.push({ kind: 'text', text: prose.join('\n') });
  return parts;
}

/**
 * Markdown text kept as written, with a fence it leaves open closed at its end, so the
 * entries after it are not swallowed into a code block.
 */
export function closeOpenFence(text: string): string {
  const parts = splitFences(text);
  const last = parts[parts.length - 1];
  if (!last?.open || !last.fence) return text;
  const closing = last.fence;
  return `${text}${text.endsWith('\n') ? '' : '\n'}${closing}`;
}
