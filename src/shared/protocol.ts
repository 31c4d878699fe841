/**
 * The one message protocol between the extension host and the session webview.
 * Imported by both sides; every message is a member of these unions, so a
 * misspelt type or field fails to compile on either side. Messages from the
 * webview are checked by isWebviewMessage before the host acts on them.
 */
import type { SessionSummary } from '../domain/session.ts';

/** What the session can do from the panel; the host decides from the backend's capabilities. */
export interface SessionActions {
  complete: boolean;
  interrupt: boolean;
}

export interface SessionView {
  session: SessionSummary;
  connectionLabel: string;
  /** Pre-formatted in the host so both sides agree on wording. */
  cost: string;
  actions: SessionActions;
}

/** An Itential manual task as the panel shows it. Every text field is untrusted. */
export interface ManualTaskView {
  id: string;
  header?: string;
  message?: string;
  body?: string;
  variables?: Record<string, unknown>;
  viewType?: string;
  successLabel?: string;
  failureLabel?: string;
  completionSupported: boolean;
}

/** Host → webview. */
export type HostMessage =
  | { type: 'session'; view: SessionView }
  | { type: 'loading' }
  | { type: 'failed'; message: string }
  | { type: 'manualTask'; task: ManualTaskView }
  | { type: 'manualTaskFailed'; id: string; message: string };

/** Webview → host. `ready` is the handshake: the host posts nothing before it. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'refresh' }
  | { type: 'complete' }
  | { type: 'cancel' }
  | { type: 'interrupt' }
  | { type: 'openManualTask'; id: string }
  | { type: 'finishManualTask'; id: string; finish: 'success' | 'failure' };

const SIMPLE = new Set(['ready', 'refresh', 'complete', 'cancel', 'interrupt']);

export function isWebviewMessage(value: unknown): value is WebviewMessage {
  if (!value || typeof value !== 'object') return false;
  const message = value as { type?: unknown; id?: unknown; finish?: unknown };
  if (typeof message.type !== 'string') return false;
  if (SIMPLE.has(message.type)) return true;
  if (message.type === 'openManualTask') return typeof message.id === 'string';
  if (message.type === 'finishManualTask') {
    return (
      typeof message.id === 'string' &&
      (message.finish === 'success' || message.finish === 'failure')
    );
  }
  return false;
}

/** What the webview persists so the panel can be restored after a reload. */
export interface PanelState {
  connectionId: string;
  sessionId: string;
}

export function isPanelState(value: unknown): value is PanelState {
  return (
    !!value &&
    typeof (value as PanelState).connectionId === 'string' &&
    typeof (value as PanelState).sessionId === 'string'
  );
}
