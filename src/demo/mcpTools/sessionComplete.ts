import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { CompletionRecord } from '../state.ts';
import { findSessionById } from './closedloopQuery.ts';
import type { ToolContext } from './context.ts';
import { errorResult, okResult } from './results.ts';

// Seed 003's input schema, additionalProperties false included (strictObject).
const inputSchema = z.strictObject({
  sessionId: z.string().describe('Session ID'),
  status: z.enum(['completed', 'canceled']).optional(),
  summary: z.string().optional().describe('Completion summary'),
  acknowledgedInstructionIds: z
    .array(z.string())
    .optional()
    .describe('Every pending human instruction ID received and processed by this agent.'),
  requestReview: z
    .boolean()
    .optional()
    .describe(
      "Ask a person to review this work when completing. Leave it off when nothing needs a person's check; " +
        'sessions are never put in review otherwise.',
    ),
  idempotencyKey: z.string().describe('Unique retry key'),
});

type Args = z.infer<typeof inputSchema>;

/** Same intent ⇔ same fingerprint; acknowledgement order does not change the intent. */
function fingerprint(args: Args): string {
  return JSON.stringify([
    args.sessionId.toLowerCase(),
    args.status ?? 'completed',
    args.summary ?? null,
    args.acknowledgedInstructionIds === undefined
      ? null
      : [...args.acknowledgedInstructionIds].sort(),
    args.requestReview ?? false,
  ]);
}

export function registerSessionComplete(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'session_complete',
    {
      title: 'Complete Session',
      description:
        'Complete or cancel the current agent session. When completing after receiving human instructions, ' +
        'include every processed instruction ID; explicit acknowledgements prevent completion while any ' +
        'instruction is still waiting. Older clients may omit this field, and any remaining instructions will ' +
        'close visibly as unacknowledged.',
      inputSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: true,
      },
    },
    (args) => completeSession(ctx, args),
  );
}

/** The tool's handler: a replay, a refusal, or the session ended and its instructions closed. */
function completeSession(ctx: ToolContext, args: Args): CallToolResult {
  const fp = fingerprint(args);
  const previous = ctx.state.idempotentReplay(args.idempotencyKey);
  if (previous) {
    if (previous.fingerprint === fp) return okResult({ ...previous.record });
    return errorResult(
      409,
      'idempotency_key_reused',
      `idempotencyKey ${args.idempotencyKey} was already used with different arguments; nothing was changed`,
    );
  }
  const found = findSessionById(ctx, args.sessionId);
  if (!found.ok) return found.error;
  const session = found.session;
  if (session.endedAtMs !== null) {
    return errorResult(
      409,
      'session_ended',
      `Session ${session.slug} has already ended; nothing was changed`,
    );
  }
  const status = args.status ?? 'completed';
  if (args.requestReview && status !== 'completed') {
    return errorResult(
      400,
      'validation_error',
      'requestReview applies only when status is "completed"',
    );
  }
  const instructions = ctx.dataset.closedloop.instructions.filter(
    (i) => i.sessionId === session.id,
  );
  const pending = instructions.filter((i) => i.state === 'pending');
  const acknowledged = args.acknowledgedInstructionIds;
  const refused = acknowledged && acknowledgementProblem(instructions, pending, acknowledged);
  if (refused) return refused;
  const nowMs = ctx.clock.nowMs();
  const ackIds: string[] = [];
  const unackIds: string[] = [];
  for (const instruction of pending) {
    const isAck = acknowledged?.includes(instruction.id) ?? false;
    instruction.state = isAck ? 'acknowledged' : 'closedUnacknowledged';
    instruction.closedAtMs = nowMs;
    (isAck ? ackIds : unackIds).push(instruction.id);
  }
  session.storedStatus = 'inactive';
  session.awaitingInput = false;
  session.endedAtMs = nowMs;
  session.lastActivityAtMs = nowMs;
  const record: CompletionRecord = {
    sessionId: session.id,
    status,
    summary: args.summary ?? null,
    reviewRequested: args.requestReview ?? false,
    completedAt: new Date(nowMs).toISOString(),
    acknowledgedInstructionIds: ackIds,
    unacknowledgedInstructionIds: unackIds,
    idempotencyKey: args.idempotencyKey,
  };
  ctx.state.recordCompletion(record, fp);
  return okResult({ ...record });
}

/** An acknowledgement list naming an unknown instruction, or leaving a pending one out. */
function acknowledgementProblem(
  instructions: readonly { id: string }[],
  pending: readonly { id: string }[],
  acknowledged: readonly string[],
): CallToolResult | undefined {
  const known = new Set(instructions.map((i) => i.id));
  const unknown = acknowledged.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    return errorResult(
      400,
      'unknown_instruction',
      `Unknown instruction id(s) for this session: ${unknown.join(', ')}`,
    );
  }
  const missing = pending.filter((i) => !acknowledged.includes(i.id)).map((i) => i.id);
  if (missing.length > 0) {
    return errorResult(
      409,
      'instructions_pending',
      `Refusing to complete: instruction(s) ${missing.join(', ')} are still waiting and were not ` +
        'acknowledged. Process them and include their IDs in acknowledgedInstructionIds.',
    );
  }
  return undefined;
}
