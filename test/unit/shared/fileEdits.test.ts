import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  applyChange,
  diffOfChange,
  fileChangesOfToolCall,
  parseApplyPatch,
} from '../../../src/shared/fileEdits.ts';

const PATCH = [
  '*** Begin Patch',
  '*** Add File: docs/new.md',
  '+# New',
  '+',
  '+text',
  '*** Update File: src/app.ts',
  '*** Move to: src/main.ts',
  '@@ function main() {',
  ' const a = 1;',
  '-const b = 2;',
  '+const b = 3;',
  '+const c = 4;',
  ' return a;',
  '*** Delete File: old.txt',
  '*** End Patch',
].join('\n');

test('apply_patch: add, update with move, delete', () => {
  const changes = parseApplyPatch(PATCH);
  assert.deepEqual(changes, [
    { path: 'docs/new.md', kind: 'create', content: '# New\n\ntext\n' },
    {
      path: 'src/app.ts',
      kind: 'update',
      movedTo: 'src/main.ts',
      replacements: [
        {
          oldText: 'const a = 1;\nconst b = 2;\nreturn a;',
          newText: 'const a = 1;\nconst b = 3;\nconst c = 4;\nreturn a;',
        },
      ],
    },
    { path: 'old.txt', kind: 'delete' },
  ]);
  const update = diffOfChange(changes![1]!);
  assert.equal(update.added, 2);
  assert.equal(update.removed, 1);
  assert.deepEqual(
    update.hunks[0]!.lines.map((l) => `${l.kind[0]}${l.text}`),
    ['cconst a = 1;', 'rconst b = 2;', 'aconst b = 3;', 'aconst c = 4;', 'creturn a;'],
  );
  assert.equal(diffOfChange(changes![0]!).added, 3);
});

test('Codex apply_patch as a JSON tool, as a shell command, and as raw input', () => {
  const asTool = fileChangesOfToolCall('apply_patch', JSON.stringify({ input: PATCH }, null, 2));
  const asShell = fileChangesOfToolCall(
    'shell',
    JSON.stringify({ command: ['apply_patch', PATCH], workdir: '/w' }),
  );
  const heredoc = fileChangesOfToolCall(
    'shell',
    JSON.stringify({ command: ['bash', '-lc', `apply_patch <<'EOF'\n${PATCH}\nEOF`] }),
  );
  const raw = fileChangesOfToolCall('apply_patch', PATCH);
  for (const changes of [asTool, asShell, heredoc, raw]) assert.equal(changes?.length, 3);
  assert.equal(fileChangesOfToolCall('shell', JSON.stringify({ command: ['ls'] })), undefined);
});

test('Claude Code Edit, MultiEdit, Write, and an Edit that creates a file', () => {
  const edit = fileChangesOfToolCall(
    'Edit',
    JSON.stringify({
      file_path: '/p/a.ts',
      old_string: 'x = 1',
      new_string: 'x = 2',
      replace_all: true,
    }),
  );
  assert.deepEqual(edit, [
    {
      path: '/p/a.ts',
      kind: 'update',
      replacements: [{ oldText: 'x = 1', newText: 'x = 2', replaceAll: true }],
    },
  ]);
  const multi = fileChangesOfToolCall(
    'MultiEdit',
    JSON.stringify({
      file_path: '/p/a.ts',
      edits: [
        { old_string: 'a', new_string: 'b' },
        { old_string: 'c', new_string: 'd' },
      ],
    }),
  );
  assert.equal(multi?.[0]?.replacements?.length, 2);
  assert.deepEqual(
    fileChangesOfToolCall('Write', JSON.stringify({ file_path: '/p/b.ts', content: 'hi\n' })),
    [{ path: '/p/b.ts', kind: 'write', content: 'hi\n' }],
  );
  assert.deepEqual(
    fileChangesOfToolCall(
      'Edit',
      JSON.stringify({ file_path: '/p/c.ts', old_string: '', new_string: 'new' }),
    ),
    [{ path: '/p/c.ts', kind: 'create', content: 'new' }],
  );
  // A truncated input is not JSON: no change rather than a wrong one.
  assert.equal(fileChangesOfToolCall('Edit', '{"file_path": "/p/a.ts", "old_str'), undefined);
  assert.equal(fileChangesOfToolCall('Read', JSON.stringify({ file_path: '/p/a.ts' })), undefined);
});

test('applyChange rebuilds after from before, and says when it cannot', () => {
  const [update] = fileChangesOfToolCall(
    'MultiEdit',
    JSON.stringify({
      file_path: 'f',
      edits: [
        { old_string: 'one', new_string: 'uno' },
        { old_string: 'two', new_string: 'dos' },
      ],
    }),
  )!;
  assert.equal(applyChange('one two one', update!), 'uno dos one');
  assert.equal(applyChange(undefined, update!), undefined);
  assert.equal(applyChange('three', update!), undefined);
  const [all] = fileChangesOfToolCall(
    'Edit',
    JSON.stringify({ file_path: 'f', old_string: 'a', new_string: '$&b', replace_all: true }),
  )!;
  assert.equal(applyChange('a-a', all!), '$&b-$&b');
});

test('real Claude Code transcript: every Edit and Write of a published session reads as a change', () => {
  const file = new URL(
    '../../fixtures/real/claude/sniffly/-Users-chip-dev-ai-music/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl',
    import.meta.url,
  );
  let calls = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const record = JSON.parse(line) as { message?: { content?: unknown } };
    const content = record.message?.content;
    if (!Array.isArray(content)) continue;
    for (const block of content as { type?: string; name?: string; input?: unknown }[]) {
      if (block.type !== 'tool_use' || !['Edit', 'Write', 'MultiEdit'].includes(block.name ?? ''))
        continue;
      calls++;
      const changes = fileChangesOfToolCall(block.name!, JSON.stringify(block.input, null, 2));
      assert.ok(changes && changes.length > 0, `${block.name} read as a change`);
      const diff = diffOfChange(changes[0]!);
      assert.ok(diff.added + diff.removed > 0);
    }
  }
  assert.ok(calls >= 4, `found ${calls} edit calls`);
});
