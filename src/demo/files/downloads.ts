import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { BackendResponse, InterceptedRequest } from '../http.ts';
import type { Dataset } from '../dataset.ts';
import type { FileContent, TranscriptStore } from '../transcriptFiles.ts';
import type { UrlSigner } from './signedUrls.ts';

function xmlEscape(s: string): string {
  return s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** An S3-style XML error document. */
export function s3Error(
  status: number,
  code: string,
  message: string,
  extra: Record<string, string> = {},
): BackendResponse {
  const fields = Object.entries({
    Code: code,
    Message: message,
    ...extra,
    RequestId: randomBytes(8).toString('hex').toUpperCase(),
  })
    .map(([k, v]) => `<${k}>${xmlEscape(v)}</${k}>`)
    .join('');
  return {
    status,
    headers: { 'content-type': 'application/xml' },
    body: Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<Error>${fields}</Error>`),
  };
}

/** What an expired presigned URL gets (also used by fault injection to force it). */
export function expiredUrlResponse(expiresSec?: number): BackendResponse {
  return s3Error(403, 'AccessDenied', 'Request has expired', {
    ...(expiresSec === undefined ? {} : { Expires: new Date(expiresSec * 1000).toISOString() }),
    ServerTime: new Date().toISOString(),
  });
}

type ByteRange = { start: number; end: number } | 'unsatisfiable' | undefined;

function parseRange(header: string | undefined, size: number): ByteRange {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  return start > end || start >= size ? 'unsatisfiable' : { start, end };
}

function body(
  content: FileContent,
  range: { start: number; end: number } | undefined,
): BackendResponse['body'] {
  if (content.kind === 'bytes')
    return range ? content.bytes.subarray(range.start, range.end + 1) : content.bytes;
  return createReadStream(content.path, range ?? {});
}

/** GET /files/<opaque>?…signature: the presigned transcript download, no other auth (like S3). */
export class Downloads {
  private readonly signer: UrlSigner;
  private readonly dataset: Dataset;
  private readonly transcripts: TranscriptStore;

  constructor(signer: UrlSigner, dataset: Dataset, transcripts: TranscriptStore) {
    this.signer = signer;
    this.dataset = dataset;
    this.transcripts = transcripts;
  }

  async handle(req: InterceptedRequest): Promise<BackendResponse> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return s3Error(
        405,
        'MethodNotAllowed',
        'The specified method is not allowed against this resource.',
      );
    }
    const verified = this.signer.verify(req.url);
    if (!verified.ok) {
      if (verified.reason === 'expired') return expiredUrlResponse(verified.expiresSec);
      if (verified.reason === 'badSignature') {
        return s3Error(
          403,
          'SignatureDoesNotMatch',
          'The request signature we calculated does not match the signature you provided.',
        );
      }
      return s3Error(
        403,
        'AccessDenied',
        'Query-string authentication requires X-Amz-Date, X-Amz-Expires and X-Amz-Signature.',
      );
    }
    const session = this.dataset.closedloop.byId.get(verified.ref.sessionId);
    const file = session ? await this.transcripts.file(session, verified.ref.fileKey) : undefined;
    const content = file?.content;
    if (!content) return s3Error(404, 'NoSuchKey', 'The specified key does not exist.');
    const rangeHeader = req.headers.range;
    const range = parseRange(
      Array.isArray(rangeHeader) ? rangeHeader[0] : rangeHeader,
      content.byteSize,
    );
    if (range === 'unsatisfiable') {
      return s3Error(416, 'InvalidRange', 'The requested range is not satisfiable', {
        ActualObjectSize: String(content.byteSize),
      });
    }
    const headers: Record<string, string> = {
      'content-type': 'application/x-ndjson',
      'accept-ranges': 'bytes',
      etag: `"${content.sha256.slice(0, 32)}"`,
      'content-length': String(range ? range.end - range.start + 1 : content.byteSize),
      ...(range
        ? { 'content-range': `bytes ${range.start}-${range.end}/${content.byteSize}` }
        : {}),
    };
    return {
      status: range ? 206 : 200,
      headers,
      body: req.method === 'HEAD' ? Buffer.alloc(0) : body(content, range),
    };
  }
}
