/** Presigned links live about five minutes (seed 002) when the URL does not say. */
export const DEFAULT_URL_LIFETIME_MS = 300_000;

/**
 * When an S3-style presigned URL stops working: X-Amz-Date (ISO basic `20260701T100000Z`,
 * or epoch seconds) plus X-Amz-Expires seconds; otherwise `mintedAt` plus the usual
 * lifetime.
 */
export function signedUrlExpiry(url: string, mintedAt: number): number {
  try {
    const params = new URL(url).searchParams;
    const expires = Number(params.get('X-Amz-Expires'));
    const date = params.get('X-Amz-Date') ?? '';
    const basic = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(date);
    const issued = basic
      ? Date.UTC(+basic[1]!, +basic[2]! - 1, +basic[3]!, +basic[4]!, +basic[5]!, +basic[6]!)
      : /^\d+$/.test(date)
        ? Number(date) * 1000
        : NaN;
    if (Number.isFinite(issued) && Number.isFinite(expires) && expires > 0)
      return issued + expires * 1000;
  } catch {
    // Not a URL we can read: fall back to the documented lifetime.
  }
  return mintedAt + DEFAULT_URL_LIFETIME_MS;
}
