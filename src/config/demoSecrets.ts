/**
 * The demo's tokens are keyed by connection and origin like any other, and the demo
 * listens on a new random port each time: without cleanup every run would leave its
 * tokens in secret storage for good. Each token the demo stores is recorded here (in
 * globalState, before the token is stored) with the extension host that owns it; the
 * owner deletes its own when the demo stops, and an activation deletes those whose
 * owner is gone (a window that closed or crashed before its cleanup finished). Another
 * window's running demo keeps its tokens.
 */

/** globalState key of the record. */
export const DEMO_SECRETS_KEY = 'sessionInspector.demoSecrets';

export interface DemoSecret {
  connectionId: string;
  url: string;
  /** The extension host process that stored it. */
  pid: number;
}

/** The slices of vscode.Memento and TokenStore this needs. */
export interface DemoSecretsDeps {
  memory: {
    get<T>(key: string): T | undefined;
    update(key: string, value: unknown): Thenable<void>;
  };
  tokens: { delete(connectionId: string, url: string): Thenable<void> };
  /** This extension host (default process.pid). */
  pid?: number;
  /** Whether a process still runs (default: signal 0). */
  isAlive?: (pid: number) => boolean;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class DemoSecrets {
  private readonly deps: DemoSecretsDeps;
  private readonly pid: number;
  private readonly isAlive: (pid: number) => boolean;

  constructor(deps: DemoSecretsDeps) {
    this.deps = deps;
    this.pid = deps.pid ?? process.pid;
    this.isAlive = deps.isAlive ?? processAlive;
  }

  /** Records tokens about to be stored for this extension host's demo. */
  async remember(entries: readonly { connectionId: string; url: string }[]): Promise<void> {
    const list = this.read();
    for (const { connectionId, url } of entries) {
      const known = list.some(
        (e) => e.connectionId === connectionId && e.url === url && e.pid === this.pid,
      );
      if (!known) list.push({ connectionId, url, pid: this.pid });
    }
    await this.deps.memory.update(DEMO_SECRETS_KEY, list);
  }

  /** The demo stopped: deletes this extension host's tokens. */
  forgetOwn(): Promise<number> {
    return this.forget((e) => e.pid === this.pid);
  }

  /** At activation: deletes the tokens of extension hosts that are gone. */
  forgetLeftovers(): Promise<number> {
    return this.forget((e) => e.pid !== this.pid && !this.isAlive(e.pid));
  }

  private async forget(drop: (entry: DemoSecret) => boolean): Promise<number> {
    const list = this.read();
    const gone = list.filter(drop);
    if (gone.length === 0) return 0;
    await Promise.all(gone.map((e) => this.deps.tokens.delete(e.connectionId, e.url)));
    // Read again: another window may have recorded its own meanwhile.
    await this.deps.memory.update(
      DEMO_SECRETS_KEY,
      this.read().filter((e) => !gone.some((g) => same(g, e))),
    );
    return gone.length;
  }

  private read(): DemoSecret[] {
    const raw = this.deps.memory.get<unknown>(DEMO_SECRETS_KEY);
    if (!Array.isArray(raw)) return [];
    return raw.filter(
      (e): e is DemoSecret =>
        typeof e === 'object' &&
        e !== null &&
        typeof (e as DemoSecret).connectionId === 'string' &&
        typeof (e as DemoSecret).url === 'string' &&
        typeof (e as DemoSecret).pid === 'number',
    );
  }
}

function same(a: DemoSecret, b: DemoSecret): boolean {
  return a.connectionId === b.connectionId && a.url === b.url && a.pid === b.pid;
}
