/**
 * <transcript-view> when the host gives it a file again or a longer one than it asked
 * windows of: what it shows is always the file the host has open now, and every entry of
 * it loads (no placeholder left waiting for a window the view thinks it has).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { HostMessage, TranscriptEntry } from '../../src/shared/protocol.ts';
import { openHarness, until } from './support/harness.ts';
import type { Harness } from './support/harness.ts';
import type { Probe } from './support/probeTypes.ts';

let h: Harness;
before(async () => {
  h = await openHarness();
});
after(() => h?.close());

/** `count` prompts, each saying which file and entry it is. */
function prompts(file: string, count: number): TranscriptEntry[] {
  return Array.from({ length: count }, (_, index) => ({
    index,
    source: { first: index + 1, last: index + 1 },
    timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, index)).toISOString(),
    truncated: false,
    kind: 'user',
    variant: 'prompt',
    text: `${file} entry #${index}`,
  }));
}

const loading: HostMessage = {
  type: 'transcriptStatus',
  fileKey: 'main',
  files: [],
  status: { state: 'loading', message: 'Loading the transcript…' },
};

/** Every row of the (short) transcript, once none is a placeholder. */
async function allRows(count: number, what: string) {
  try {
    return await until(
      () => h.probe.rows(),
      (rows) => rows.length === count && rows.every((r) => !r.placeholder),
      what,
    );
  } catch (error) {
    const rows = await h.probe.rows();
    const placeholders = rows.filter((r) => r.placeholder).map((r) => r.index);
    throw new Error(`${what}: ${rows.length} rows, placeholders ${placeholders.join(' ')}`, {
      cause: error,
    });
  }
}

test('the host opens the same file key again: only the new file shows, every entry loads', async () => {
  await h.load();
  await h.probe.setTranscriptHeight(3_000);
  await h.probe.setTranscript({ entries: prompts('first', 20) });
  await allRows(20, 'the first file');

  // Opened again (Retry, or the file changed while it was closed): a shorter file.
  await h.probe.send(loading);
  await h.probe.setTranscript({ entries: prompts('second', 12) });
  const second = await allRows(12, 'the second file');
  for (const row of second) assert.match(row.text, new RegExp(`second entry #${row.index}\\b`));

  // An empty file, then a longer one than the last with entries.
  await h.probe.send(loading);
  await h.probe.setTranscript({ entries: [] });
  await h.probe.send(loading);
  await h.probe.setTranscript({ entries: prompts('third', 16) });
  const third = await allRows(16, 'the third file');
  for (const row of third) assert.match(row.text, new RegExp(`third entry #${row.index}\\b`));
  assert.deepEqual(h.pageErrors, []);
});

test('a window answered after the file grew loads the entries since (indexing)', async () => {
  await h.load();
  await h.probe.setTranscriptHeight(3_000);
  // The host's first ready status counts 16 entries (still indexing); the view asks for
  // them; the next status (30, indexing done) arrives before the answer to that request,
  // which holds the 16 entries asked for.
  await h.page.evaluate(() => {
    const probe = (globalThis as unknown as { __probe: Probe }).__probe;
    probe.setTranscript({ generated: 30, entryCount: 16 });
    probe.setTranscript({ generated: 30 });
  });
  const rows = await allRows(30, 'the 30 entries');
  for (const row of rows) assert.ok(row.text.includes(`#${row.index}`), row.text);
  assert.deepEqual(h.pageErrors, []);
});
