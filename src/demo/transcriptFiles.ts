import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MINUTE_MS } from './clock.ts';
import type { ClosedloopSession } from './data/closedloopSessions.ts';
import {
  hasUrl,
  listsSubagents,
  type Availability,
  type TranscriptPlan,
} from './data/transcriptPlan.ts';
import { TRANSCRIPT_PAYLOAD_MAX, type HostileCorpus } from './data/hostile.ts';
import type { Dataset } from './dataset.ts';
import {
  generateClaudeCodeTranscript,
  generateCodexTranscript,
  writeLargeClaudeCodeTranscript,
} from './transcripts/index.ts';
import { hostileTranscript } from './transcripts/hostile.ts';

/** One archived transcript file as the archive knows it. */
export interface ArchivedFile {
  readonly fileKey: string;
  readonly availability: Availability;
  readonly permanentFailureReason: string | null;
  readonly uploadedAtMs: number | null;
  readonly lastObservedAtMs: number | null;
  /** Present only when the file can be downloaded (available / stale). */
  readonly content: FileContent | null;
}

export type FileContent =
  | {
      readonly kind: 'bytes';
      readonly bytes: Buffer;
      readonly byteSize: number;
      readonly sha256: string;
    }
  | {
      readonly kind: 'path';
      readonly path: string;
      readonly byteSize: number;
      readonly sha256: string;
    };

export interface TranscriptStoreOptions {
  /** Size of the one large transcript (bytes). */
  readonly largeBytes: number;
  /** Hostile data mode: payloads in every text of every file; the 1 MB one in `hugeIn`'s main file. */
  readonly hostile?: { readonly corpus: HostileCorpus; readonly hugeIn: string };
}

function bytesContent(text: string): FileContent {
  const bytes = Buffer.from(text, 'utf8');
  return {
    kind: 'bytes',
    bytes,
    byteSize: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

function timestamps(
  session: ClosedloopSession,
  availability: Availability,
): [number | null, number | null] {
  const archivedAt = (session.endedAtMs ?? session.lastActivityAtMs) + 2 * MINUTE_MS;
  switch (availability) {
    case 'available':
      return [archivedAt, archivedAt + 5_000];
    case 'stale':
      // The archived copy predates the run's latest activity.
      return [
        Math.max(session.startedAtMs + MINUTE_MS, session.lastActivityAtMs - 20 * MINUTE_MS),
        session.lastActivityAtMs,
      ];
    case 'uploadPending':
      return [null, session.lastActivityAtMs];
    case 'uploadFailed':
    case 'permanentlyUnavailable':
      return [null, archivedAt];
    case 'missing':
      return [null, null];
  }
}

/** Generated files kept in memory; older sessions are regenerated (identically) on demand. */
const CACHE_BUDGET_BYTES = 96 * 1024 * 1024;

function cachedBytes(files: readonly ArchivedFile[]): number {
  return files.reduce((n, f) => n + (f.content?.kind === 'bytes' ? f.content.byteSize : 0), 0);
}

/**
 * Generates each session's transcript files on first request and keeps them, so
 * startup stays fast and byteSize/rawSha256 always describe the bytes served.
 * Generation is deterministic, so evicting under the memory budget is safe.
 */
export class TranscriptStore {
  private readonly dataset: Dataset;
  private readonly options: TranscriptStoreOptions;
  private readonly cache = new Map<string, Promise<ArchivedFile[]>>();
  private readonly sizes = new Map<string, number>();
  private cachedTotal = 0;
  private tempDir: Promise<string> | undefined;

  constructor(dataset: Dataset, options: TranscriptStoreOptions) {
    this.dataset = dataset;
    this.options = options;
  }

  /** The session's archived files (main first), generating them on first use. */
  files(session: ClosedloopSession): Promise<ArchivedFile[]> {
    const cached = this.cache.get(session.id);
    if (cached) {
      // Refresh recency: Map iteration order is insertion order.
      this.cache.delete(session.id);
      this.cache.set(session.id, cached);
      return cached;
    }
    const files = this.generate(session);
    this.cache.set(session.id, files);
    files.then(
      (generated) => this.account(session.id, cachedBytes(generated)),
      () => this.cache.delete(session.id),
    );
    return files;
  }

  async file(session: ClosedloopSession, fileKey: string): Promise<ArchivedFile | undefined> {
    return (await this.files(session)).find((f) => f.fileKey === fileKey);
  }

  /** The main file's text for anchoring comments (not for the large file). */
  async mainTranscriptText(session: ClosedloopSession): Promise<string | null> {
    const main = (await this.files(session))[0]?.content;
    return main?.kind === 'bytes' ? main.bytes.toString('utf8') : null;
  }

  async close(): Promise<void> {
    const dir = await this.tempDir?.catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  }

  private account(sessionId: string, bytes: number): void {
    if (!this.cache.has(sessionId)) return;
    this.sizes.set(sessionId, bytes);
    this.cachedTotal += bytes;
    for (const [id] of this.cache) {
      if (this.cachedTotal <= CACHE_BUDGET_BYTES || id === sessionId) break;
      const size = this.sizes.get(id);
      // Still generating, or nothing in memory (the large file lives on disk and must
      // not be rewritten under a download in progress).
      if (size === undefined || size === 0) continue;
      this.cache.delete(id);
      this.sizes.delete(id);
      this.cachedTotal -= size;
    }
  }

  private plan(session: ClosedloopSession): TranscriptPlan {
    const plan = this.dataset.closedloop.transcripts.get(session.id);
    if (!plan) throw new Error(`no transcript plan for ${session.id}`);
    return plan;
  }

  private describe(
    session: ClosedloopSession,
    fileKey: string,
    availability: Availability,
    content: FileContent | null,
    permanentFailureReason: string | null = null,
  ): ArchivedFile {
    const [uploadedAtMs, lastObservedAtMs] = timestamps(session, availability);
    return {
      fileKey,
      availability,
      permanentFailureReason,
      uploadedAtMs,
      lastObservedAtMs,
      content: hasUrl(availability) ? content : null,
    };
  }

  /** The file's text as served: the generated text, or in hostile mode with payloads in it. */
  private served(session: ClosedloopSession, fileKey: string, text: string): FileContent {
    const hostile = this.options.hostile;
    if (!hostile) return bytesContent(text);
    const corpus = hostile.corpus;
    // The long payloads go in one file (with the 1 MB one), so downloads stay small.
    const carriesLong = fileKey === 'main' && session.id === hostile.hugeIn;
    return bytesContent(
      hostileTranscript(text, {
        payload: (key, original) =>
          corpus.keyed(
            `transcript.${key}`,
            `${session.id}|${fileKey}|${original}`,
            carriesLong ? Infinity : TRANSCRIPT_PAYLOAD_MAX,
          ),
        ...(carriesLong ? { first: corpus.payloads[0] } : {}),
      }),
    );
  }

  private async generate(session: ClosedloopSession): Promise<ArchivedFile[]> {
    const plan = this.plan(session);
    const base = {
      seed: plan.seed,
      sessionId: session.externalSessionId,
      cwd: session.cwd,
      model: session.model,
      startedAt: new Date(session.startedAtMs).toISOString(),
    };
    if (
      plan.format === 'none' ||
      plan.main === 'missing' ||
      plan.main === 'permanentlyUnavailable'
    ) {
      return [this.describe(session, 'main', plan.main, null, plan.permanentFailureReason)];
    }
    if (plan.large) {
      const dir = await (this.tempDir ??= mkdtemp(path.join(tmpdir(), 'asi-demo-transcripts-')));
      const file = path.join(dir, `${session.id}.jsonl`);
      const written = await writeLargeClaudeCodeTranscript(file, {
        ...base,
        gitBranch: session.gitBranch,
        targetBytes: this.options.largeBytes,
      });
      const content: FileContent = {
        kind: 'path',
        path: file,
        byteSize: written.byteSize,
        sha256: written.sha256,
      };
      return [this.describe(session, 'main', plan.main, content)];
    }
    if (plan.format === 'codex') {
      const text = generateCodexTranscript({
        ...base,
        turns: plan.turns,
        compaction: plan.compaction,
        legacy: plan.legacyCodex,
      });
      return [this.describe(session, 'main', plan.main, this.served(session, 'main', text))];
    }
    const generated = generateClaudeCodeTranscript({
      ...base,
      turns: plan.turns,
      subagents: plan.subagents,
      compaction: plan.compaction,
      gitBranch: session.gitBranch,
      quirks: plan.quirks,
      // The Changes view's demo: its first turn writes, edits and multi-edits a file each.
      editsThreeFiles: session.id === this.dataset.closedloop.fixtures.editsThreeFiles,
    });
    const files = [
      this.describe(session, 'main', plan.main, this.served(session, 'main', generated.main)),
    ];
    if (listsSubagents(plan)) {
      generated.subagents.forEach((sub, i) => {
        const state = plan.subagentStates[i] ?? 'available';
        const fileKey = `subagent:${sub.fileId}`;
        files.push(
          this.describe(session, fileKey, state, this.served(session, fileKey, sub.content)),
        );
      });
    }
    return files;
  }
}
