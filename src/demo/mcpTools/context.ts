import type { DemoClock } from '../clock.ts';
import type { CommentStore } from '../commentStore.ts';
import type { HostileCorpus } from '../data/hostile.ts';
import type { Dataset } from '../dataset.ts';
import type { UrlSigner } from '../files/signedUrls.ts';
import type { BackendState } from '../state.ts';
import type { TranscriptStore } from '../transcriptFiles.ts';

/** Everything a tool handler may read or change; shared by all per-request servers. */
export interface ToolContext {
  readonly dataset: Dataset;
  readonly state: BackendState;
  readonly clock: DemoClock;
  readonly transcripts: TranscriptStore;
  readonly comments: CommentStore;
  readonly signer: UrlSigner;
  /** http://127.0.0.1:PORT, known once the server listens. */
  readonly baseUrl: () => string;
  /** Hostile data mode: some detail requests fail with a payload as their message. */
  readonly hostile?: HostileCorpus | undefined;
}
