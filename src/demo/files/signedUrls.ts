import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface FileRef {
  readonly sessionId: string;
  readonly fileKey: string;
}

export type VerifyResult =
  | { readonly ok: true; readonly ref: FileRef }
  | {
      readonly ok: false;
      readonly reason: 'expired' | 'badSignature' | 'malformed';
      readonly expiresSec?: number;
    };

/**
 * S3-style presigned download URLs: /files/<opaque>?X-Amz-Expires=<ttl>&X-Amz-Date=<s>&X-Amz-Signature=<hmac>.
 * The HMAC covers path and expiry with a secret that lives only in this process, so a
 * URL minted by one backend run is rejected by the next (as after a key rotation).
 */
export class UrlSigner {
  private readonly secret = randomBytes(32);
  private readonly ttlSeconds: number;

  constructor(ttlSeconds: number) {
    this.ttlSeconds = ttlSeconds;
  }

  sign(baseUrl: string, ref: FileRef): string {
    const opaque = Buffer.from(JSON.stringify([ref.sessionId, ref.fileKey])).toString('base64url');
    const path = `/files/${opaque}`;
    // Rounded up so a URL lives at least its full TTL (at most one second more).
    const issuedSec = Math.ceil(Date.now() / 1000);
    const signature = this.mac(path, issuedSec, this.ttlSeconds);
    return `${baseUrl}${path}?X-Amz-Date=${issuedSec}&X-Amz-Expires=${this.ttlSeconds}&X-Amz-Signature=${signature}`;
  }

  verify(url: URL): VerifyResult {
    const match = /^\/files\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    const issued = Number(url.searchParams.get('X-Amz-Date'));
    const ttl = Number(url.searchParams.get('X-Amz-Expires'));
    const signature = url.searchParams.get('X-Amz-Signature') ?? '';
    if (!match || !Number.isInteger(issued) || !Number.isInteger(ttl) || !signature)
      return { ok: false, reason: 'malformed' };
    const expected = Buffer.from(this.mac(url.pathname, issued, ttl));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given))
      return { ok: false, reason: 'badSignature' };
    const expiresSec = issued + ttl;
    if (Date.now() > expiresSec * 1000) return { ok: false, reason: 'expired', expiresSec };
    try {
      const [sessionId, fileKey] = JSON.parse(Buffer.from(match[1]!, 'base64url').toString()) as [
        string,
        string,
      ];
      if (typeof sessionId !== 'string' || typeof fileKey !== 'string')
        return { ok: false, reason: 'malformed' };
      return { ok: true, ref: { sessionId, fileKey } };
    } catch {
      return { ok: false, reason: 'malformed' };
    }
  }

  private mac(path: string, issuedSec: number, ttl: number): string {
    return createHmac('sha256', this.secret)
      .update(`GET\n${path}\n${issuedSec}\n${ttl}`)
      .digest('hex');
  }
}
