/**
 * Opaque page keys. They encode an offset plus the listing they belong to, so a key
 * from one listing is refused by another instead of silently paging the wrong list.
 */
export function encodePageKey(scope: string, offset: number): string {
  return Buffer.from(JSON.stringify([scope, offset])).toString('base64url');
}

export function decodePageKey(scope: string, key: string): number | undefined {
  try {
    const [keyScope, offset] = JSON.parse(Buffer.from(key, 'base64url').toString('utf8')) as [
      unknown,
      unknown,
    ];
    return keyScope === scope && Number.isSafeInteger(offset) && (offset as number) >= 0
      ? (offset as number)
      : undefined;
  } catch {
    return undefined;
  }
}

export type PageRequest =
  { ok: true; offset: number; limit: number } | { ok: false; message: string };

export function pageRequest(
  params: URLSearchParams,
  scope: string,
  defaultLimit: number,
  maxLimit: number,
): PageRequest {
  const rawLimit = params.get('limit');
  let limit = defaultLimit;
  if (rawLimit !== null) {
    limit = Number(rawLimit);
    if (!/^\d+$/.test(rawLimit) || limit < 1 || limit > maxLimit) {
      return { ok: false, message: `limit must be an integer between 1 and ${maxLimit}` };
    }
  }
  const key = params.get('page_key');
  if (key === null || key === '') return { ok: true, offset: 0, limit };
  const offset = decodePageKey(scope, key);
  return offset === undefined
    ? { ok: false, message: 'Invalid page_key' }
    : { ok: true, offset, limit };
}

/** A page of items and the metadata of the agents API: page_key only while more remain. */
export function page<T>(
  items: readonly T[],
  offset: number,
  limit: number,
  scope: string,
): { items: T[]; metadata: { page_key?: string } } {
  const slice = items.slice(offset, offset + limit);
  const next = offset + slice.length;
  return {
    items: slice,
    metadata: next < items.length ? { page_key: encodePageKey(scope, next) } : {},
  };
}
