import { buildComments, type TraceComment } from './data/comments.ts';
import type { ClosedloopSession } from './data/closedloopSessions.ts';
import type { HostileCorpus } from './data/hostile.ts';
import type { Dataset } from './dataset.ts';
import { SeededRandom } from './random.ts';
import type { TranscriptStore } from './transcriptFiles.ts';

/**
 * Trace comments are anchored in transcript text, so they are built the first time
 * a session's comments are read, from the same (cached) transcript that is served.
 */
export class CommentStore {
  private readonly dataset: Dataset;
  private readonly transcripts: TranscriptStore;
  private readonly cache = new Map<string, Promise<readonly TraceComment[]>>();

  private readonly hostile: HostileCorpus | undefined;

  constructor(dataset: Dataset, transcripts: TranscriptStore, hostile?: HostileCorpus) {
    this.dataset = dataset;
    this.transcripts = transcripts;
    this.hostile = hostile;
  }

  comments(session: ClosedloopSession): Promise<readonly TraceComment[]> {
    let comments = this.cache.get(session.id);
    if (!comments) {
      comments = this.build(session);
      this.cache.set(session.id, comments);
      comments.catch(() => this.cache.delete(session.id));
    }
    return comments;
  }

  private async build(session: ClosedloopSession): Promise<readonly TraceComment[]> {
    const count = this.dataset.closedloop.commentCounts.get(session.id) ?? 0;
    if (count === 0) return [];
    const text = await this.transcripts.mainTranscriptText(session);
    if (text === null) return [];
    const rng = new SeededRandom(this.dataset.seed).fork(`comments:${session.id}`);
    const built = buildComments(session, text, this.dataset.people, rng, count);
    const hostile = this.hostile;
    // Hostile mode: bodies are payloads too (anchors and names already are: they come
    // from the hostile transcript and users).
    const comments = hostile
      ? built.map((c) => ({
          ...c,
          body: hostile.keyed('comment.body', c.id),
          replies: c.replies.map((r) => ({ ...r, body: hostile.keyed('comment.reply', r.id) })),
        }))
      : built;
    return comments.sort(
      (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
    );
  }
}
