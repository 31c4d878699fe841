import type { SessionSummary } from '../domain/session.ts';

/**
 * Commands run from a tree node, from a webview (with an id) or from the palette
 * (no argument). These read what a command was given.
 */

/** A connection id from an id string, a connection/group node, or a session node. */
export function connectionIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg || undefined;
  if (!arg || typeof arg !== 'object') return undefined;
  const node = arg as { connectionId?: unknown; session?: { connectionId?: unknown } };
  if (typeof node.connectionId === 'string') return node.connectionId;
  if (typeof node.session?.connectionId === 'string') return node.session.connectionId;
  return undefined;
}

/** The session of a session (or manual-task) node. */
export function sessionOf(arg: unknown): SessionSummary | undefined {
  if (arg && typeof arg === 'object' && 'session' in arg) {
    return (arg as { session: SessionSummary }).session;
  }
  return undefined;
}
