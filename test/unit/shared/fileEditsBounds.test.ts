/**
 * diffOfChange stays cheap on big inputs (it runs while the transcript draws): a new file
 * is not run through the diff algorithm, and a replacement that differs in more than
 * MAX_EDIT_LINES lines is shown as one hunk that removes the old lines and adds the new.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { structuredPatch } from 'diff';
import { MAX_EDIT_LINES, diffOfChange } from '../../../src/shared/fileEdits.ts';

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} ${i}`);

test('a new file: every line added, numbered as jsdiff numbers it', () => {
  const small = diffOfChange({ path: 'a', kind: 'create', content: 'x\ny\n' });
  const jsdiff = structuredPatch('a', 'b', '', 'x\ny\n', '', '', { context: 3 }).hunks[0]!;
  assert.equal(
    small.hunks[0]!.header,
    `@@ -${jsdiff.oldStart},${jsdiff.oldLines} +${jsdiff.newStart},${jsdiff.newLines} @@`,
  );
  assert.deepEqual(
    small.hunks[0]!.lines.map((l) => `${l.kind[0]}${l.text}`),
    ['ax', 'ay'],
  );
  const big = diffOfChange({ path: 'a', kind: 'write', content: lines(20_000, 'l').join('\n') });
  assert.equal(big.added, 20_000);
  assert.equal(big.removed, 0);
  assert.equal(big.hunks.length, 1);
  assert.equal(big.hunks[0]!.header, '@@ -1,0 +1,20000 @@');
  assert.equal(big.hunks[0]!.lines[19_999]!.text, 'l 19999');
});

test('a replacement beyond MAX_EDIT_LINES is one hunk between the common head and tail', () => {
  const common = lines(300, 'same');
  const end = lines(300, 'end');
  const before = [...common, ...lines(MAX_EDIT_LINES, 'old'), ...end].join('\n');
  const after = [...common, ...lines(MAX_EDIT_LINES, 'new'), ...end].join('\n');
  const diff = diffOfChange({
    path: 'a',
    kind: 'update',
    replacements: [{ oldText: before, newText: after }],
  });
  assert.equal(diff.removed, MAX_EDIT_LINES);
  assert.equal(diff.added, MAX_EDIT_LINES);
  assert.equal(diff.hunks.length, 1);
  const hunk = diff.hunks[0]!;
  assert.equal(hunk.header, `@@ -298,${MAX_EDIT_LINES + 6} +298,${MAX_EDIT_LINES + 6} @@`);
  assert.deepEqual(
    hunk.lines.slice(0, 4).map((l) => `${l.kind[0]}${l.text}`),
    ['csame 297', 'csame 298', 'csame 299', 'rold 0'],
  );
  assert.deepEqual(
    hunk.lines.slice(-4).map((l) => `${l.kind[0]}${l.text}`),
    ['anew 199', 'cend 0', 'cend 1', 'cend 2'],
  );
});

test('a small edit inside a big fragment is still a minimal diff', () => {
  const before = lines(3_000, 'line');
  const after = [...before];
  after[1_500] = 'changed';
  const diff = diffOfChange({
    path: 'a',
    kind: 'update',
    replacements: [{ oldText: before.join('\n'), newText: after.join('\n') }],
  });
  assert.equal(diff.added, 1);
  assert.equal(diff.removed, 1);
  assert.equal(diff.hunks[0]!.header, '@@ -1498,7 +1498,7 @@');
});
