import { sourceOperation, type LocalFiles, type SessionSource } from './sessionSource.ts';

/**
 * Transitional, until the webview host reads `sourceOperation(source, 'localFiles')` itself
 * (it is being restructured meanwhile); then this file goes.
 */
export function hasLocalUsage(
  source: SessionSource | undefined,
): source is SessionSource & LocalFiles {
  return sourceOperation(source, 'localFiles') !== undefined;
}
