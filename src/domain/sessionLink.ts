/**
 * "Copy Link": the session's page on its backend's web UI, where the backend gives one in a
 * `link` field of the row. None of today's backends does (the reporting server's canonical
 * session URL is not in its listing), so the command stays hidden for their sessions.
 * Untrusted: only an absolute http(s) URL without credentials is offered.
 */
export function sessionLink(session: object): string | undefined {
  const link = (session as { link?: unknown }).link;
  if (typeof link !== 'string' || link.length > 2048) return undefined;
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password) return undefined;
  return url.href;
}
