import * as vscode from 'vscode';
import type { ExportFormat } from '../domain/export/transcriptExport.ts';
import type { SourceAdapters } from '../sources/sourceFactory.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import type { CommandBodies } from './lazyBodies.ts';

export const EXPORT_COMMAND = 'sessionInspector.exportTranscript';

export interface ExportDeps {
  store: SessionStore;
  adapters: () => SourceAdapters;
  /** Where downloaded transcripts are cached (the extension's global storage). */
  storageDir: string;
  version: string;
}

/** What the command resolves with (the integration test reads it); undefined when nothing was written. */
export interface ExportOutcome {
  uri: vscode.Uri;
  format: ExportFormat;
  entries: number;
  subagents: number;
  failed: string[];
  bytes: number;
}

/** Optional third argument: skips the questions (tests, the panel's own choices). */
export interface ExportOptions {
  format?: ExportFormat;
  includeSubagents?: boolean;
}

/** "Export Transcript…" (bodies/export.ts, read from dist/commands.cjs on first use). */
export function registerExportCommands(
  deps: ExportDeps & { bodies: () => CommandBodies },
): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(
      EXPORT_COMMAND,
      (arg?: unknown, target?: unknown, options?: ExportOptions) =>
        deps.bodies().exportCommand(deps, arg, target, options),
    ),
  ];
}
