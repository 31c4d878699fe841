/**
 * Collects file-change events and hands them on in batches: the first event of a burst
 * waits `delayMs` for the rest of it (an agent writes several lines at once), and a
 * batch is never handed on while the previous one is still being handled. Events that
 * arrive meanwhile make the next batch, which starts as soon as the handler returns.
 */
export type FileChangeKind = 'changed' | 'created' | 'deleted';

export interface FileChangeBatch {
  changed: string[];
  created: string[];
  deleted: string[];
}

export class ChangeBatcher {
  private readonly handler: (batch: FileChangeBatch) => Promise<void> | void;
  private readonly delayMs: number;
  private readonly onError: (error: unknown) => void;
  private pending: { [K in FileChangeKind]: Set<string> } = emptySets();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private disposed = false;

  constructor(
    handler: (batch: FileChangeBatch) => Promise<void> | void,
    options: { delayMs: number; onError?: (error: unknown) => void },
  ) {
    this.handler = handler;
    this.delayMs = options.delayMs;
    this.onError = options.onError ?? (() => undefined);
  }

  add(kind: FileChangeKind, path: string): void {
    if (this.disposed) return;
    this.pending[kind].add(path);
    if (!this.timer && !this.running) this.timer = setTimeout(() => this.flush(), this.delayMs);
  }

  /** Settles when no batch is waiting or being handled (tests). */
  async idle(): Promise<void> {
    while (this.timer || this.running) {
      if (this.running) await this.running;
      else await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = emptySets();
  }

  private flush(): void {
    this.timer = undefined;
    if (this.disposed) return;
    const batch: FileChangeBatch = {
      changed: [...this.pending.changed],
      created: [...this.pending.created],
      deleted: [...this.pending.deleted],
    };
    this.pending = emptySets();
    if (batch.changed.length + batch.created.length + batch.deleted.length === 0) return;
    this.running = Promise.resolve()
      .then(() => this.handler(batch))
      .catch(this.onError)
      .finally(() => {
        this.running = undefined;
        const more = Object.values(this.pending).some((set) => set.size > 0);
        if (more && !this.disposed) this.timer = setTimeout(() => this.flush(), 0);
      });
  }
}

function emptySets(): { [K in FileChangeKind]: Set<string> } {
  return { changed: new Set(), created: new Set(), deleted: new Set() };
}
