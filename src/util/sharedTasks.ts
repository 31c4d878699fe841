/**
 * Work shared by every caller asking for the same key while it runs (one download for
 * two panels opening the same file). Each caller can give up through its own signal
 * without stopping the work for the others; when the last one gives up, the work is
 * aborted and forgotten, so a later caller starts afresh.
 */
interface Running<T, P> {
  promise: Promise<T>;
  controller: AbortController;
  waiters: number;
  listeners: Set<(progress: P) => void>;
}

export interface SharedCaller<P> {
  signal?: AbortSignal;
  onProgress?: (progress: P) => void;
}

export class SharedTasks<T, P> {
  private readonly running = new Map<string, Running<T, P>>();
  private readonly canceled: () => Error;

  /** `canceled` makes the error a caller that gave up is rejected with. */
  constructor(canceled: () => Error) {
    this.canceled = canceled;
  }

  /** Number of distinct tasks in flight (for tests and diagnostics). */
  get size(): number {
    return this.running.size;
  }

  run(
    key: string,
    work: (signal: AbortSignal, progress: (p: P) => void) => Promise<T>,
    caller: SharedCaller<P> = {},
  ): Promise<T> {
    if (caller.signal?.aborted) return Promise.reject(this.canceled());
    let entry = this.running.get(key);
    if (!entry) {
      const controller = new AbortController();
      const listeners = new Set<(p: P) => void>();
      const created: Running<T, P> = {
        controller,
        listeners,
        waiters: 0,
        promise: Promise.resolve()
          .then(() => work(controller.signal, (p) => listeners.forEach((l) => l(p))))
          .finally(() => {
            if (this.running.get(key) === created) this.running.delete(key);
          }),
      };
      // Every caller may have given up before it settles: never an unhandled rejection.
      created.promise.catch(() => undefined);
      this.running.set(key, created);
      entry = created;
    }
    const shared = entry;
    shared.waiters++;
    const listener = caller.onProgress;
    if (listener) shared.listeners.add(listener);
    return new Promise<T>((resolve, reject) => {
      const leave = () => {
        caller.signal?.removeEventListener('abort', onAbort);
        if (listener) shared.listeners.delete(listener);
        shared.waiters--;
      };
      const onAbort = () => {
        leave();
        if (shared.waiters === 0) {
          if (this.running.get(key) === shared) this.running.delete(key);
          shared.controller.abort();
        }
        reject(this.canceled());
      };
      caller.signal?.addEventListener('abort', onAbort, { once: true });
      shared.promise.then(
        (value) => {
          if (caller.signal?.aborted) return;
          leave();
          resolve(value);
        },
        (error: unknown) => {
          if (caller.signal?.aborted) return;
          leave();
          reject(error);
        },
      );
    });
  }
}
