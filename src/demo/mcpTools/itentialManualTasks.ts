import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { ManualTask } from '../data/itential.ts';
import type { ToolContext } from './context.ts';
import { errorResult, okResult, READ_ONLY } from './results.ts';

const COMPLETABLE = new Set(['ViewData', 'ViewHTML', 'InteractiveHTML']);

export function manualTaskSummary(task: ManualTask, nowMs: number): Record<string, unknown> {
  return {
    work_item_id: task.work_item_id,
    title: task.title,
    view_type: task.view_type,
    waiting_age_seconds:
      task.created_at === null
        ? null
        : Math.max(0, Math.floor((nowMs - Date.parse(task.created_at)) / 1000)),
    completion_supported: COMPLETABLE.has(task.view_type),
  };
}

function find(ctx: ToolContext, id: string): ManualTask | undefined {
  return ctx.dataset.itential.manualTasks.find((t) => t.work_item_id === id);
}

function detail(task: ManualTask): Record<string, unknown> {
  return {
    work_item_id: task.work_item_id,
    title: task.title,
    view_type: task.view_type,
    header: task.header,
    message: task.message,
    body: task.body,
    variables: task.variables,
    btn_success: task.btn_success,
    btn_failure: task.btn_failure,
    job_id: task.job_id,
    session_id: task.session_id,
    status: task.state,
    finish_state: task.finishState,
    created_at: task.created_at,
    completion_supported: COMPLETABLE.has(task.view_type),
  };
}

export function registerItentialManualTasks(server: McpServer, ctx: ToolContext): void {
  registerDescribeManualTask(server, ctx);
  registerCompleteManualTask(server, ctx);
}

function registerDescribeManualTask(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'describe_manual_task',
    {
      title: 'Describe Manual Task',
      description:
        'Header, message, body, variables, button labels and owning session of a manual task.',
      inputSchema: z.object({ work_item_id: z.string() }),
      annotations: READ_ONLY,
    },
    ({ work_item_id }) => {
      const task = find(ctx, work_item_id);
      if (!task) return errorResult(404, 'not_found', `Manual task ${work_item_id} was not found`);
      const failure = ctx.hostile?.errorFor('describe_manual_task', task.work_item_id);
      return failure === undefined
        ? okResult(detail(task))
        : errorResult(500, 'internal_error', failure);
    },
  );
}

function registerCompleteManualTask(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'complete_manual_task',
    {
      title: 'Complete Manual Task',
      description:
        'Complete a manual task with finish_state "success" or "failure". Destructive and irreversible: ' +
        'without confirm=true this only returns a preview of what would happen.',
      inputSchema: z.object({
        work_item_id: z.string(),
        finish_state: z.enum(['success', 'failure']),
        confirm: z.boolean().optional().default(false),
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    (args) => completeManualTask(ctx, args),
  );
}

/** Without confirm a preview of the button it would press; with it, the task completed. */
function completeManualTask(
  ctx: ToolContext,
  {
    work_item_id,
    finish_state,
    confirm,
  }: { work_item_id: string; finish_state: 'success' | 'failure'; confirm: boolean },
): CallToolResult {
  const task = find(ctx, work_item_id);
  if (!task) return errorResult(404, 'not_found', `Manual task ${work_item_id} was not found`);
  if (task.state !== 'pending') {
    return errorResult(
      409,
      'already_completed',
      `Manual task ${work_item_id} was already completed (${task.finishState})`,
    );
  }
  if (!COMPLETABLE.has(task.view_type)) {
    return errorResult(
      400,
      'unsupported_view_type',
      `Manual tasks of view type ${task.view_type} cannot be completed through MCP`,
    );
  }
  const label = finish_state === 'success' ? task.btn_success : task.btn_failure;
  if (finish_state === 'failure' && task.btn_failure === '') {
    return errorResult(
      400,
      'failure_not_allowed',
      'This task has no failure button (btn_failure is empty); only "success" is allowed',
    );
  }
  if (!confirm) {
    return okResult({
      preview: true,
      applied: false,
      work_item_id,
      title: task.title,
      finish_state,
      button_label: label,
      message: `This would press "${label}" on "${task.title}". Call again with confirm=true to apply; it cannot be undone.`,
    });
  }
  task.state = 'completed';
  task.finishState = finish_state;
  task.completedAtMs = ctx.clock.nowMs();
  ctx.state.recordManualTask(work_item_id);
  return okResult({
    preview: false,
    applied: true,
    work_item_id,
    title: task.title,
    finish_state,
    button_label: label,
    completed_at: new Date(task.completedAtMs).toISOString(),
  });
}
