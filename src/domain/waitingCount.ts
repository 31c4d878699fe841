import type { SessionSummary } from './session.ts';

/**
 * What waits on a human, counted once for every surface (view badge, status bar, their
 * tooltips): a platform session with manual tasks counts each task, any other waiting
 * session counts once. `total` = `sessions` + `tasks`.
 */
export interface WaitingCount {
  /** Waiting sessions without manual tasks. */
  sessions: number;
  /** Manual tasks of waiting sessions. */
  tasks: number;
  total: number;
}

export function countWaiting(waiting: readonly SessionSummary[]): WaitingCount {
  let sessions = 0;
  let tasks = 0;
  for (const s of waiting) {
    const n = s.pendingTasks?.length ?? 0;
    if (n > 0) tasks += n;
    else sessions++;
  }
  return { sessions, tasks, total: sessions + tasks };
}
