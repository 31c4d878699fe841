import * as vscode from 'vscode';
import type { ConnectionConfig, ConnectionKind } from '../sources/sessionSource.ts';

const SETTING = 'connections';
const KINDS: readonly ConnectionKind[] = ['mcp', 'rest', 'local'];

/**
 * The configured connections: persisted ones from the application-scoped
 * `sessionInspector.connections` setting (a workspace's settings.json cannot add or
 * redirect them), plus ephemeral ones that live for this window (demo, npm start).
 */
export class ConnectionRegistry implements vscode.Disposable {
  private readonly ephemeral = new Map<string, ConnectionConfig>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor() {
    this.subscription = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`sessionInspector.${SETTING}`)) this.changed.fire();
    });
  }

  all(): ConnectionConfig[] {
    return [...this.persisted(), ...this.ephemeral.values()];
  }

  get(id: string): ConnectionConfig | undefined {
    return this.all().find((c) => c.id === id);
  }

  addEphemeral(config: ConnectionConfig): void {
    this.ephemeral.set(config.id, { ...config, ephemeral: true });
    this.changed.fire();
  }

  async save(config: ConnectionConfig): Promise<void> {
    if (config.ephemeral) {
      this.addEphemeral(config);
      return;
    }
    const list = this.persisted().filter((c) => c.id !== config.id);
    list.push(config);
    await this.write(list);
  }

  async remove(id: string): Promise<void> {
    if (this.ephemeral.delete(id)) {
      this.changed.fire();
      return;
    }
    await this.write(this.persisted().filter((c) => c.id !== id));
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  /** Reads only the user (global) value: workspace values are ignored on purpose. */
  private persisted(): ConnectionConfig[] {
    const inspected = vscode.workspace
      .getConfiguration('sessionInspector')
      .inspect<unknown[]>(SETTING);
    const raw = inspected?.globalValue ?? [];
    return Array.isArray(raw) ? raw.flatMap(parseConnection) : [];
  }

  private async write(list: ConnectionConfig[]): Promise<void> {
    await vscode.workspace
      .getConfiguration('sessionInspector')
      .update(SETTING, list, vscode.ConfigurationTarget.Global);
  }
}

function parseConnection(value: unknown): ConnectionConfig[] {
  if (!value || typeof value !== 'object') return [];
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'string' || typeof v.label !== 'string') return [];
  if (!KINDS.includes(v.kind as ConnectionKind)) return [];
  const url = typeof v.url === 'string' ? v.url : undefined;
  if (v.kind !== 'local' && (!url || !/^https?:\/\//.test(url))) return [];
  const agents = Array.isArray(v.agents)
    ? v.agents.filter((a): a is string => typeof a === 'string')
    : undefined;
  return [{ id: v.id, label: v.label, kind: v.kind as ConnectionKind, url, agents }];
}
