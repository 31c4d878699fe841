import * as vscode from 'vscode';
import type { MatchKind } from '../domain/search/classifyMatch.ts';
import { plainSurfaceText, surfaceLabel } from '../domain/surfaceText.ts';
import { relativeTime } from '../domain/format.ts';
import type { SearchHit, SearchSummary, SessionHits } from '../sources/search/sessionSearch.ts';

/**
 * The "Search Results" view: one node per session with matches (newest result first as
 * they stream in), its matches below with the matched text highlighted in one line of
 * context, the entry kind and time beside it. Transcript text is untrusted: every label
 * goes through the surface sanitiser, piece by piece so the highlight stays on the match.
 */
export type SearchNode =
  | { kind: 'session'; results: SessionHits }
  | { kind: 'hit'; results: SessionHits; hit: SearchHit }
  | { kind: 'more'; results: SessionHits };

export const OPEN_SEARCH_RESULT = 'sessionInspector.openSearchResult';

/** Sessions shown expanded; later ones start collapsed. */
const EXPANDED_SESSIONS = 20;
/** Tree refreshes while results stream in, at most this often. */
const REFRESH_MS = 150;

export class SearchResultsTree implements vscode.TreeDataProvider<SearchNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SearchNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private sessions: SessionHits[] = [];
  private readonly nodes = new Map<SessionHits, SearchNode>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private generation = 0;

  /** A new search: forget the old results. Returns the generation its updates must carry. */
  start(): number {
    this.sessions = [];
    this.nodes.clear();
    this.flush();
    return ++this.generation;
  }

  /** A session's results grew (the same object each time). */
  update(generation: number, results: SessionHits): void {
    if (generation !== this.generation) return;
    if (!this.nodes.has(results)) {
      this.nodes.set(results, { kind: 'session', results });
      this.sessions.push(results);
    }
    this.timer ??= setTimeout(() => this.flush(), REFRESH_MS);
  }

  clear(): void {
    this.generation++;
    this.sessions = [];
    this.nodes.clear();
    this.flush();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.changed.dispose();
  }

  /** Results shown now (integration tests). */
  snapshot(): readonly SessionHits[] {
    return this.sessions;
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.changed.fire(undefined);
  }

  getChildren(node?: SearchNode): SearchNode[] {
    if (!node) return this.sessions.map((s) => this.nodes.get(s)!);
    if (node.kind !== 'session') return [];
    const children: SearchNode[] = node.results.hits.map((hit) => ({
      kind: 'hit',
      results: node.results,
      hit,
    }));
    if (node.results.more > 0) children.push({ kind: 'more', results: node.results });
    return children;
  }

  getParent(node: SearchNode): SearchNode | undefined {
    return node.kind === 'session' ? undefined : this.nodes.get(node.results);
  }

  getTreeItem(node: SearchNode): vscode.TreeItem {
    if (node.kind === 'session') return this.sessionItem(node.results);
    if (node.kind === 'more') {
      const item = new vscode.TreeItem(
        vscode.l10n.t('{0} more matches not shown', node.results.more),
      );
      item.iconPath = new vscode.ThemeIcon('ellipsis');
      return item;
    }
    return hitItem(node);
  }

  private sessionItem(results: SessionHits): vscode.TreeItem {
    const { session, facts, origin } = results.target;
    const index = this.sessions.indexOf(results);
    const item = new vscode.TreeItem(
      surfaceLabel(session.label) || surfaceLabel(session.id),
      index < EXPANDED_SESSIONS
        ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed,
    );
    const count =
      results.hits.length === 1
        ? vscode.l10n.t('1 result')
        : vscode.l10n.t('{0} results', results.hits.length);
    const project = facts.project ? lastSegment(facts.project) : undefined;
    item.description = plainSurfaceText(
      [count, facts.harness, project].filter(Boolean).join(' · '),
      { maxLength: 200 },
    );
    item.tooltip = plainSurfaceText(
      [
        surfaceLabel(session.label),
        facts.project,
        origin === 'remote' ? vscode.l10n.t('Downloaded transcript') : results.target.path,
      ]
        .filter(Boolean)
        .join('\n'),
      { multiline: true, maxLength: 1000 },
    );
    item.iconPath = new vscode.ThemeIcon(origin === 'remote' ? 'cloud' : 'comment-discussion');
    item.contextValue = 'searchSession';
    item.id = `s:${results.target.key}`;
    return item;
  }
}

function hitItem(node: Extract<SearchNode, { kind: 'hit' }>): vscode.TreeItem {
  const { hit } = node;
  const { label, highlight } = safeSnippet(hit.snippet.text, hit.snippet.highlight);
  const item = new vscode.TreeItem({ label, highlights: [highlight] });
  const time = hit.timestamp ? relativeTime(hit.timestamp) : undefined;
  item.description = [kindLabel(hit.kind), time].filter(Boolean).join(' · ');
  item.tooltip = [
    vscode.l10n.t('Line {0}', hit.line),
    kindLabel(hit.kind),
    hit.timestamp ? new Date(hit.timestamp).toLocaleString() : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
  item.iconPath = new vscode.ThemeIcon(kindIcon(hit.kind));
  item.command = {
    command: OPEN_SEARCH_RESULT,
    title: vscode.l10n.t('Open in Session'),
    arguments: [node],
  };
  item.contextValue = 'searchHit';
  item.id = `h:${node.results.target.key}:${hit.offset}`;
  return item;
}

/**
 * The snippet through the surface sanitiser in three pieces (before, match, after), so
 * the highlight still covers the match after invisible characters are dropped.
 */
export function safeSnippet(
  text: string,
  [s, e]: [number, number],
): { label: string; highlight: [number, number] } {
  const piece = (raw: string) => {
    const clean = plainSurfaceText(raw, { maxLength: 400 });
    if (!clean) return /\s/.test(raw) ? ' ' : '';
    return `${/^\s/.test(raw) ? ' ' : ''}${clean}${/\s$/.test(raw) ? ' ' : ''}`;
  };
  const head = piece(text.slice(0, s)).trimStart();
  const match = piece(text.slice(s, e)).trim();
  const tail = piece(text.slice(e)).trimEnd();
  return { label: head + match + tail, highlight: [head.length, head.length + match.length] };
}

function lastSegment(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

export function kindLabel(kind: MatchKind): string {
  switch (kind) {
    case 'user':
      return vscode.l10n.t('User');
    case 'assistant':
      return vscode.l10n.t('Assistant');
    case 'thinking':
      return vscode.l10n.t('Thinking');
    case 'tool-call':
      return vscode.l10n.t('Tool call');
    case 'tool-output':
      return vscode.l10n.t('Tool output');
    case 'subagent':
      return vscode.l10n.t('Subagent');
    case 'compaction':
      return vscode.l10n.t('Compaction');
    case 'system':
      return vscode.l10n.t('System');
    case 'error':
      return vscode.l10n.t('Unreadable line');
    case 'metadata':
      return vscode.l10n.t('Metadata');
    case 'unknown':
      return vscode.l10n.t('Other record');
  }
}

function kindIcon(kind: MatchKind): string {
  switch (kind) {
    case 'user':
      return 'account';
    case 'assistant':
      return 'hubot';
    case 'thinking':
      return 'lightbulb';
    case 'tool-call':
    case 'tool-output':
      return 'tools';
    case 'subagent':
      return 'organization';
    case 'error':
      return 'warning';
    default:
      return 'symbol-misc';
  }
}

/** One line for the view's message when a search ends. */
export function summaryText(summary: SearchSummary, query: string): string {
  const q = plainSurfaceText(query, { maxLength: 60 });
  let text =
    summary.results === 0
      ? vscode.l10n.t('No results for "{0}" in {1} transcripts.', q, summary.files)
      : summary.results === 1
        ? vscode.l10n.t('1 result for "{0}" ({1} transcripts searched).', q, summary.files)
        : summary.sessions === 1
          ? vscode.l10n.t(
              '{0} results in 1 session for "{1}" ({2} transcripts searched).',
              summary.results,
              q,
              summary.files,
            )
          : vscode.l10n.t(
              '{0} results in {1} sessions for "{2}" ({3} transcripts searched).',
              summary.results,
              summary.sessions,
              q,
              summary.files,
            );
  if (summary.hidden > 0)
    text += ` ${vscode.l10n.t('{0} matches only in ids, paths or other metadata are left out.', summary.hidden)}`;
  if (summary.truncated) text += ` ${vscode.l10n.t('Stopped at the result limit.')}`;
  if (summary.cancelled) text += ` ${vscode.l10n.t('Search cancelled.')}`;
  return text;
}
