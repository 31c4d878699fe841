/**
 * The one message protocol between the extension host and the session webview.
 * Imported by both sides; every message is a member of these unions, so a
 * misspelt type or field fails to compile on either side.
 */
import type { SessionSummary } from '../domain/session.ts';

export interface SessionView {
  session: SessionSummary;
  connectionLabel: string;
  /** Pre-formatted in the host so both sides agree on wording. */
  cost: string;
}

/** Host → webview. */
export type HostMessage =
  | { type: 'session'; view: SessionView }
  | { type: 'loading' }
  | { type: 'failed'; message: string };

/** Webview → host. `ready` is the handshake: the host posts nothing before it. */
export type WebviewMessage = { type: 'ready' } | { type: 'refresh' };

export function isWebviewMessage(value: unknown): value is WebviewMessage {
  if (!value || typeof value !== 'object') return false;
  const type = (value as { type?: unknown }).type;
  return type === 'ready' || type === 'refresh';
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
