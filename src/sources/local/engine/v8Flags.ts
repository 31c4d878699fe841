/**
 * The V8 flags of a scan process (a helper process, or the usage-report CLI once its
 * worker threads are up). A cold scan is a burst of about a second, shorter than V8's
 * optimising tier (TurboFan) takes to pay back its compiles in each thread, so scanning
 * code is left to Maglev, the tier below; and the young generation does not grow
 * (figures: docs/performance.md).
 */
import { setFlagsFromString } from 'node:v8';

/**
 * `--semi-space-growth-factor=1`: the young generation keeps the size it has when the
 * flag is set instead of growing to 16 MB per semi-space: a scan's garbage is short-lived
 * line by line, and the larger space held memory without saving time.
 */
const SCAN_PROCESS_FLAGS = ['--no-turbofan', '--semi-space-growth-factor=1'];

/**
 * Sets the flags for this process. A process of its own can choose them; the extension
 * host cannot, hence helper processes. Call once the process (and its worker threads)
 * have started: Node's built-in code cache, which speeds start-up, is only used under
 * the default flags.
 */
export function useScanProcessFlags(): void {
  for (const flag of SCAN_PROCESS_FLAGS) setFlagsFromString(flag);
}
