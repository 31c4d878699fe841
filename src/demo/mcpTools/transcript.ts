import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { hasUrl } from '../data/transcriptPlan.ts';
import { findSessionById, iso, monitoringError } from './closedloopQuery.ts';
import type { ToolContext } from './context.ts';
import { errorResult, okResult, READ_ONLY } from './results.ts';

export function registerTranscript(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'get-agent-session-transcript',
    {
      title: 'Get Agent-Session Transcript',
      description:
        "Read access to a session's archived transcript files: the main run file plus any subagent sidechain " +
        'files. Each file has a short-lived signed URL when its availability is available or stale.',
      inputSchema: z.object({
        sessionId: z
          .string()
          .describe('UUID — the `id` field returned by list-agent-sessions (NOT the SES-* slug)'),
      }),
      annotations: READ_ONLY,
    },
    async ({ sessionId }) => {
      const denied = monitoringError(ctx);
      if (denied) return denied;
      const found = findSessionById(ctx, sessionId);
      if (!found.ok) return found.error;
      const failure = ctx.hostile?.errorFor('transcript', found.session.id);
      if (failure !== undefined) return errorResult(500, 'internal_error', failure);
      const files = await ctx.transcripts.files(found.session);
      return okResult({
        sessionId: found.session.id,
        files: files.map((f) => {
          const served = hasUrl(f.availability) && f.content !== null;
          return {
            fileKey: f.fileKey,
            availability: f.availability,
            url: served
              ? ctx.signer.sign(ctx.baseUrl(), { sessionId: found.session.id, fileKey: f.fileKey })
              : null,
            byteSize: served ? f.content!.byteSize : null,
            rawSha256: served ? f.content!.sha256 : null,
            uploadedAt: iso(f.uploadedAtMs),
            lastObservedAt: iso(f.lastObservedAtMs),
            permanentFailureReason: f.permanentFailureReason,
          };
        }),
      });
    },
  );
}
