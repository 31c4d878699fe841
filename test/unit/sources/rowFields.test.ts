import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as z from 'zod';
import { rawText, readRow, UnreadableFieldLog } from '../../../src/sources/rowFields.ts';
import { silentLogger } from '../../../src/util/logger.ts';

const schema = z.looseObject({
  id: z.string().min(1),
  count: z.number().nullish(),
  status: z.string().nullish(),
  user: z.looseObject({ email: z.string().nullish(), name: z.string().nullish() }).nullish(),
  tags: z.array(z.string()).nullish(),
});

describe('readRow', () => {
  it('a valid row is read whole, unknown fields kept', () => {
    const row = readRow(schema, { id: 'a', count: 2, extra: { x: 1 } });
    assert.deepEqual(row, { data: { id: 'a', count: 2, extra: { x: 1 } }, unreadable: [] });
  });

  it('wrongly typed optional fields are left out and named; the rest of the row is kept', () => {
    const input = { id: 'a', count: '2', status: 7, user: { email: 5, name: 'Ada' }, tags: [1] };
    const row = readRow(schema, input);
    assert.ok(row);
    assert.deepEqual(row.unreadable, ['count', 'status', 'user.email', 'tags']);
    assert.equal(row.data.tags, undefined, 'a list with a bad entry is unreadable as a whole');
    assert.equal(row.data.count, undefined);
    assert.equal(row.data.status, undefined);
    assert.deepEqual(row.data.user, { name: 'Ada' });
    assert.equal(input.count, '2', 'the input is not changed');
    assert.deepEqual(input.user, { email: 5, name: 'Ada' });
  });

  it('a nested object without its required field is unreadable as a whole, the row kept', () => {
    const nested = z.looseObject({
      id: z.string(),
      owner: z.looseObject({ id: z.string(), name: z.string().nullish() }).nullish(),
    });
    const row = readRow(nested, { id: 'a', owner: { id: 4, name: 'x' } });
    assert.deepEqual(row, { data: { id: 'a' }, unreadable: ['owner'] });
  });

  it('a row without a readable id, or not an object, is unusable', () => {
    for (const item of [{ id: 5 }, { count: 1 }, { id: '' }, null, 'row', 3, [{ id: 'a' }]]) {
      assert.equal(readRow(schema, item), undefined, JSON.stringify(item));
    }
  });
});

describe('rawText', () => {
  it('shows what the server sent, short', () => {
    assert.equal(rawText('RUNNING'), 'RUNNING');
    assert.equal(rawText(4), '4');
    assert.equal(rawText({ a: 1 }), '{"a":1}');
    assert.equal(rawText(null), '');
    assert.equal(rawText('x'.repeat(500)).length, 201);
  });
});

describe('UnreadableFieldLog', () => {
  it('one line per row and set of fields, however often the row is read', () => {
    const lines: string[] = [];
    const log = new UnreadableFieldLog(
      { ...silentLogger, warn: (m) => void lines.push(m) },
      'Conn',
    );
    log.note('row-1', ['count']);
    log.note('row-1', ['count']);
    log.note('row-1', ['count', 'status']);
    log.note('row-2', []);
    assert.equal(lines.length, 2);
    assert.match(
      lines[0]!,
      /^Conn: row "row-1": could not read count; the row is kept without it$/,
    );
    assert.match(lines[1]!, /could not read count, status; the row is kept without them$/);
  });
});
