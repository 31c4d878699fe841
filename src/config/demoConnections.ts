import type { ConnectionConfig } from '../sources/sessionSource.ts';
import type { TokenStore } from './tokenStore.ts';
import type { ConnectionRegistry } from './connectionRegistry.ts';

/**
 * The reference backend is three systems on one port: the reporting MCP tools, the
 * platform (Itential) MCP tools and the agents REST API. The demo and `npm start`
 * connect to each as its own connection, as a user with those accounts would.
 */
export function referenceBackendConnections(
  baseUrl: string,
  idPrefix: string,
  labelPrefix: string,
): ConnectionConfig[] {
  return [
    {
      id: `${idPrefix}-reporting`,
      label: `${labelPrefix} · Reporting`,
      kind: 'mcp',
      url: `${baseUrl}/mcp/closedloop`,
    },
    {
      id: `${idPrefix}-platform`,
      label: `${labelPrefix} · Platform`,
      kind: 'mcp',
      url: `${baseUrl}/mcp/itential`,
    },
    { id: `${idPrefix}-agents`, label: `${labelPrefix} · Agents API`, kind: 'rest', url: baseUrl },
  ];
}

/** Stores the token for each (secret storage, keyed by origin) and adds the connections for this window. */
export async function addReferenceBackend(
  registry: ConnectionRegistry,
  tokens: TokenStore,
  connections: ConnectionConfig[],
  token: string,
): Promise<void> {
  for (const config of connections) {
    if (config.url) await tokens.set(config.id, config.url, token);
  }
  for (const config of connections) registry.addEphemeral(config);
}
