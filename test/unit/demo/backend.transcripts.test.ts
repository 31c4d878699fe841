import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { ReferenceBackend } from '../../../src/demo/server.ts';
import { callTool, connectMcp, startTestBackend, type LooseJson } from '../../support/backend.ts';

let backend: ReferenceBackend;
let client: Client;

async function transcript(sessionId: string, c: Client = client): Promise<LooseJson> {
  const result = await callTool(c, 'get-agent-session-transcript', { sessionId });
  assert.equal(result.isError, false, result.text);
  return result.json;
}

async function download(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; bytes: Buffer; text: string }> {
  const response = await fetch(url, init);
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, bytes, text: bytes.toString('utf8') };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => stringsIn(v, out));
  else if (value && typeof value === 'object')
    Object.values(value).forEach((v) => stringsIn(v, out));
  return out;
}

before(async () => {
  backend = await startTestBackend();
  client = await connectMcp(backend);
});
after(async () => {
  await client.close();
  await backend.close();
});

describe('get-agent-session-transcript', () => {
  it('describes every availability state, with a URL only for available and stale', async () => {
    for (const [state, sessionId] of Object.entries(backend.fixtures.closedloop.mainAvailability)) {
      const { files } = await transcript(sessionId);
      const main = files.find((f: LooseJson) => f.fileKey === 'main');
      assert.equal(main.availability, state);
      const downloadable = state === 'available' || state === 'stale';
      assert.equal(main.url !== null, downloadable, state);
      assert.equal(main.byteSize !== null && main.rawSha256 !== null, downloadable, state);
      assert.equal(main.permanentFailureReason !== null, state === 'permanentlyUnavailable', state);
      if (state === 'missing') assert.equal(main.uploadedAt, null);
    }
  });

  it('serves bytes whose sha256 and size match the descriptor, for main and subagent files', async () => {
    const { files } = await transcript(backend.fixtures.closedloop.mixedSubagentFiles);
    const subagents = files.filter((f: LooseJson) => f.fileKey.startsWith('subagent:'));
    assert.ok(subagents.length >= 2);
    assert.deepEqual(
      new Set(subagents.map((f: LooseJson) => f.availability)),
      new Set(['available', 'uploadPending', 'missing'].slice(0, subagents.length)),
    );
    let checked = 0;
    for (const file of files.filter((f: LooseJson) => f.url !== null)) {
      const { status, bytes } = await download(file.url);
      assert.equal(status, 200);
      assert.equal(bytes.length, file.byteSize);
      assert.equal(sha256(bytes), file.rawSha256);
      assert.ok(bytes.toString('utf8').trimEnd().split('\n').length > 1, 'a JSONL file');
      checked++;
    }
    assert.ok(checked >= 2);
  });

  it('generates the large transcript on demand at the configured size', async () => {
    const { files } = await transcript(backend.fixtures.closedloop.largeTranscript);
    assert.equal(files.length, 1);
    assert.ok(files[0].byteSize >= 2 * 1024 * 1024, String(files[0].byteSize));
    const { bytes } = await download(files[0].url);
    assert.equal(bytes.length, files[0].byteSize);
    assert.equal(sha256(bytes), files[0].rawSha256);
  });

  it('supports byte ranges like S3', async () => {
    const { files } = await transcript(backend.fixtures.closedloop.mainAvailability.available);
    const whole = await download(files[0].url);
    const part = await fetch(files[0].url, { headers: { Range: 'bytes=10-29' } });
    assert.equal(part.status, 206);
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), whole.bytes.subarray(10, 30));
  });

  it('refuses a tampered signature and an unknown session id', async () => {
    const { files } = await transcript(backend.fixtures.closedloop.mainAvailability.available);
    const tampered = files[0].url.replace(
      /X-Amz-Signature=([0-9a-f])/,
      (_: string, c: string) => `X-Amz-Signature=${c === '0' ? '1' : '0'}`,
    );
    const bad = await download(tampered);
    assert.equal(bad.status, 403);
    assert.match(bad.text, /SignatureDoesNotMatch/);
    const unknown = await callTool(client, 'get-agent-session-transcript', {
      sessionId: '00000000-0000-4000-8000-000000000000',
    });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /404/);
  });

  it('rejects the SES-* slug where the UUID is required', async () => {
    const { json } = await callTool(client, 'list-agent-sessions', { limit: 1 });
    const result = await callTool(client, 'get-agent-session-transcript', {
      sessionId: json.items[0].slug,
    });
    assert.equal(result.isError, true);
    assert.match(result.text, /not the slug/);
  });

  it('expires URLs after urlTtlSeconds, and a fresh call mints a working one', async () => {
    const shortLived = await startTestBackend({ urlTtlSeconds: 1 });
    const c = await connectMcp(shortLived);
    try {
      const id = shortLived.fixtures.closedloop.mainAvailability.available;
      const first = (await transcript(id, c)).files[0];
      assert.equal((await download(first.url)).status, 200);
      await sleep(2_100);
      const expired = await download(first.url);
      assert.equal(expired.status, 403);
      assert.match(expired.text, /Request has expired/);
      const fresh = (await transcript(id, c)).files[0];
      assert.equal((await download(fresh.url)).status, 200);
    } finally {
      await c.close();
      await shortLived.close();
    }
  });
});

describe('list-session-comments', () => {
  const many = () => backend.fixtures.closedloop.manyComments;

  it('pages through every comment with consistent totals', async () => {
    const ids = new Set<string>();
    let offset = 0;
    let pages = 0;
    for (;;) {
      const { json } = await callTool(client, 'list-session-comments', {
        sessionId: many(),
        offset,
      });
      pages++;
      assert.equal(json.offset, offset);
      assert.equal(json.limit, 25);
      assert.equal(json.returned, json.items.length);
      for (const item of json.items) ids.add(item.id);
      if (!json.hasMore) {
        assert.equal(json.nextOffset, null);
        assert.equal(ids.size, json.total);
        break;
      }
      assert.equal(json.nextOffset, offset + json.returned);
      offset = json.nextOffset;
    }
    assert.ok(pages >= 3 && ids.size >= 50, `${pages} pages, ${ids.size} comments`);
  });

  it('filters by status and keeps resolver fields nullable', async () => {
    const open = await callTool(client, 'list-session-comments', {
      sessionId: many(),
      status: 'OPEN',
      limit: 100,
    });
    const resolved = await callTool(client, 'list-session-comments', {
      sessionId: many(),
      status: 'RESOLVED',
      limit: 100,
    });
    const all = await callTool(client, 'list-session-comments', { sessionId: many(), limit: 1 });
    assert.equal(open.json.total + resolved.json.total, all.json.total);
    assert.ok(
      open.json.items.every(
        (c: LooseJson) => c.status === 'OPEN' && c.resolvedAt === null && c.resolvedByName === null,
      ),
    );
    assert.ok(resolved.json.items.every((c: LooseJson) => c.status === 'RESOLVED'));
    assert.ok(resolved.json.items.some((c: LooseJson) => c.resolvedByName !== null));
    assert.ok(
      resolved.json.items.some((c: LooseJson) => c.resolvedByName === null),
      'older rows lack resolver metadata',
    );
    const everything = [...open.json.items, ...resolved.json.items];
    assert.ok(everything.some((c: LooseJson) => c.replies.length >= 2));
    assert.ok(
      everything.every(
        (c: LooseJson) => c.body.length <= 10_000 && c.anchor.sourceText.length <= 5_000,
      ),
    );
  });

  it('anchors point at text that occurs in the served transcript', async () => {
    const { files } = await transcript(many());
    const lines = (await download(files[0].url)).text.split('\n');
    const { json } = await callTool(client, 'list-session-comments', {
      sessionId: many(),
      limit: 100,
    });
    for (const comment of json.items) {
      const a = comment.anchor;
      assert.equal(a.anchorType, 'text');
      assert.equal(a.sessionId, many());
      assert.equal(a.sourceText.slice(a.startOffset, a.endOffset), a.selectedText);
      assert.ok(a.selectedText.length > 0);
      const strings = stringsIn(JSON.parse(lines[a.row]!));
      assert.ok(
        strings.some((s) => s.includes(a.sourceText)),
        `row ${a.row} holds the source text`,
      );
    }
  });

  it('accepts exactly one of sessionId or sessionUrl', async () => {
    const url = `https://app.closedloop.ai/acme/sessions/${many()}`;
    const byUrl = await callTool(client, 'list-session-comments', { sessionUrl: url, limit: 3 });
    const byId = await callTool(client, 'list-session-comments', { sessionId: many(), limit: 3 });
    assert.deepEqual(byUrl.json, byId.json);
    const both = await callTool(client, 'list-session-comments', {
      sessionId: many(),
      sessionUrl: url,
    });
    const neither = await callTool(client, 'list-session-comments', {});
    const badUrl = await callTool(client, 'list-session-comments', {
      sessionUrl: 'https://app.closedloop.ai/acme/runs/1',
    });
    for (const r of [both, neither, badUrl]) assert.equal(r.isError, true);
    assert.match(both.text, /exactly one/);
  });

  it('rejects slugs and answers an empty page for a session without comments', async () => {
    const slug = await callTool(client, 'list-session-comments', { sessionId: 'SES-4100' });
    assert.equal(slug.isError, true);
    const none = await callTool(client, 'list-session-comments', {
      sessionId: backend.fixtures.closedloop.mainAvailability.missing,
    });
    assert.deepEqual(none.json, {
      total: 0,
      offset: 0,
      limit: 25,
      returned: 0,
      hasMore: false,
      nextOffset: null,
      items: [],
    });
  });
});
