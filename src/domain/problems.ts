/**
 * How a source's problems (bad lines, unreadable files, missing folders) are summed up
 * for the log and listed in the tree, without vscode. The shape matches SourceProblem.
 */

export interface Problem {
  kind: string;
  message: string;
  path?: string;
  /** 1-based. */
  line?: number;
}

/** Problem rows listed under a connection before an "and N more — see the log" row. */
export const PROBLEM_ROWS = 200;

/** "7 problems (invalid-json 4, truncated-line 2, unreadable 1)"; kinds by count, then name. */
export function summarizeProblems(problems: readonly Problem[]): string {
  if (problems.length === 0) return 'no problems';
  const counts = new Map<string, number>();
  for (const p of problems) counts.set(p.kind, (counts.get(p.kind) ?? 0) + 1);
  const kinds = [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  return `${problems.length} problem${problems.length === 1 ? '' : 's'} (${kinds})`;
}

/** "path:line kind: message", one line for the log. */
export function problemLogLine(problem: Problem): string {
  const where = problem.path ? `${problem.path}${problem.line ? `:${problem.line}` : ''} ` : '';
  return `${where}${problem.kind}: ${problem.message.replace(/\s+/g, ' ')}`;
}

export interface ProblemRowModel {
  label: string;
  /** "file.jsonl:12", or the kind when the problem has no path. */
  description: string;
  /** The full path (with :line) and the kind. */
  tooltip: string;
  /** A file that can be opened (at `line` when there is one); folders and others cannot. */
  file: string | undefined;
  line: number | undefined;
}

export function problemRow(problem: Problem): ProblemRowModel {
  const path = problem.path;
  const name = path ? baseName(path) : undefined;
  const line = problem.line && problem.line > 0 ? problem.line : undefined;
  const at = line ? `:${line}` : '';
  return {
    label: problem.message.replace(/\s+/g, ' ').trim() || problem.kind,
    description: name ? `${name}${at}` : problem.kind,
    tooltip: path ? `${path}${at}\n${problem.kind}` : problem.kind,
    file: path && /\.jsonl?$/i.test(path) ? path : undefined,
    line,
  };
}

function baseName(path: string): string {
  return (
    path
      .replaceAll('\\', '/')
      .split('/')
      .filter((s) => s !== '')
      .at(-1) ?? path
  );
}
