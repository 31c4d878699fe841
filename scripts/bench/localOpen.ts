/**
 * One window opening from a persisted index, alone in a fresh process (as a new extension
 * host starts): `node scripts/bench/localOpen.ts <store> <claudeDir> <codexHome>` prints
 * JSON: the time from before the index is created to the sessions built, this process's
 * peak RSS growth meanwhile, the transcript bytes read, the index read time, whether no
 * row was aggregated again, and the rows (to compare with a scan's). See local.ts.
 */
import { LocalIndex } from '../../src/sources/local/localIndex.ts';

const [store, claudeDir, codexHome] = process.argv.slice(2);
const start = process.memoryUsage.rss();
let peak = start;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 2);
const started = performance.now();
const index = new LocalIndex({
  claudeConfigDirs: [claudeDir!],
  codexHome: codexHome!,
  persist: { dir: store!, version: 'bench' },
});
const snapshot = await index.refresh();
const ms = performance.now() - started;
peak = Math.max(peak, process.memoryUsage.rss());
clearInterval(timer);
const s = index.cache.stats;
process.stdout.write(
  JSON.stringify({
    ms,
    peakMb: (peak - start) / 1_048_576,
    read: s.bytesRead + s.statusBytes + s.checkBytes,
    fullScans: s.fullScans,
    loadMs: index.persisted!.stats.loadMs,
    recomputed: index.aggregation.lastRecomputed,
    rows: JSON.stringify(snapshot.sessions.map((x) => x.summary)),
  }),
);
index.persisted!.close();
