import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ChangeBatcher, type FileChangeBatch } from '../../../src/util/changeBatcher.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ChangeBatcher', () => {
  test('a burst of events is one batch, each path once', async () => {
    const batches: FileChangeBatch[] = [];
    const b = new ChangeBatcher((batch) => void batches.push(batch), { delayMs: 20 });
    b.add('changed', '/a');
    b.add('changed', '/a');
    b.add('created', '/b');
    b.add('deleted', '/c');
    await b.idle();
    assert.deepEqual(batches, [{ changed: ['/a'], created: ['/b'], deleted: ['/c'] }]);
  });

  test('never two batches at once; events during a batch make the next one', async () => {
    const seen: string[][] = [];
    let running = 0;
    let overlapped = false;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const b = new ChangeBatcher(
      async (batch) => {
        running++;
        if (running > 1) overlapped = true;
        seen.push(batch.changed);
        if (seen.length === 1) await gate;
        running--;
      },
      { delayMs: 5 },
    );
    b.add('changed', '/1');
    await sleep(30);
    b.add('changed', '/2');
    b.add('changed', '/3');
    await sleep(30);
    assert.deepEqual(seen, [['/1']], 'the second batch waits for the first');
    release();
    await b.idle();
    assert.deepEqual(seen, [['/1'], ['/2', '/3']]);
    assert.equal(overlapped, false);
  });

  test('a failing handler is reported and later events still flow', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const b = new ChangeBatcher(
      () => {
        calls++;
        if (calls === 1) throw new Error('boom');
      },
      { delayMs: 5, onError: (e) => errors.push(e) },
    );
    b.add('changed', '/x');
    await b.idle();
    b.add('changed', '/y');
    await b.idle();
    assert.equal(calls, 2);
    assert.equal((errors[0] as Error).message, 'boom');
  });

  test('nothing is handed on after dispose', async () => {
    let calls = 0;
    const b = new ChangeBatcher(() => void calls++, { delayMs: 5 });
    b.add('changed', '/x');
    b.dispose();
    await sleep(20);
    b.add('changed', '/y');
    await sleep(20);
    assert.equal(calls, 0);
  });
});
