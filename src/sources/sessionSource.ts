import type { SessionPage } from '../domain/session.ts';

export type ConnectionKind = 'mcp' | 'rest' | 'local';

export interface ConnectionConfig {
  id: string;
  label: string;
  kind: ConnectionKind;
  /** MCP endpoint or REST base URL. */
  url?: string;
  /** REST: agent keys to watch. */
  agents?: string[];
  /** Connections that live only for this window (the demo, `npm start`). */
  ephemeral?: boolean;
}

/** What a connection can do; for MCP this comes from tools/list. */
export interface SourceCapabilities {
  listSessions: boolean;
  transcripts: boolean;
  comments: boolean;
  usage: boolean;
  manualTasks: boolean;
  complete: boolean;
}

export interface ListSessionsRequest {
  cursor?: string;
  limit: number;
  signal?: AbortSignal;
}

/** One backend endpoint behind one interface, whatever protocol it speaks. */
export interface SessionSource {
  readonly config: ConnectionConfig;
  capabilities(signal?: AbortSignal): Promise<SourceCapabilities>;
  listSessions(request: ListSessionsRequest): Promise<SessionPage>;
  /** Tests the connection end to end; resolves with a one-line description. */
  test(signal?: AbortSignal): Promise<string>;
  dispose(): Promise<void>;
}
