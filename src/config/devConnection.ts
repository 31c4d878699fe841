import type { Logger } from '../util/logger.ts';
import type { ConnectionRegistry } from './connectionRegistry.ts';
import type { TokenStore } from './tokenStore.ts';
import { addReferenceBackend, referenceBackendConnections } from './demoConnections.ts';

export const DEV_CONNECTION_ID = 'reference-backend';

/**
 * `npm start` and the integration tests run the reference backend and pass its
 * address and a per-run token in AGENT_SESSIONS_DEV_BACKEND. The token goes to
 * SecretStorage like any other; the connection lives only for this window.
 */
export async function applyDevConnection(
  registry: ConnectionRegistry,
  tokens: TokenStore,
  log: Logger,
  raw = process.env.AGENT_SESSIONS_DEV_BACKEND,
): Promise<void> {
  if (!raw) return;
  try {
    const parsed = JSON.parse(raw) as { url?: unknown; token?: unknown; label?: unknown };
    if (typeof parsed.url !== 'string' || !/^http:\/\/127\.0\.0\.1:\d+$/.test(parsed.url)) {
      log.warn('AGENT_SESSIONS_DEV_BACKEND ignored: url must be http://127.0.0.1:<port>');
      return;
    }
    if (typeof parsed.token !== 'string') {
      log.warn('AGENT_SESSIONS_DEV_BACKEND ignored: no token');
      return;
    }
    const label = typeof parsed.label === 'string' ? parsed.label : 'Reference backend';
    await addReferenceBackend(
      registry,
      tokens,
      referenceBackendConnections(parsed.url, DEV_CONNECTION_ID, label),
      parsed.token,
    );
    log.info(`dev connection to ${parsed.url}`);
  } catch {
    log.warn('AGENT_SESSIONS_DEV_BACKEND ignored: not valid JSON');
  }
}

export const DEV_LOCAL_CONNECTION_ID = 'local-transcripts';

/**
 * `npm start` sets AGENT_SESSIONS_DEV_LOCAL (and points CLAUDE_CONFIG_DIR / CODEX_HOME at a
 * generated corpus unless asked for the real folders): a local connection for this window.
 */
export function applyDevLocalConnection(
  registry: ConnectionRegistry,
  raw = process.env.AGENT_SESSIONS_DEV_LOCAL,
): void {
  if (raw !== '1') return;
  registry.addEphemeral({ id: DEV_LOCAL_CONNECTION_ID, label: 'Local transcripts', kind: 'local' });
}
