import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { IdSet, idHash, idHashOfBytes } from '../../../../src/domain/transcript/idSet.ts';

describe('IdSet (the ids a transcript index has seen)', () => {
  test('remembers every id through growth, and nothing else', () => {
    const ids = Array.from({ length: 20_000 }, () => randomUUID());
    const set = new IdSet();
    for (const id of ids.slice(0, 10_000)) set.add(idHash(id));
    set.add(idHash(ids[0]!)); // again: no new member
    assert.equal(set.size, 10_000);
    assert.ok(ids.slice(0, 10_000).every((id) => set.has(idHash(id))));
    assert.ok(ids.slice(10_000).every((id) => !set.has(idHash(id))));
    set.clear();
    assert.equal(set.size, 0);
    assert.equal(set.has(idHash(ids[0]!)), false);
  });

  test('hashes are below 2^53, and the same from bytes as from the string', () => {
    for (const id of ['', 'a', randomUUID(), 'm:msg_01S4sUt34qqa69wZoj6YKpzw']) {
      const h = idHash(id);
      assert.ok(Number.isSafeInteger(h) && h >= 0, id);
      const bytes = Buffer.from(`"${id}"`);
      assert.equal(idHashOfBytes(bytes, 1, bytes.length - 1), h, id);
    }
    assert.notEqual(idHash('ab'), idHash('ba'));
  });
});
