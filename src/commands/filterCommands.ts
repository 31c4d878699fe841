import * as vscode from 'vscode';
import type { SessionFilters } from '../domain/filters.ts';
import {
  FILTER_QUALITIES,
  FILTER_SCOPES,
  FILTER_STATUSES,
  validateFilters,
} from '../domain/filters.ts';
import { surfaceLabel } from '../domain/surfaceText.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import { showInformation, showWarning } from '../views/safeMessage.ts';
import type { SessionsTreeProvider } from '../views/sessionsTree.ts';
import { connectionIdOf } from './commandArgs.ts';

type FilterField =
  | 'harness'
  | 'status'
  | 'dates'
  | 'quality'
  | 'scope'
  | 'userId'
  | 'workspaceOnly'
  | 'clear'
  | 'apply';

/** What the filter QuickPick edits: one connection's filters and the view's workspace toggle. */
interface FilterChoice {
  filters: SessionFilters;
  workspaceOnly: boolean;
}

/**
 * Filters per connection (QuickPicks, validated before any request) and the tree's own:
 * text, and "this workspace only" (every connection).
 */
export function registerFilterCommands(
  store: SessionStore,
  tree: SessionsTreeProvider,
): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('sessionInspector.setFilters', async (arg?: unknown) => {
      const id = connectionIdOf(arg) ?? (await pickConnection(store));
      const state = id ? store.state(id) : undefined;
      if (!id || !state) return;
      const edited = await editFilters(
        { filters: { ...state.filters }, workspaceOnly: tree.workspaceOnly },
        tree.workspaceFolders.length > 0,
      );
      if (!edited) return;
      await tree.setWorkspaceOnly(edited.workspaceOnly);
      await store.setFilters(id, edited.filters);
    }),
    vscode.commands.registerCommand('sessionInspector.showWorkspaceOnly', async () => {
      if (tree.workspaceFolders.length === 0) {
        void showInformation(
          vscode.l10n.t(
            'No folder is open, so there is no workspace to show sessions of. Open a folder first; all sessions stay listed.',
          ),
        );
        return;
      }
      await tree.setWorkspaceOnly(true);
    }),
    vscode.commands.registerCommand('sessionInspector.showAllProjects', () =>
      tree.setWorkspaceOnly(false),
    ),
    vscode.commands.registerCommand('sessionInspector.filterText', async () => {
      const text = await vscode.window.showInputBox({
        title: vscode.l10n.t('Filter Sessions'),
        prompt: vscode.l10n.t(
          'Show sessions whose name, harness, model, repository, user or branch contains this text.',
        ),
        value: tree.textFilter,
      });
      if (text !== undefined) tree.setTextFilter(text);
    }),
    vscode.commands.registerCommand('sessionInspector.clearFilters', async () => {
      tree.setTextFilter('');
      await tree.setWorkspaceOnly(false);
      await Promise.all(
        store
          .connections()
          .filter((c) => Object.keys(c.filters).length > 0)
          .map((c) => store.setFilters(c.config.id, {})),
      );
    }),
    vscode.commands.registerCommand(
      'sessionInspector.showMoreInGroup',
      (connectionId: string, group: string) => tree.showMore(connectionId, group),
    ),
  ];
}

async function pickConnection(store: SessionStore): Promise<string | undefined> {
  const all = store.connections();
  if (all.length <= 1) return all[0]?.config.id;
  const picked = await vscode.window.showQuickPick(
    all.map((c) => ({ label: surfaceLabel(c.config.label), id: c.config.id })),
    { placeHolder: vscode.l10n.t('Filter which connection?') },
  );
  return picked?.id;
}

/** A small loop: pick a field, edit it, come back; "Apply" validates and returns. */
async function editFilters(
  choice: FilterChoice,
  hasWorkspace: boolean,
): Promise<FilterChoice | undefined> {
  let filters = choice.filters;
  let workspaceOnly = choice.workspaceOnly;
  for (;;) {
    const problem = validateFilters(filters);
    const picked = await vscode.window.showQuickPick(
      filterItems(filters, workspaceOnly, hasWorkspace, problem),
      {
        title: vscode.l10n.t('Session Filters'),
        placeHolder: problem ?? vscode.l10n.t('Pick a filter to change, then Apply'),
      },
    );
    if (!picked) return undefined;
    switch (picked.field) {
      case 'apply':
        if (!problem) return { filters, workspaceOnly };
        void showWarning(problem);
        break;
      case 'clear':
        filters = {};
        workspaceOnly = false;
        break;
      case 'workspaceOnly':
        if (hasWorkspace) workspaceOnly = !workspaceOnly;
        else
          void showInformation(
            vscode.l10n.t('No folder is open, so there is no workspace to show sessions of.'),
          );
        break;
      default:
        await FIELD_EDITORS[picked.field](filters);
    }
  }
}

/** The loop's rows: Apply, one per filter with its current value, Clear. */
function filterItems(
  filters: SessionFilters,
  workspaceOnly: boolean,
  hasWorkspace: boolean,
  problem: string | undefined,
): (vscode.QuickPickItem & { field: FilterField })[] {
  return [
    { field: 'apply', label: `$(check) ${vscode.l10n.t('Apply')}`, detail: problem },
    {
      field: 'harness',
      label: vscode.l10n.t('Harness'),
      description: filters.harness ?? vscode.l10n.t('any'),
    },
    {
      field: 'status',
      label: vscode.l10n.t('Status'),
      description: filters.status ?? vscode.l10n.t('any'),
    },
    {
      field: 'dates',
      label: vscode.l10n.t('Last activity between'),
      description: `${filters.startDate ?? '…'} – ${filters.endDate ?? '…'}`,
    },
    {
      field: 'quality',
      label: vscode.l10n.t('Quality'),
      description: filters.quality ?? 'substantive',
    },
    {
      field: 'scope',
      label: vscode.l10n.t('Viewer scope'),
      description: filters.viewerScope
        ? `${filters.viewerScope}${filters.teamId ? ` (${filters.teamId})` : ''}`
        : vscode.l10n.t('server default'),
    },
    {
      field: 'userId',
      label: vscode.l10n.t('User ID'),
      description: filters.userId ?? vscode.l10n.t('any'),
    },
    {
      field: 'workspaceOnly',
      label: vscode.l10n.t('This workspace only'),
      description: hasWorkspace
        ? workspaceOnly
          ? vscode.l10n.t('on (every connection)')
          : vscode.l10n.t('off')
        : vscode.l10n.t('no folder open'),
    },
    { field: 'clear', label: `$(clear-all) ${vscode.l10n.t('Clear all filters')}` },
  ];
}

/** Each filter's editor: asks for a new value and sets it on `filters`; a dismissal leaves it. */
const FIELD_EDITORS: Record<
  Exclude<FilterField, 'apply' | 'clear' | 'workspaceOnly'>,
  (filters: SessionFilters) => Promise<void>
> = {
  harness: editHarness,
  status: editStatus,
  quality: editQuality,
  dates: editDates,
  scope: editScope,
  userId: editUserId,
};

async function editHarness(filters: SessionFilters): Promise<void> {
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Harness'),
    prompt: vscode.l10n.t('e.g. claude-code or codex; empty for any'),
    value: filters.harness,
  });
  if (value !== undefined) filters.harness = value.trim() || undefined;
}

async function editStatus(filters: SessionFilters): Promise<void> {
  const value = await pickOne(['any', ...FILTER_STATUSES], filters.status);
  if (value) filters.status = value === 'any' ? undefined : (value as SessionFilters['status']);
}

async function editQuality(filters: SessionFilters): Promise<void> {
  const value = await pickOne(FILTER_QUALITIES, filters.quality);
  if (value) filters.quality = value as SessionFilters['quality'];
}

async function editDates(filters: SessionFilters): Promise<void> {
  const start = await dateInput(
    vscode.l10n.t('From (ISO date, empty for open)'),
    filters.startDate,
  );
  if (start === undefined) return;
  const end = await dateInput(vscode.l10n.t('Until (ISO date, empty for open)'), filters.endDate);
  if (end === undefined) return;
  filters.startDate = start || undefined;
  filters.endDate = end || undefined;
}

/** A team scope asks for its team id too; any other scope drops it. */
async function editScope(filters: SessionFilters): Promise<void> {
  const value = await pickOne(['server default', ...FILTER_SCOPES], filters.viewerScope);
  if (!value) return;
  if (value === 'team') {
    const team = await vscode.window.showInputBox({
      title: vscode.l10n.t('Team ID'),
      prompt: vscode.l10n.t("The team's UUID (required for the team scope)"),
      value: filters.teamId,
      validateInput: (v) => validateFilters({ viewerScope: 'team', teamId: v.trim() }) ?? undefined,
    });
    if (team === undefined) return;
    filters.viewerScope = 'team';
    filters.teamId = team.trim();
  } else {
    filters.viewerScope =
      value === 'server default' ? undefined : (value as SessionFilters['viewerScope']);
    filters.teamId = undefined; // a team id goes with the team scope only
  }
}

async function editUserId(filters: SessionFilters): Promise<void> {
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('User ID'),
    prompt: vscode.l10n.t("A user's UUID; empty for any"),
    value: filters.userId,
    validateInput: (v) => (v.trim() ? validateFilters({ userId: v.trim() }) : undefined),
  });
  if (value !== undefined) filters.userId = value.trim() || undefined;
}

async function pickOne(
  values: readonly string[],
  current: string | undefined,
): Promise<string | undefined> {
  const picked = await vscode.window.showQuickPick(
    values.map((v) => ({
      label: v,
      picked: v === current,
      description: v === current ? '✓' : undefined,
    })),
  );
  return picked?.label;
}

function dateInput(prompt: string, value: string | undefined): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    prompt,
    value,
    placeHolder: '2026-07-01',
    validateInput: (v) =>
      v.trim() && Number.isNaN(Date.parse(v.trim())) ? vscode.l10n.t('Not a date') : undefined,
  });
}
