import * as z from 'zod';
import type { PendingInstruction } from '../../domain/completionIntent.ts';
import type { ManualTaskDetail } from '../steering.ts';

const instruction = z.looseObject({
  id: z.string(),
  text: z.string().nullish(),
  createdAt: z.string().nullish(),
  processed: z.boolean().nullish(),
  author: z.looseObject({ name: z.string().nullish() }).nullish(),
});

/** The instructions, or undefined when the answer has no list of them (unreadable, not "none"). */
export function parseInstructions(payload: unknown): PendingInstruction[] | undefined {
  const items = (payload as { items?: unknown } | undefined)?.items;
  if (!Array.isArray(items)) return undefined;
  return items.flatMap((item) => {
    const parsed = instruction.safeParse(item);
    if (!parsed.success) return [];
    return [
      {
        id: parsed.data.id,
        text: parsed.data.text ?? '',
        createdAt: parsed.data.createdAt ?? undefined,
        processed: parsed.data.processed === true,
        author: parsed.data.author?.name ?? undefined,
      },
    ];
  });
}

const manualTask = z.looseObject({
  work_item_id: z.string(),
  title: z.string().nullish(),
  header: z.string().nullish(),
  message: z.string().nullish(),
  body: z.unknown().optional(),
  variables: z.record(z.string(), z.unknown()).nullish(),
  view_type: z.string().nullish(),
  btn_success: z.string().nullish(),
  btn_failure: z.string().nullish(),
  completion_supported: z.boolean().nullish(),
  status: z.unknown().optional(),
  finish_state: z.unknown().optional(),
});

/** Task statuses of the platform (and the reference backend) that mean "still waiting". */
const OPEN_STATES = new Set(['pending', 'incomplete', 'open', 'waiting', 'running', 'assigned']);
const FINISHED_STATES = new Set([
  'completed',
  'complete',
  'finished',
  'done',
  'canceled',
  'cancelled',
  'error',
  'failed',
]);

/** Whether a described task is still open; undefined when the answer does not say. */
export function manualTaskState(status: unknown, finishState: unknown): ManualTaskDetail['state'] {
  const raw = typeof status === 'string' ? status.trim().toLowerCase() : '';
  if (OPEN_STATES.has(raw)) return 'open';
  if (FINISHED_STATES.has(raw)) return 'finished';
  // A finish state is only set once the task was finished.
  if (typeof finishState === 'string' && finishState.trim() !== '') return 'finished';
  return undefined;
}

export function parseManualTask(payload: unknown): ManualTaskDetail | undefined {
  const parsed = manualTask.safeParse(payload);
  if (!parsed.success) return undefined;
  const t = parsed.data;
  return {
    id: t.work_item_id,
    header: t.header ?? t.title ?? undefined,
    message: t.message ?? undefined,
    body:
      t.body === undefined || t.body === null
        ? undefined
        : typeof t.body === 'string'
          ? t.body
          : JSON.stringify(t.body, null, 2),
    variables: t.variables ?? undefined,
    viewType: t.view_type ?? undefined,
    successLabel: t.btn_success ?? undefined,
    // An empty failure label means the task has no failure button.
    failureLabel: t.btn_failure ? t.btn_failure : undefined,
    completionSupported: t.completion_supported === true,
    state: manualTaskState(t.status, t.finish_state),
    finishState: typeof t.finish_state === 'string' && t.finish_state ? t.finish_state : undefined,
  };
}
