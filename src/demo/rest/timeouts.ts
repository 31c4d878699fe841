import type { IncomingHttpHeaders } from 'node:http';

export type TimeoutHeader =
  | { readonly ok: true; readonly ms: number | undefined }
  | { readonly ok: false; readonly message: string };

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Request-Timeout (seconds) and Request-Timeout-Millis, minimum 1 each. When both are
 * sent the millisecond header wins, being the more precise of the two.
 */
export function parseRequestTimeout(headers: IncomingHttpHeaders): TimeoutHeader {
  const millis = single(headers['request-timeout-millis']);
  const seconds = single(headers['request-timeout']);
  const parse = (raw: string, name: string, factor: number): TimeoutHeader => {
    const n = Number(raw.trim());
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1) {
      return { ok: false, message: `${name} must be an integer of at least 1` };
    }
    return { ok: true, ms: n * factor };
  };
  if (millis !== undefined) return parse(millis, 'Request-Timeout-Millis', 1);
  if (seconds !== undefined) return parse(seconds, 'Request-Timeout', 1000);
  return { ok: true, ms: undefined };
}
