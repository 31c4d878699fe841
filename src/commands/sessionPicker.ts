import * as vscode from 'vscode';
import type { SessionSummary } from '../domain/session.ts';
import { DETAIL_MAX_LENGTH, plainSurfaceText, surfaceLabel } from '../domain/surfaceText.ts';
import { showInformation } from '../views/safeMessage.ts';
import { statusLabel } from '../views/statusPresentation.ts';

/** How the palette's session pickers differ: what shows when there is none, and each row's detail. */
export interface SessionPickOptions {
  /** Shown instead of an empty QuickPick. */
  empty: string;
  /** Put the status before harness and repository (for lists that mix states). */
  withStatus?: boolean;
  detail?: (session: SessionSummary) => string | undefined;
  quickPick: vscode.QuickPickOptions;
}

/** Harness and repository as one plain line (both come from transcripts or a backend). */
export function sessionSurfaceLine(session: SessionSummary): string {
  return plainSurfaceText([session.harness, session.repository].filter(Boolean).join(' · '), {
    maxLength: DETAIL_MAX_LENGTH,
    breakUrls: true,
  });
}

/** One session picked from `sessions` in a QuickPick; undefined when none or dismissed. */
export async function pickSessionFrom(
  sessions: readonly SessionSummary[],
  options: SessionPickOptions,
): Promise<SessionSummary | undefined> {
  if (sessions.length === 0) {
    void showInformation(options.empty);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    sessions.map((session) => ({
      label: surfaceLabel(session.label),
      description: options.withStatus
        ? `${statusLabel(session.status.status)} · ${sessionSurfaceLine(session)}`
        : sessionSurfaceLine(session),
      detail: options.detail?.(session),
      session,
    })),
    options.quickPick,
  );
  return picked?.session;
}
