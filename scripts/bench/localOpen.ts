/**
 * One window opening from a persisted index, alone in a fresh process (as a new extension
 * host starts): `node scripts/bench/localOpen.ts <store> <claudeDir> <codexHome>` prints
 * JSON: the time from before the index is created to the saved rows shown (as LocalSource
 * shows them first) and to the checked sessions built after them, this process's peak
 * RSS growth meanwhile, the transcript bytes read, the index read time, whether no row
 * was aggregated again, and both sets of rows (to compare with a scan's). See local.ts.
 */
import { LocalIndex } from '../../src/sources/local/localIndex.ts';

const [store, claudeDir, codexHome] = process.argv.slice(2);
const start = process.memoryUsage.rss();
let peak = start;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 2);
const started = performance.now();
const cpuStart = process.cpuUsage();
const cpuMs = () => {
  const c = process.cpuUsage(cpuStart);
  return (c.user + c.system) / 1000;
};
const index = new LocalIndex({
  claudeConfigDirs: [claudeDir!],
  codexHome: codexHome!,
  persist: { dir: store!, version: 'bench' },
});
const shown = await index.savedRows();
// What a window's first listing takes of them: the first page and the waiting sessions.
const firstPage = shown
  ?.select(() => true)
  .slice(0, 100)
  .map((i) => shown.summary(i));
const waiting = shown?.select((_h, status) => status === 'waiting').map((i) => shown.summary(i));
const shownMs = performance.now() - started;
const shownCpuMs = cpuMs();
const snapshot = await index.refresh();
const ms = performance.now() - started;
const openCpuMs = cpuMs();
peak = Math.max(peak, process.memoryUsage.rss());
clearInterval(timer);
const s = index.cache.stats;
process.stdout.write(
  JSON.stringify({
    ms,
    cpuMs: openCpuMs,
    shownCpuMs: shown ? shownCpuMs : null,
    shownMs: shown ? shownMs : null,
    shownPage: (firstPage?.length ?? 0) + (waiting?.length ?? 0),
    peakMb: (peak - start) / 1_048_576,
    read: s.bytesRead + s.statusBytes + s.checkBytes,
    fullScans: s.fullScans,
    loadMs: index.persisted!.stats.loadMs,
    recomputed: index.aggregation.lastRecomputed,
    rows: JSON.stringify(snapshot.sessions.map((x) => x.summary)),
    shownRows: shown
      ? JSON.stringify(Array.from({ length: shown.length }, (_, i) => shown.summary(i)))
      : null,
  }),
);
index.persisted!.close();
