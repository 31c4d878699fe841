/**
 * A child process for the persisted index tests (persistedIndex.test.ts), told what to be
 * by its first argument:
 * - `window <store> <claudeDir> <codexHome>`: a window opening: waits for "go", refreshes
 *   a LocalIndex that persists to <store>, sends its scan counters and exits.
 * - `writer <store> <entries>`: saves a large synthetic index over and over, sending
 *   "saved" after each, until it is killed.
 * - `saver <store> <claudeDir> <codexHome> <file>`: a window as the extension host runs
 *   it: opens (from the index when there is one), then over and over appends a response
 *   to <file>, refreshes and saves the index the way LocalIndex does, sending "saved"
 *   after each, until it is killed.
 */
import { appendFile } from 'node:fs/promises';
import { LocalIndex } from '../../../../src/sources/local/localIndex.ts';
import { PersistedIndex } from '../../../../src/sources/local/persistedIndex.ts';
import { assistant, jsonl, usage } from './fixtures.ts';
import { syntheticIndex } from './indexFixtures.ts';

const [role, store, a, b] = process.argv.slice(2);
const send = (message: unknown) => process.send?.(message);

if (role === 'window') {
  process.once('message', async () => {
    const index = new LocalIndex({
      claudeConfigDirs: [a!],
      codexHome: b!,
      persist: { dir: store!, version: 'test' },
    });
    const snapshot = await index.refresh();
    await index.dispose();
    send({
      stats: index.cache.stats,
      persist: index.persisted!.stats,
      sessions: snapshot.sessions.length,
    });
    process.disconnect();
  });
  send('ready');
} else if (role === 'writer') {
  const files = syntheticIndex(Number(a));
  const index = new PersistedIndex({ dir: store!, version: 'test' }, ['synthetic']);
  for (let round = 0; ; round++) {
    await index.save(files);
    send({ saved: round });
  }
} else if (role === 'saver') {
  const file = process.argv[6]!;
  const index = new LocalIndex({
    claudeConfigDirs: [a!],
    codexHome: b!,
    persist: { dir: store!, version: 'test' },
  });
  await index.refresh();
  await index.saveIndex();
  for (let round = 0; ; round++) {
    const id = `msg_saver_${process.pid}_${round}`;
    await appendFile(file, jsonl(assistant({ id, requestId: id, usage: usage(3, round) })));
    await index.refresh();
    await index.saveIndex();
    send({ saved: round });
  }
}
