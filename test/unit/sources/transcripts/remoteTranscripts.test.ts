/**
 * RemoteTranscripts against the reference backend over real HTTP: listing, verified
 * downloads into the content-addressed cache, offline reopen, expired links, corrupt
 * bytes and every availability state.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, beforeEach, describe, it } from 'node:test';
import { TranscriptDocument } from '../../../../src/domain/transcript/transcriptDocument.ts';
import type { McpSource } from '../../../../src/sources/mcp/mcpSource.ts';
import {
  isTranscriptUnavailableError,
  STALE_TEXT,
  UPLOAD_PENDING_TEXT,
  type TranscriptUnavailableError,
} from '../../../../src/sources/transcripts/availability.ts';
import {
  RemoteTranscripts,
  TRANSCRIPT_TOOL,
} from '../../../../src/sources/transcripts/remoteTranscripts.ts';
import {
  backendFailure,
  cacheFiles,
  rejection,
  removeDir,
  Rig,
  tempStorage,
} from '../../../support/mcpRig.ts';

const rig = new Rig();
let source: McpSource;
const dirs: string[] = [];

async function transcripts(
  options: { source?: McpSource; storage?: string } = {},
): Promise<{ remote: RemoteTranscripts; storage: string }> {
  const storage = options.storage ?? (await tempStorage());
  dirs.push(storage);
  return {
    remote: new RemoteTranscripts({ source: options.source ?? source, storageDir: storage }),
    storage,
  };
}

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

before(async () => {
  await rig.start();
  source = rig.source();
});
after(async () => {
  await source.dispose();
  await rig.backend.close();
  await Promise.all(dirs.map(removeDir));
});
beforeEach(() => rig.faults.clear());

const fx = () => rig.backend.fixtures.closedloop;

describe('download and cache', () => {
  it('downloads the main file, verifies it and stores it under its checksum', async () => {
    const { remote, storage } = await transcripts();
    const list = await remote.listFiles(fx().mainAvailability.available);
    assert.equal(list.offline, false);
    assert.equal(list.invalidFiles, 0);
    const main = list.descriptors[0]!;
    assert.equal(main.fileKey, 'main');
    assert.equal(list.files[0]!.label, 'Main run');
    assert.equal(list.files[0]!.availability, 'available');
    assert.doesNotMatch(list.files[0]!.description, /saved on this computer/i);

    const mark = rig.mark;
    const path = await remote.fetchFile(list.sessionId, 'main');
    const downloads = rig.seen.slice(mark).filter((r) => r.area === 'files');
    assert.equal(downloads.length, 1);
    assert.equal(downloads[0]!.authorization, undefined, 'no credentials on a presigned URL');
    assert.equal(basename(path), `${main.rawSha256}.jsonl`);
    assert.equal(await sha256(path), main.rawSha256);
    assert.deepEqual(await cacheFiles(storage), ['index.json', basename(path)].sort());

    const doc = await TranscriptDocument.open(path);
    await doc.whenIndexed();
    assert.ok(doc.entryCount > 0);
    await doc.close();

    const again = await remote.listFiles(list.sessionId);
    assert.match(again.files[0]!.description, /Saved on this computer/);
  });

  it('a second fetch is served from the cache without touching the network', async () => {
    const { remote, storage } = await transcripts();
    const id = fx().mainAvailability.available;
    await remote.listFiles(id);
    const first = await remote.fetchFile(id, 'main');
    const mark = rig.mark;
    const second = await remote.fetchFile(id, 'main');
    assert.equal(second, first);
    assert.equal(rig.count(mark), 0, 'no request at all');

    // Another window (same storage) after listing: the list call only, no download.
    const { remote: other } = await transcripts({ storage });
    const mark2 = rig.mark;
    await other.listFiles(id);
    assert.equal(await other.fetchFile(id, 'main'), first);
    assert.equal(rig.count(mark2, { area: 'files' }), 0);
    assert.equal(rig.count(mark2, { tool: TRANSCRIPT_TOOL }), 1);
  });

  it('fetchFile without a prior listing lists first, then downloads', async () => {
    const { remote } = await transcripts();
    const mark = rig.mark;
    const path = await remote.fetchFile(fx().mainAvailability.stale, 'main');
    assert.ok(path.endsWith('.jsonl'));
    assert.equal(rig.count(mark, { tool: TRANSCRIPT_TOOL }), 1);
    assert.equal(rig.count(mark, { area: 'files' }), 1);
  });

  it('concurrent fetches of one file share a single download; one caller may give up', async () => {
    const { remote } = await transcripts();
    const id = fx().manyComments;
    await remote.listFiles(id);
    rig.faults.add({ match: { area: 'files' }, fault: { kind: 'latency', ms: 300 } });
    const mark = rig.mark;
    const quitter = new AbortController();
    const a = remote.fetchFile(id, 'main');
    const b = remote.fetchFile(id, 'main');
    const c = remote.fetchFile(id, 'main', { signal: quitter.signal });
    quitter.abort();
    const canceled = await backendFailure(c);
    assert.equal(canceled.kind, 'canceled');
    const [pa, pb] = await Promise.all([a, b]);
    assert.equal(pa, pb);
    assert.equal(rig.count(mark, { area: 'files' }), 1, 'one download');
  });

  it('a canceled or stalled download leaves nothing behind', async () => {
    const storage = await tempStorage();
    dirs.push(storage);
    const remote = new RemoteTranscripts({ source, storageDir: storage, idleTimeoutMs: 150 });
    const id = fx().mainAvailability.available;
    await remote.listFiles(id);
    rig.faults.add({ match: { area: 'files' }, fault: { kind: 'latency', ms: 400 } });
    const stalled = await backendFailure(remote.fetchFile(id, 'main'));
    assert.equal(stalled.kind, 'timeout');
    assert.match(stalled.message, /stalled/);
    assert.doesNotMatch(stalled.message, /X-Amz/, 'the signed URL is not in the message');
    const abort = new AbortController();
    const canceled = remote.fetchFile(id, 'main', { signal: abort.signal });
    setTimeout(() => abort.abort(), 50);
    assert.equal((await backendFailure(canceled)).kind, 'canceled');
    await sleep(50);
    assert.deepEqual(await cacheFiles(storage), ['index.json']);
  });

  it('reports progress on a large file and ends at its size', async () => {
    const { remote } = await transcripts();
    const id = fx().largeTranscript;
    const list = await remote.listFiles(id);
    const size = list.descriptors[0]!.byteSize!;
    assert.ok(size >= 2 * 1024 * 1024);
    const seen: { bytesDone: number; bytesTotal?: number }[] = [];
    const path = await remote.fetchFile(id, 'main', { onProgress: (p) => seen.push(p) });
    assert.ok(seen.length >= 1);
    assert.deepEqual(seen.at(-1), { bytesDone: size, bytesTotal: size });
    assert.ok(seen.every((p, i) => i === 0 || p.bytesDone >= seen[i - 1]!.bytesDone));
    assert.equal(await sha256(path), list.descriptors[0]!.rawSha256);
  });
});

describe('offline', () => {
  it('reopens from the cache with the server gone, and says so', async () => {
    const away = await new Rig().start();
    const awaySource = away.source(2000);
    const id = away.backend.fixtures.closedloop.mixedSubagentFiles;
    const { remote, storage } = await transcripts({ source: awaySource });
    const live = await remote.listFiles(id);
    const path = await remote.fetchFile(id, 'main');
    await awaySource.dispose();
    await away.backend.close();

    const offlineSource = away.source(2000);
    const { remote: reopened } = await transcripts({ source: offlineSource, storage });
    const list = await reopened.listFiles(id);
    assert.equal(list.offline, true);
    assert.ok(list.savedAt);
    assert.deepEqual(
      list.descriptors.map((d) => d.fileKey),
      live.descriptors.map((d) => d.fileKey),
    );
    assert.ok(
      list.descriptors.every((d) => d.url === null),
      'signed URLs are never saved',
    );
    assert.match(list.files[0]!.description, /^Offline: showing the copy saved on this computer/);
    assert.equal(await reopened.fetchFile(id, 'main'), path);
    assert.equal(await reopened.cachedPath(id, 'main'), path);

    // A file never downloaded cannot be opened offline: the network error says why.
    const sub = list.descriptors.find(
      (d) => d.availability === 'available' && d.fileKey !== 'main',
    );
    assert.ok(sub);
    assert.match(list.files[list.descriptors.indexOf(sub)]!.description, /never downloaded/);
    const error = await backendFailure(reopened.fetchFile(id, sub.fileKey));
    assert.equal(error.kind, 'network');

    // Without a prior list in this window either: the saved index finds the file.
    const { remote: cold } = await transcripts({ source: offlineSource, storage });
    assert.equal(await cold.fetchFile(id, 'main'), path);
    await offlineSource.dispose();
  });

  it('an offline list with nothing saved fails with the network error', async () => {
    const away = await new Rig().start();
    const url = away.backend.mcpUrl;
    await away.backend.close();
    const gone = away.source(2000);
    assert.equal(gone.config.url, url);
    const { remote } = await transcripts({ source: gone });
    const error = await backendFailure(remote.listFiles(fx().mainAvailability.available));
    assert.equal(error.kind, 'network');
    await gone.dispose();
  });
});

describe('expired links', () => {
  it('a link that expired before use is re-minted, then the download succeeds', async () => {
    const short = await new Rig().start({ urlTtlSeconds: 1 });
    const shortSource = short.source();
    try {
      const { remote } = await transcripts({ source: shortSource });
      const id = short.backend.fixtures.closedloop.mainAvailability.available;
      await remote.listFiles(id);
      await sleep(1_100);
      const mark = short.mark;
      const path = await remote.fetchFile(id, 'main');
      assert.ok(path.endsWith('.jsonl'));
      assert.equal(short.count(mark, { tool: TRANSCRIPT_TOOL }), 1, 'one fresh mint');
      assert.equal(short.count(mark, { area: 'files' }), 1);
    } finally {
      await shortSource.dispose();
      await short.backend.close();
    }
  });

  it('a 403 from the file URL mints a fresh link once, then succeeds', async () => {
    const { remote } = await transcripts();
    const id = fx().mainAvailability.available;
    await remote.listFiles(id);
    rig.faults.add({ match: { area: 'files' }, fault: { kind: 'expiredUrl' }, times: 1 });
    const mark = rig.mark;
    const path = await remote.fetchFile(id, 'main');
    assert.ok(path.endsWith('.jsonl'));
    assert.equal(rig.count(mark, { tool: TRANSCRIPT_TOOL }), 1);
    assert.equal(rig.count(mark, { area: 'files' }), 2);
  });

  it('a link refused again after the fresh mint fails clearly and caches nothing', async () => {
    const { remote, storage } = await transcripts();
    const id = fx().mainAvailability.stale;
    await remote.listFiles(id);
    rig.faults.add({ match: { area: 'files' }, fault: { kind: 'expiredUrl' } });
    const mark = rig.mark;
    const error = await backendFailure(remote.fetchFile(id, 'main'));
    assert.equal(error.kind, 'forbidden');
    assert.match(error.message, /refused again right after a fresh one/);
    assert.equal(rig.count(mark, { tool: TRANSCRIPT_TOOL }), 1, 'only one re-mint');
    assert.equal(rig.count(mark, { area: 'files' }), 2);
    assert.deepEqual(await cacheFiles(storage), ['index.json']);
  });
});

describe('corrupt downloads', () => {
  for (const variant of ['flipByte', 'extraBytes'] as const) {
    it(`${variant}: fails, keeps nothing, and a retry after the fault succeeds`, async () => {
      const { remote, storage } = await transcripts();
      const id = fx().manyComments;
      await remote.listFiles(id);
      rig.faults.add({ match: { area: 'files' }, fault: { kind: 'wrongChecksum', variant } });
      const error = await backendFailure(remote.fetchFile(id, 'main'));
      assert.equal(error.kind, 'invalidResponse');
      assert.match(error.message, /did not match its checksum/);
      assert.match(error.message, /Try again/);
      assert.deepEqual(await cacheFiles(storage), ['index.json'], 'no partial, no cache entry');
      assert.equal(await remote.cachedPath(id, 'main'), undefined);

      rig.faults.clear();
      const path = await remote.fetchFile(id, 'main');
      assert.equal(
        basename(path),
        `${(await remote.listFiles(id)).descriptors[0]!.rawSha256}.jsonl`,
      );
    });
  }
});

describe('availability states', () => {
  const expected: Record<string, RegExp> = {
    available: /^Uploaded \d{4}-\d{2}-\d{2}/,
    stale: new RegExp(`^${STALE_TEXT.replace(/[.;]/g, '\\$&')}`),
    uploadPending: new RegExp(`^${UPLOAD_PENDING_TEXT.replace(/[.;]/g, '\\$&')}$`),
    uploadFailed: /upload failed/,
    permanentlyUnavailable:
      /^This transcript will never be available: Transcript exceeded the 512 MB archive limit\.$/,
    missing: /^No transcript was uploaded for this run\.$/,
  };

  it('describes each state in words, and downloads only available and stale files', async () => {
    const { remote } = await transcripts();
    for (const [state, id] of Object.entries(fx().mainAvailability)) {
      const list = await remote.listFiles(id);
      const view = list.files.find((f) => f.fileKey === 'main')!;
      assert.equal(view.availability, state);
      assert.match(view.description, expected[state]!, state);
      if (state === 'available' || state === 'stale') continue;
      const mark = rig.mark;
      const error = (await rejection(remote.fetchFile(id, 'main'))) as TranscriptUnavailableError;
      assert.ok(isTranscriptUnavailableError(error), `${state}: ${String(error)}`);
      assert.equal(error.availability, state);
      assert.equal(error.description, view.description);
      assert.equal(error.canRetry, state === 'uploadPending' || state === 'uploadFailed');
      assert.equal(rig.count(mark), 0, `${state}: no download, no listing`);
    }
  });

  it('subagent files: labelled, each state honoured, available ones downloaded', async () => {
    const { remote } = await transcripts();
    const id = fx().mixedSubagentFiles;
    const list = await remote.listFiles(id);
    const subs = list.files.filter((f) => f.fileKey.startsWith('subagent:'));
    assert.ok(subs.length >= 2);
    assert.ok(subs.every((f) => f.label === `Subagent ${f.fileKey.slice('subagent:'.length)}`));
    const states = new Set(subs.map((f) => f.availability));
    assert.ok(states.has('available') && states.has('uploadPending'));
    for (const sub of subs) {
      if (sub.availability === 'available') {
        const path = await remote.fetchFile(id, sub.fileKey);
        const doc = await TranscriptDocument.open(path);
        await doc.whenIndexed();
        assert.ok(doc.entryCount > 0);
        await doc.close();
      } else {
        const error = await rejection(remote.fetchFile(id, sub.fileKey));
        assert.ok(isTranscriptUnavailableError(error));
        assert.equal(error.description, sub.description);
      }
    }
    const unknown = await rejection(remote.fetchFile(id, 'subagent:nope'));
    assert.ok(isTranscriptUnavailableError(unknown));
    assert.equal(unknown.availability, 'missing');
  });

  it('a drifting answer is read tolerantly: unreadable numbers dropped, files kept', async () => {
    const { remote } = await transcripts();
    const id = fx().mainAvailability.available;
    rig.faults.add({
      match: { tool: TRANSCRIPT_TOOL },
      fault: { kind: 'schemaViolation' },
      times: 1,
    });
    const list = await remote.listFiles(id);
    assert.equal(list.descriptors[0]!.byteSize, null, 'a number sent as a string is dropped');
    assert.match(list.descriptors[0]!.rawSha256 ?? '', /^[0-9a-f]{64}$/);
    // Still verifiable by checksum alone.
    const path = await remote.fetchFile(id, 'main');
    assert.equal(await sha256(path), list.descriptors[0]!.rawSha256);
  });
});
