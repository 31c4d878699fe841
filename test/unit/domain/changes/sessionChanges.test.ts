import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generateCodexTranscript } from '../../../../src/demo/transcripts/index.ts';
import { collectChangeEntries } from '../../../../src/domain/changes/collectEntries.ts';
import {
  sessionChanges,
  wholeFileOfRead,
  type ChangedFile,
} from '../../../../src/domain/changes/sessionChanges.ts';
import type { ToolCallEntry, TranscriptEntry } from '../../../../src/domain/transcript/model.ts';
import { applyChange, fileChangesOfToolCall } from '../../../../src/shared/fileEdits.ts';
import { docOf, openDoc, tempFile } from '../transcript/fixtures.ts';

const REAL = join(import.meta.dirname, '../../../fixtures/real/claude');

function jsonlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsonlFiles(path);
    return name.endsWith('.jsonl') ? [path] : [];
  });
}

interface Recorded {
  callId: string;
  tool: string;
  input: Record<string, unknown>;
  filePath: string;
  originalFile: string | null;
}

/**
 * What the harness itself recorded next to each Edit/Write result (`toolUseResult`): the
 * file's text just before the call. Independent of the tool calls we rebuild from.
 */
function recordedOriginals(path: string): Recorded[] {
  const uses = new Map<string, { name: string; input: Record<string, unknown> }>();
  const out: Recorded[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let record: {
      message?: { content?: unknown };
      toolUseResult?: { filePath?: string; originalFile?: string | null };
    };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      continue;
    }
    const content = Array.isArray(record.message?.content) ? record.message.content : [];
    for (const block of content as {
      type?: string;
      id?: string;
      name?: string;
      input?: Record<string, unknown>;
      tool_use_id?: string;
      is_error?: boolean;
    }[]) {
      if (block.type === 'tool_use' && block.id)
        uses.set(block.id, { name: block.name!, input: block.input! });
      if (block.type !== 'tool_result' || block.is_error) continue;
      const use = uses.get(block.tool_use_id ?? '');
      const result = record.toolUseResult;
      if (!use || !result || typeof result !== 'object' || !result.filePath) continue;
      if (!('originalFile' in result)) continue;
      out.push({
        callId: block.tool_use_id!,
        tool: use.name,
        input: use.input,
        filePath: result.filePath,
        originalFile: result.originalFile ?? null,
      });
    }
  }
  return out;
}

/** The raw lines from the one that calls `fromId` to the one that calls `toId`. */
function rawBetween(path: string, fromId: string, toId: string): string[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const from = lines.findIndex((l) => l.includes(`"id":"${fromId}"`));
  const to = lines.findIndex((l) => l.includes(`"id":"${toId}"`));
  return lines.slice(from, to);
}

describe('session changes on published Claude Code sessions', () => {
  const files = jsonlFiles(REAL).filter((f) => readFileSync(f, 'utf8').includes('"originalFile"'));

  it('finds the fixtures with edits', () => {
    assert.ok(files.length >= 8, `${files.length} files with recorded originals`);
  });

  for (const file of files) {
    it(`rebuilds every known text the harness recorded: ${file.slice(REAL.length + 1)}`, async () => {
      const doc = await openDoc(file);
      const entries = await collectChangeEntries(doc);
      const changes = sessionChanges({ main: { entries } });
      const recorded = recordedOriginals(file);
      const byPath = new Map(changes.files.map((f) => [f.path, f]));
      let compared = 0;
      let outside = 0;
      // The text before each recorded call is what the calls before it rebuild.
      const calls = entries.filter(
        (e): e is ToolCallEntry =>
          e.kind === 'tool-call' && fileChangesOfToolCall(e.name, e.input) !== undefined,
      );
      for (const rec of recorded) {
        const target = calls.find((c) => c.callId === rec.callId);
        assert.ok(target, `the call ${rec.callId}`);
        const first = calls.find(
          (c) => c.status !== 'error' && JSON.parse(c.input).file_path === rec.filePath,
        );
        const whole = byPath.get(rec.filePath);
        if (first === target) {
          // The first call: our "before" is the harness's original, or honestly unknown.
          if (whole?.before !== undefined && whole.beforeFrom !== 'created') {
            assert.equal(whole.before, rec.originalFile, `before of ${rec.filePath}`);
            compared++;
          }
          continue;
        }
        const prefix = entries.filter((e) => e.index < target.index);
        const before = sessionChanges({ main: { entries: prefix } }).files.find(
          (f) => f.path === rec.filePath,
        );
        if (before?.after === undefined || before.after === null) continue;
        if (before.after !== rec.originalFile) {
          // The transcript cannot show a change made outside its file tools (a formatter run
          // through the shell or by a hook): allowed only when one of those ran in between.
          const previous = calls.filter(
            (c) => c.index < target.index && JSON.parse(c.input).file_path === rec.filePath,
          );
          const between = rawBetween(file, previous.at(-1)!.callId, target.callId);
          assert.ok(
            between.some(
              (line) => line.includes('"name":"Bash"') || line.includes('"hook_progress"'),
            ),
            `text before ${rec.callId} on ${rec.filePath} differs with no shell command or hook`,
          );
          outside++;
          continue;
        }
        compared++;
      }
      for (const f of changes.files) {
        assert.ok(f.calls.length > 0);
        if (f.before !== undefined && f.after !== undefined) {
          assert.equal(typeof f.added, 'number');
          assert.equal(f.unknownReason, undefined);
        } else {
          assert.equal(f.unknownReason, 'not-read', `${f.path}: no mismatch on real data`);
          assert.ok(f.fragments.length > 0, 'fragments stand in for unknown texts');
        }
      }
      if (recorded.length > 0 && changes.files.some((f) => f.beforeFrom === 'read'))
        assert.ok(compared > 0, 'compared at least one text');
      assert.ok(outside <= compared / 4, `${outside} texts changed outside, ${compared} equal`);
    });
  }

  it('the larger session: files in order, kinds, counts, the known befores', async () => {
    const doc = await openDoc(join(REAL, 'entire-checkpoints/89/7eb280e769/20/full.jsonl'));
    const changes = sessionChanges({ main: { entries: await collectChangeEntries(doc) } });
    const short = (f: ChangedFile) =>
      `${f.kind} ${f.path.split('/').slice(-2).join('/')} +${f.added} -${f.removed} ${f.beforeFrom}`;
    assert.deepEqual(changes.files.map(short), [
      'created scripts/entire-wrapper.sh +36 -0 created',
      'edited geminicli/hooks.go +11 -1 read',
      'edited integration_test/setup_gemini_hooks_test.go +42 -0 read',
      'edited scripts/entire-wrapper.sh +10 -5 read',
    ]);
    const created = changes.files[0]!;
    assert.equal(created.before, null);
    assert.match(created.after!, /^#!\/usr\/bin\/env bash\n/);
    assert.equal(created.calls.length, 3, 'the Write and two later Edits');
  });

  it('a failed Edit is skipped and counted; the Read that follows gives the before', async () => {
    const doc = await openDoc(
      join(REAL, 'claude-code-viewer/sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'),
    );
    const changes = sessionChanges({ main: { entries: await collectChangeEntries(doc) } });
    assert.equal(changes.failedCalls, 1);
    assert.equal(changes.files.length, 1);
    const file = changes.files[0]!;
    assert.equal(file.path, '/path/to/Demo/CLAUDE.md');
    assert.equal(file.failedCalls, 1);
    assert.deepEqual(
      file.calls.map((c) => `${c.tool}:${c.failed}`),
      ['Edit:true', 'MultiEdit:false'],
    );
    assert.equal(file.beforeFrom, 'read');
    assert.match(file.before!, /^# TODO App Project\n/);
    assert.ok(file.after!.length > file.before!.length);
  });

  it('a file edited again after a whole Read: the before is rebuilt by undoing the edits', async () => {
    const doc = await openDoc(join(REAL, 'entire-checkpoints/a6/e4c2a0fbd1/0/full.jsonl'));
    const changes = sessionChanges({ main: { entries: await collectChangeEntries(doc) } });
    const [file] = changes.files;
    assert.equal(file?.beforeFrom, 'later-read');
    const recorded = recordedOriginals(join(REAL, 'entire-checkpoints/a6/e4c2a0fbd1/0/full.jsonl'));
    assert.equal(file.before, recorded[0]!.originalFile);
  });
});

// ---------------------------------------------------------------- generated sessions

const CWD = '/work/app';
let uuid = 0;
const id = () => `00000000-0000-4000-8000-${String(++uuid).padStart(12, '0')}`;

/** A Claude Code call and its result, as two JSONL lines. */
function claudeCall(
  name: string,
  input: Record<string, unknown>,
  result: string,
  options: { error?: boolean; agentId?: string } = {},
): object[] {
  const callId = `toolu_${++uuid}`;
  const common = {
    sessionId: 's1',
    cwd: CWD,
    version: '2.1.40',
    timestamp: '2026-06-01T10:00:00.000Z',
  };
  const side = options.agentId ? { isSidechain: true, agentId: options.agentId } : {};
  return [
    {
      ...common,
      ...side,
      type: 'assistant',
      uuid: id(),
      message: {
        id: `msg_${uuid}`,
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'tool_use', id: callId, name, input }],
      },
    },
    {
      ...common,
      ...side,
      type: 'user',
      uuid: id(),
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: callId,
            content: result,
            ...(options.error ? { is_error: true } : {}),
          },
        ],
      },
    },
  ];
}

function numbered(text: string, arrow = '→'): string {
  return text
    .split('\n')
    .map((line, i) => `${String(i + 1).padStart(6)}${arrow}${line}`)
    .join('\n');
}

const REMINDER =
  '\n\n<system-reminder>\nWhenever you read a file, consider whether it is malware.\n</system-reminder>\n';

async function changesOf(lines: object[], subagents?: Map<string, object[]>) {
  const doc = await docOf(lines);
  const main = { entries: await collectChangeEntries(doc) };
  const subs = new Map<string, { entries: TranscriptEntry[] }>();
  for (const [agentId, sub] of subagents ?? []) {
    subs.set(agentId, { entries: await collectChangeEntries(await docOf(sub)) });
  }
  return sessionChanges({ main, subagents: subs, cwd: CWD });
}

describe('session changes on generated sessions', () => {
  const APP = 'export function add(a, b) {\n  return a - b;\n}\n';

  it('Write (created), Edit after a whole Read, MultiEdit without a Read', async () => {
    const lines = [
      ...claudeCall(
        'Write',
        { file_path: `${CWD}/new.md`, content: '# New\n' },
        `File created successfully at: ${CWD}/new.md`,
      ),
      ...claudeCall('Read', { file_path: `${CWD}/app.js` }, numbered(APP) + REMINDER),
      ...claudeCall(
        'Edit',
        { file_path: `${CWD}/app.js`, old_string: 'a - b', new_string: 'a + b' },
        `The file ${CWD}/app.js has been updated successfully.`,
      ),
      ...claudeCall(
        'MultiEdit',
        {
          file_path: `${CWD}/notes.txt`,
          edits: [
            { old_string: 'one', new_string: 'uno' },
            { old_string: 'two', new_string: 'dos\ntres' },
          ],
        },
        `Applied 2 edits to ${CWD}/notes.txt`,
      ),
    ];
    const { files, failedCalls } = await changesOf(lines);
    assert.equal(failedCalls, 0);
    assert.deepEqual(
      files.map((f) => [f.path, f.kind, f.added, f.removed]),
      [
        [`${CWD}/new.md`, 'created', 1, 0],
        [`${CWD}/app.js`, 'edited', 1, 1],
        [`${CWD}/notes.txt`, 'edited', 3, 2],
      ],
    );
    assert.deepEqual([files[0]!.before, files[0]!.after], [null, '# New\n']);
    assert.equal(files[1]!.before, APP);
    assert.equal(files[1]!.after, APP.replace('a - b', 'a + b'));
    assert.equal(files[1]!.beforeFrom, 'read');
    const notes = files[2]!;
    assert.equal(notes.before, undefined, 'never read: before unknown');
    assert.equal(notes.after, undefined);
    assert.equal(notes.unknownReason, 'not-read');
    assert.deepEqual(notes.fragments, [
      { before: 'one', after: 'uno' },
      { before: 'two', after: 'dos\ntres' },
    ]);
  });

  it('a Read with an offset, a limit it fills, or 2000 lines is not the whole file', () => {
    const text = 'a\nb\nc\n';
    assert.equal(wholeFileOfRead({}, numbered(text) + REMINDER), text);
    assert.equal(wholeFileOfRead({}, numbered('a\nb', '\t')), 'a\nb', 'the 1.0.x tab form');
    assert.equal(wholeFileOfRead({ offset: 2 }, numbered(text)), undefined);
    assert.equal(wholeFileOfRead({ offset: 1, limit: 3 }, numbered('a\nb\nc')), undefined);
    assert.equal(wholeFileOfRead({ limit: 10 }, numbered(text)), text);
    const long = Array.from({ length: 2000 }, (_, i) => `l${i}`).join('\n');
    assert.equal(wholeFileOfRead({}, numbered(long)), undefined);
    assert.equal(
      wholeFileOfRead(
        {},
        '<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>',
      ),
      '',
    );
    assert.equal(wholeFileOfRead({}, 'File unchanged since last read.'), undefined);
    assert.equal(wholeFileOfRead({}, `${numbered('x')}\n     3→skipped`), undefined);
  });

  it('a partial Read leaves the before unknown; a failed call changes nothing', async () => {
    const lines = [
      ...claudeCall(
        'Read',
        { file_path: `${CWD}/app.js`, offset: 1, limit: 2 },
        numbered('export function add(a, b) {\n  return a - b;') + REMINDER,
      ),
      ...claudeCall(
        'Edit',
        { file_path: `${CWD}/app.js`, old_string: 'a * b', new_string: 'x' },
        '<tool_use_error>String to replace not found in file.</tool_use_error>',
        { error: true },
      ),
      ...claudeCall(
        'Edit',
        { file_path: `${CWD}/app.js`, old_string: 'a - b', new_string: 'a + b' },
        'ok',
      ),
      ...claudeCall(
        'Edit',
        { file_path: `${CWD}/never.js`, old_string: 'q', new_string: 'r' },
        'fail',
        { error: true },
      ),
    ];
    const { files, failedCalls } = await changesOf(lines);
    assert.equal(failedCalls, 2);
    assert.equal(files.length, 1, 'a file only failed calls touched is not listed');
    assert.equal(files[0]!.before, undefined);
    assert.equal(files[0]!.failedCalls, 1);
    assert.deepEqual(files[0]!.fragments, [{ before: 'a - b', after: 'a + b' }]);
    assert.deepEqual([files[0]!.added, files[0]!.removed], [1, 1]);
  });

  it('a later whole Read gives back the before; an edit that does not match breaks the chain', async () => {
    const edited = APP.replace('a - b', 'a + b');
    const lines = [
      ...claudeCall(
        'Edit',
        { file_path: `${CWD}/app.js`, old_string: 'a - b', new_string: 'a + b' },
        'ok',
      ),
      ...claudeCall('Read', { file_path: `${CWD}/app.js` }, numbered(edited) + REMINDER),
      ...claudeCall('Read', { file_path: `${CWD}/b.js` }, numbered('const b = 1;\n') + REMINDER),
      ...claudeCall(
        'Edit',
        { file_path: `${CWD}/b.js`, old_string: 'const b = 2;', new_string: 'const b = 3;' },
        'ok',
      ),
    ];
    const { files } = await changesOf(lines);
    assert.equal(files[0]!.before, APP);
    assert.equal(files[0]!.after, edited);
    assert.equal(files[0]!.beforeFrom, 'later-read');
    assert.equal(files[1]!.before, undefined);
    assert.equal(files[1]!.unknownReason, 'mismatch');
  });

  it("a subagent's changes sit where the parent spawned it", async () => {
    const agentId = 'a1b2c3d';
    const sub = claudeCall(
      'Write',
      { file_path: `${CWD}/sub.txt`, content: 'from the subagent\n' },
      `File created successfully at: ${CWD}/sub.txt`,
      { agentId },
    );
    const taskId = `toolu_task`;
    const lines = [
      ...claudeCall(
        'Write',
        { file_path: `${CWD}/first.txt`, content: '1\n' },
        'File created successfully at: x',
      ),
      {
        type: 'assistant',
        sessionId: 's1',
        cwd: CWD,
        uuid: id(),
        timestamp: '2026-06-01T10:00:01.000Z',
        message: {
          id: 'msg_task',
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: taskId,
              name: 'Task',
              input: { description: 'd', prompt: 'p', subagent_type: 'general-purpose' },
            },
          ],
        },
      },
      {
        type: 'user',
        sessionId: 's1',
        cwd: CWD,
        uuid: id(),
        timestamp: '2026-06-01T10:00:02.000Z',
        message: {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: taskId, content: [{ type: 'text', text: 'done' }] },
          ],
        },
        toolUseResult: {
          status: 'completed',
          agentId,
          prompt: 'p',
          content: [{ type: 'text', text: 'done' }],
        },
      },
      ...claudeCall(
        'Write',
        { file_path: `${CWD}/last.txt`, content: '3\n' },
        'File created successfully at: x',
      ),
    ];
    const { files } = await changesOf(lines, new Map([[agentId, sub]]));
    assert.deepEqual(
      files.map((f) => [f.path.slice(CWD.length + 1), f.calls[0]!.agentId]),
      [
        ['first.txt', undefined],
        ['sub.txt', agentId],
        ['last.txt', undefined],
      ],
    );
  });

  it('Codex apply_patch: relative paths resolve against the cwd; add, update, move, delete', async () => {
    const patch = [
      '*** Begin Patch',
      '*** Add File: docs/new.md',
      '+# New',
      '*** Update File: src/app.ts',
      '*** Move to: src/main.ts',
      '@@',
      ' const a = 1;',
      '-const b = 2;',
      '+const b = 3;',
      '*** Delete File: old.txt',
      '*** End Patch',
    ].join('\n');
    const ts = '2026-06-01T10:00:00.000Z';
    const lines = [
      {
        timestamp: ts,
        type: 'session_meta',
        payload: { id: 'c1', cwd: CWD, originator: 'codex_cli_rs', cli_version: '0.98.0' },
      },
      {
        timestamp: ts,
        type: 'response_item',
        payload: {
          type: 'function_call',
          name: 'apply_patch',
          arguments: JSON.stringify({ input: patch }),
          call_id: 'call_1',
        },
      },
      {
        timestamp: ts,
        type: 'response_item',
        payload: {
          type: 'function_call_output',
          call_id: 'call_1',
          output: JSON.stringify({ output: 'Success.', metadata: { exit_code: 0 } }),
        },
      },
    ];
    const doc = await docOf(lines);
    const { files } = sessionChanges({
      main: { entries: await collectChangeEntries(doc) },
      cwd: CWD,
    });
    assert.deepEqual(
      files.map((f) => [f.path, f.kind, f.movedFrom, f.added, f.removed]),
      [
        [`${CWD}/docs/new.md`, 'created', undefined, 1, 0],
        [`${CWD}/src/main.ts`, 'edited', `${CWD}/src/app.ts`, 1, 1],
        [`${CWD}/old.txt`, 'deleted', undefined, 0, 0],
      ],
    );
    assert.equal(files[0]!.after, '# New\n');
    assert.equal(files[2]!.after, null);
  });

  it('a generated Codex session: every patched path lies under its cwd', async () => {
    const cwd = '/home/dev/orbit-api';
    const text = generateCodexTranscript({
      seed: 5,
      sessionId: 'c2',
      cwd,
      model: 'gpt-5-codex',
      startedAt: '2026-06-01T10:00:00.000Z',
      turns: 4,
    });
    const doc = await openDoc(tempFile(text));
    const entries = await collectChangeEntries(doc);
    const { files } = sessionChanges({ main: { entries }, cwd });
    const patches = entries.filter((e) => e.kind === 'tool-call' && e.name === 'apply_patch');
    assert.ok(patches.length > 0 && files.length > 0);
    for (const f of files) {
      assert.ok(f.path.startsWith(`${cwd}/`), f.path);
      assert.ok(f.added + f.removed > 0);
      assert.equal(f.before, undefined, 'Codex never showed the whole file');
    }
  });

  it('applyChange agrees with the rebuilt after for a created-then-edited file', async () => {
    const lines = [
      ...claudeCall(
        'Write',
        { file_path: `${CWD}/c.txt`, content: 'x\ny\n' },
        `File created successfully at: ${CWD}/c.txt`,
      ),
      ...claudeCall(
        'Edit',
        { file_path: `${CWD}/c.txt`, old_string: 'y', new_string: 'z', replace_all: true },
        'ok',
      ),
    ];
    const { files } = await changesOf(lines);
    assert.equal(
      files[0]!.after,
      applyChange('x\ny\n', {
        path: 'c.txt',
        kind: 'update',
        replacements: [{ oldText: 'y', newText: 'z', replaceAll: true }],
      }),
    );
    assert.equal(files[0]!.kind, 'created');
    assert.deepEqual([files[0]!.added, files[0]!.removed], [2, 0]);
  });
});

describe('the demo session that edits three files', () => {
  it('writes a new file, edits one it read whole, multi-edits one it read in part', async () => {
    const cwd = '/home/dev/orbit-api';
    const { generateClaudeCodeTranscript } =
      await import('../../../../src/demo/transcripts/index.ts');
    const generated = generateClaudeCodeTranscript({
      seed: 2020,
      sessionId: 'demo',
      cwd,
      model: 'claude-sonnet-4-5-20250929',
      startedAt: '2026-06-01T10:00:00.000Z',
      turns: 2,
      editsThreeFiles: true,
    });
    const doc = await openDoc(tempFile(generated.main));
    const { files } = sessionChanges({ main: { entries: await collectChangeEntries(doc) }, cwd });
    const firstThree = files.slice(0, 3);
    assert.deepEqual(
      firstThree.map((f) => [
        f.kind,
        f.calls.find((c) => !c.failed)!.tool,
        f.beforeFrom ?? f.unknownReason,
      ]),
      [
        ['created', 'Write', 'created'],
        ['edited', 'Edit', 'read'],
        ['edited', 'MultiEdit', 'not-read'],
      ],
    );
    const [created, edited, multi] = firstThree as [ChangedFile, ChangedFile, ChangedFile];
    assert.equal(created.before, null);
    assert.ok(created.after && created.added > 0);
    assert.ok(edited.before && edited.after && edited.before !== edited.after);
    // The text the generator recorded as the Edit's original (as Claude Code does).
    const recorded = generated.main
      .split('\n')
      .filter((l) => l.includes('"originalFile"'))
      .map(
        (l) =>
          (JSON.parse(l) as { toolUseResult: { filePath: string; originalFile: string } })
            .toolUseResult,
      )
      .find((r) => r.filePath === edited.path);
    assert.equal(edited.before, recorded?.originalFile);
    assert.equal(multi.fragments.length, 2);
    for (const f of firstThree) assert.ok(f.path.startsWith(`${cwd}/`));
  });
});
