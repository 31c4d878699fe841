/** The small parts behind RemoteTranscripts, without a backend. */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BackendError } from '../../../../src/domain/errors.ts';
import { describeAvailability } from '../../../../src/sources/transcripts/availability.ts';
import { signedUrlExpiry } from '../../../../src/sources/transcripts/signedUrl.ts';
import { TranscriptCache } from '../../../../src/sources/transcripts/transcriptCache.ts';
import {
  parseTranscriptList,
  type TranscriptDescriptor,
} from '../../../../src/sources/transcripts/transcriptDescriptors.ts';
import { SharedTasks } from '../../../../src/util/sharedTasks.ts';
import { removeDir, tempStorage } from '../../../support/mcpRig.ts';

const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));

const SHA = 'a'.repeat(64);

describe('transcript descriptors', () => {
  it('main first, bad and repeated files counted, checksums normalised', () => {
    const parsed = parseTranscriptList({
      files: [
        {
          fileKey: 'subagent:x',
          availability: 'available',
          url: 'u',
          rawSha256: SHA.toUpperCase(),
        },
        { fileKey: 'main', availability: 'stale', byteSize: -1, rawSha256: 'short' },
        { fileKey: 'main', availability: 'available' },
        { availability: 'available' },
        'junk',
      ],
    });
    assert.deepEqual(
      parsed.descriptors.map((d) => [d.fileKey, d.availability, d.byteSize, d.rawSha256]),
      [
        ['main', 'stale', null, null],
        ['subagent:x', 'available', null, SHA],
      ],
    );
    assert.equal(parsed.invalidFiles, 3);
    assert.throws(
      () => parseTranscriptList({ nope: [] }),
      (e: unknown) => e instanceof BackendError && e.kind === 'invalidResponse',
    );
  });

  it('an unknown state is named, not hidden', () => {
    const d = { fileKey: 'main', availability: 'archivedCold' } as TranscriptDescriptor;
    assert.match(
      describeAvailability(d, { cached: false, offline: false }),
      /"archivedCold", which this version does not know/,
    );
  });
});

describe('signed URL expiry', () => {
  it('reads X-Amz-Date in ISO basic and epoch form, else assumes five minutes', () => {
    assert.equal(
      signedUrlExpiry('https://s3/x?X-Amz-Date=20260701T100000Z&X-Amz-Expires=300', 0),
      Date.parse('2026-07-01T10:05:00Z'),
    );
    assert.equal(signedUrlExpiry('http://h/f?X-Amz-Date=1000&X-Amz-Expires=5', 0), 1_005_000);
    assert.equal(signedUrlExpiry('not a url', 42), 42 + 300_000);
  });
});

describe('transcript cache', () => {
  it('keeps the newest sessions in the index and survives a damaged one', async () => {
    const storage = await tempStorage();
    dirs.push(storage);
    const cache = new TranscriptCache(storage, { maxSessions: 2 });
    const d = (fileKey: string): TranscriptDescriptor => ({
      fileKey,
      availability: 'available',
      url: 'https://secret?X-Amz-Signature=s',
      byteSize: 1,
      rawSha256: SHA,
      uploadedAt: null,
      lastObservedAt: null,
      permanentFailureReason: null,
    });
    await cache.saveDescriptors('a', [d('main')]);
    await new Promise((r) => setTimeout(r, 5));
    await Promise.all([
      cache.saveDescriptors('b', [d('main')]),
      cache.saveDescriptors('c', [d('main')]),
    ]);
    assert.equal(await cache.loadDescriptors('a'), undefined, 'oldest dropped');
    assert.equal((await cache.loadDescriptors('c'))?.descriptors[0]?.url, null, 'no URL on disk');
    assert.doesNotMatch(await readFile(join(cache.dir, 'index.json'), 'utf8'), /Signature/);
    await writeFile(join(cache.dir, 'index.json'), '{not json');
    assert.equal(await cache.loadDescriptors('b'), undefined);
    await cache.saveDescriptors('d', [d('main')]);
    assert.ok(await cache.loadDescriptors('d'));
  });

  it('evicts the least recently opened files over its size bound', async () => {
    const storage = await tempStorage();
    dirs.push(storage);
    const cache = new TranscriptCache(storage, { maxBytes: 10 });
    const put = async (sha: string) => {
      const temp = await cache.tempPath();
      await writeFile(temp, '123456');
      return cache.commit(temp, sha);
    };
    await put('1'.repeat(64));
    await new Promise((r) => setTimeout(r, 20));
    const kept = await put('2'.repeat(64));
    assert.equal(await cache.lookup('1'.repeat(64), 6), undefined, 'evicted');
    assert.equal(await cache.lookup('2'.repeat(64), 6), kept);
    assert.equal(await cache.lookup('2'.repeat(64), 7), undefined, 'a wrong size is dropped');
  });
});

describe('shared tasks', () => {
  it('the work is aborted only when every caller gave up', async () => {
    const tasks = new SharedTasks<string, number>(() => new Error('canceled'));
    let aborted = false;
    const work = (signal: AbortSignal) =>
      new Promise<string>((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          aborted = true;
          reject(new Error('aborted'));
        });
      });
    const one = new AbortController();
    const two = new AbortController();
    const a = tasks.run('k', work, { signal: one.signal });
    const b = tasks.run('k', work, { signal: two.signal });
    one.abort();
    await assert.rejects(a, /canceled/);
    assert.equal(aborted, false);
    assert.equal(tasks.size, 1);
    two.abort();
    await assert.rejects(b, /canceled/);
    assert.equal(aborted, true);
    assert.equal(tasks.size, 0, 'a later caller starts afresh');
    const c = tasks.run('k', async () => 'again');
    assert.equal(await c, 'again');
  });
});
