/** Display helpers shared by the tree, the status bar and the webview (no vscode import). */

export function relativeTime(iso: string | undefined, now = Date.now()): string | undefined {
  if (!iso) return undefined;
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return undefined;
  const seconds = Math.round((now - then) / 1000);
  const abs = Math.abs(seconds);
  const suffix = seconds >= 0 ? 'ago' : 'from now';
  if (abs < 45) return 'just now';
  if (abs < 3600) return `${Math.round(abs / 60)}m ${suffix}`;
  if (abs < 86400) return `${Math.round(abs / 3600)}h ${suffix}`;
  if (abs < 86400 * 45) return `${Math.round(abs / 86400)}d ${suffix}`;
  return new Date(then).toISOString().slice(0, 10);
}

export function formatTokens(n: number | undefined): string | undefined {
  if (n === undefined) return undefined;
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 2 : 1)}M`;
}

/** Undefined cost is "unknown", never "$0.00"; a negative one is the server's error, not a fact. */
export function formatCost(usd: number | undefined): string {
  if (usd === undefined || !Number.isFinite(usd)) return 'cost unknown';
  if (usd < 0) return `cost unknown (the server sent a negative cost, ${usd.toFixed(2)})`;
  return usd < 0.01 && usd > 0 ? '<$0.01' : `$${usd.toFixed(2)}`;
}
