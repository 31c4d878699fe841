/** Synthetic persisted-index entries (the kill-mid-write test): large, deterministic. */
import { ClaudeCodeScanner } from '../../../../src/sources/local/claudeCodeScan.ts';
import type { RestingFile } from '../../../../src/sources/local/persistedIndex.ts';
import type { UsageRecord } from '../../../../src/sources/local/types.ts';
import { usageRecord } from '../../../../src/sources/local/usageRecord.ts';
import { assistant, jsonl, prompt, usage } from './fixtures.ts';

/** `n` files of 200 usage records each, the scanner state of a short real-shaped file. */
export function syntheticIndex(n: number): RestingFile[] {
  const text = Buffer.from(jsonl(prompt('go'), assistant({ id: 'm1', usage: usage(1, 10) })));
  const scanner = new ClaudeCodeScanner('/synthetic', { role: 'session', sessionId: 'S' });
  scanner.feed(text);
  scanner.finish();
  const state = scanner.saveState();
  const files: RestingFile[] = [];
  for (let i = 0; i < n; i++) {
    const records = new Map<string, UsageRecord>();
    for (let k = 0; k < 200; k++) {
      records.set(
        `msg_${i}_${k}:req_${k}`,
        usageRecord('claude-sonnet-4-5', 1.7e12 + k, k, 2 * k, 3 * k, 4 * k, 0, 0),
      );
    }
    files.push({
      path: `/synthetic/projects/p/${i}.jsonl`,
      size: text.length,
      mtimeMs: 1.7e12 + i,
      ino: i,
      dev: 1,
      tail: text.subarray(text.length - 64),
      state,
      usage: records,
      copies: new Map(),
    });
  }
  return files;
}
