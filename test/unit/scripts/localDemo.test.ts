import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLocalDemo } from '../../../scripts/lib/localDemo.ts';

/** Every `timestamp` and `backupTime` of the lines, at any depth (snapshots, progress copies). */
const times = (text: string) =>
  [...text.matchAll(/"(?:timestamp|backupTime)":"([^"]+)"/g)].map((m) => Date.parse(m[1]!));
/** Each line's own (top-level) timestamp. */
const lineTimes = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { timestamp?: string }).timestamp)
    .filter((t): t is string => t !== undefined)
    .map((t) => Date.parse(t));

test("npm start's live session: nothing is written before startWriting, then lines stamped with the time they are written, and stop ends it", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'asi-local-demo-'));
  try {
    const demo = await startLocalDemo(dir, 10);
    const before = await readFile(demo.liveFile, 'utf8');
    await sleep(60);
    assert.equal(await readFile(demo.liveFile, 'utf8'), before, 'written before startWriting');
    // The first lines are the session so far: in the past.
    const started = Date.now();
    assert.ok(times(before).every((t) => t <= started));

    demo.startWriting();
    await sleep(600);
    demo.stop();
    await sleep(200); // an append already under way lands
    const written = await readFile(demo.liveFile, 'utf8');
    const stopped = Date.now();
    const appended = written.slice(before.length);
    assert.ok(lineTimes(appended).length >= 5, `only ${lineTimes(appended).length} lines`);
    // Stamped when written (the generator's own times run hours ahead), nested ones too.
    for (const t of lineTimes(appended)) assert.ok(t >= started - 5, new Date(t).toISOString());
    for (const t of times(appended)) assert.ok(t <= stopped, new Date(t).toISOString());
    await sleep(100);
    assert.equal(await readFile(demo.liveFile, 'utf8'), written, 'written after stop');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
