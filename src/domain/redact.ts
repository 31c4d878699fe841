/**
 * Removes secrets from text before it reaches a log, an error message or a webview.
 * Known tokens are replaced exactly; common token shapes are masked as a safety net.
 */
const TOKEN_SHAPES: RegExp[] = [
  /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{6,}/gi,
  /\b(x-api-key["']?\s*[:=]\s*["']?)[^\s"',}]+/gi,
  /\b(authorization["']?\s*[:=]\s*["']?)[^\s"',}]+/gi,
  /\b(sk_(?:live|test)_)[A-Za-z0-9]+/g,
  /([?&](?:token|api_key|apikey|X-Amz-Signature|sig|signature)=)[^&\s"']+/gi,
];

export function redact(text: string, knownSecrets: Iterable<string> = []): string {
  let out = text;
  for (const secret of knownSecrets) {
    if (secret.length >= 4) out = out.split(secret).join('****');
  }
  for (const shape of TOKEN_SHAPES) out = out.replace(shape, '$1****');
  return out;
}
