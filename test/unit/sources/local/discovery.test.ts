/** Roots from options and the environment, file enumeration, links and loops, missing folders. */
import assert from 'node:assert/strict';
import { mkdir, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  discoverLocalFiles,
  folderOptions,
  resolveRoots,
} from '../../../../src/sources/local/discovery.ts';
import { LocalIndex } from '../../../../src/sources/local/localIndex.ts';
import { writeLocalCorpus } from '../../../support/localCorpus.ts';
import { assistant, jsonl, prompt, tempDir, writeAt } from './fixtures.ts';

const HOME = '/home/ada';
const line = jsonl(prompt('hi'), assistant());

describe('roots', () => {
  test('defaults: ~/.config/claude, ~/.claude and ~/.codex', () => {
    assert.deepEqual(resolveRoots({ env: {}, homeDir: HOME }), [
      { harness: 'claude-code', path: '/home/ada/.config/claude', origin: 'default' },
      { harness: 'claude-code', path: '/home/ada/.claude', origin: 'default' },
      { harness: 'codex', path: '/home/ada/.codex', origin: 'default' },
    ]);
  });

  test('CLAUDE_CONFIG_DIR is a comma-separated list that replaces the defaults; CODEX_HOME', () => {
    const roots = resolveRoots({
      env: { CLAUDE_CONFIG_DIR: ' /a/claude , /b/claude,, ', CODEX_HOME: '/c/codex' },
      homeDir: HOME,
    });
    assert.deepEqual(
      roots.map((r) => `${r.harness}:${r.path}:${r.origin}`),
      ['claude-code:/a/claude:env', 'claude-code:/b/claude:env', 'codex:/c/codex:env'],
    );
  });

  test('options win over the environment', () => {
    const roots = resolveRoots({
      env: { CLAUDE_CONFIG_DIR: '/a', CODEX_HOME: '/c' },
      claudeConfigDirs: ['/x'],
      codexHome: '/y',
    });
    assert.deepEqual(
      roots.map((r) => `${r.path}:${r.origin}`),
      ['/x:option', '/y:option'],
    );
  });

  test('the folder settings come before the environment, which comes before the defaults', () => {
    const env = { CLAUDE_CONFIG_DIR: '/env/claude', CODEX_HOME: '/env/codex' };
    const paths = (settings: unknown, e: Record<string, string> = env) =>
      resolveRoots({ ...folderOptions(settings), env: e, homeDir: HOME }).map(
        (r) => `${r.harness}:${r.path}:${r.origin}`,
      );
    // Both settings set: the environment is not read; `~` is this machine's home.
    assert.deepEqual(paths({ claudeConfigDirs: ['~/work/.claude', ' /srv/c '], codexHome: '~' }), [
      'claude-code:/home/ada/work/.claude:option',
      'claude-code:/srv/c:option',
      'codex:/home/ada:option',
    ]);
    // One set: the other comes from its variable.
    assert.deepEqual(paths({ claudeConfigDirs: [], codexHome: '~/.codex-work' }), [
      'claude-code:/env/claude:env',
      'codex:/home/ada/.codex-work:option',
    ]);
    // Empty values (the settings' defaults) and junk mean "not set".
    assert.deepEqual(paths({ claudeConfigDirs: ['', '  ', 3], codexHome: '  ' }), [
      'claude-code:/env/claude:env',
      'codex:/env/codex:env',
    ]);
    assert.deepEqual(paths(undefined, {}), [
      'claude-code:/home/ada/.config/claude:default',
      'claude-code:/home/ada/.claude:default',
      'codex:/home/ada/.codex:default',
    ]);
    // `~user` is not this user's home: left as a (relative) path, not guessed.
    assert.ok(!paths({ codexHome: '~bob/x' }).includes('codex:/home/ada/bob/x:option'));
  });
});

// Every listing test runs with the extension host's promise calls and the CLI's blocking calls.
for (const style of ['promises', 'slices', 'blocking'] as const) {
  const blockingReads = style === 'blocking';
  const listing = style === 'blocking' ? undefined : style;
  describe(`files (${style})`, () => {
    test('both harnesses, archived sessions, subagents with meta, orphans kept', async () => {
      const { dir, cleanup } = await tempDir();
      try {
        const projects = join(dir, 'claude', 'projects', '-home-ada-app');
        await writeAt(join(projects, 'S1.jsonl'), line);
        await writeAt(join(projects, 'S1', 'subagents', 'agent-a1.jsonl'), line);
        await writeAt(
          join(projects, 'S1', 'subagents', 'agent-a1.meta.json'),
          '{"agentType":"Explore"}',
        );
        await writeAt(join(projects, 'S1', 'subagents', 'agent-a2.jsonl'), line);
        await writeAt(join(projects, 'S1', 'subagents', 'notes.txt'), 'x');
        await writeAt(join(projects, 'ORPHAN', 'subagents', 'agent-o1.jsonl'), line);
        await writeAt(join(dir, 'claude', 'todos', 'x.jsonl'), line); // not under projects/
        const codex = join(dir, 'codex');
        const id = '0199a2b3-1c2d-7e3f-8a9b-0c1d2e3f4a5b';
        await writeAt(
          join(codex, 'sessions', '2026', '07', '01', `rollout-2026-07-01T10-00-00-${id}.jsonl`),
          line,
        );
        await writeAt(
          join(codex, 'archived_sessions', 'rollout-2026-06-01T10-00-00-x.jsonl'),
          line,
        );
        await writeAt(join(codex, 'sessions', '2026', '07', '01', 'history.jsonl'), line);

        const result = await discoverLocalFiles({
          blockingReads,
          ...(listing && { listing }),
          claudeConfigDirs: [join(dir, 'claude')],
          codexHome: codex,
        });
        const rel = (p: string) => p.slice(dir.length + 1);
        assert.deepEqual(result.files.map((f) => `${f.harness}:${f.role}:${rel(f.path)}`).sort(), [
          'claude-code:session:claude/projects/-home-ada-app/S1.jsonl',
          'claude-code:subagent:claude/projects/-home-ada-app/ORPHAN/subagents/agent-o1.jsonl',
          'claude-code:subagent:claude/projects/-home-ada-app/S1/subagents/agent-a1.jsonl',
          'claude-code:subagent:claude/projects/-home-ada-app/S1/subagents/agent-a2.jsonl',
          'codex:session:codex/archived_sessions/rollout-2026-06-01T10-00-00-x.jsonl',
          `codex:session:codex/sessions/2026/07/01/rollout-2026-07-01T10-00-00-${id}.jsonl`,
        ]);
        const a1 = result.files.find((f) => f.agentId === 'a1')!;
        assert.equal(a1.sessionId, 'S1');
        assert.ok(a1.metaPath?.endsWith('agent-a1.meta.json'));
        assert.equal(result.files.find((f) => f.agentId === 'a2')!.metaPath, undefined);
        assert.equal(result.files.find((f) => f.path.includes(id))!.sessionId, id);
        assert.equal(result.files.find((f) => f.path.includes('archived'))!.archived, true);
        assert.deepEqual(
          result.roots.map((r) => [r.state, r.sessionFiles, r.subagentFiles, r.archivedFiles]),
          [
            ['ok', 1, 3, 0],
            ['ok', 2, 0, 1],
          ],
        );
        assert.deepEqual(result.problems, []);

        // Attached to the parent; the orphan is kept as its own row.
        const index = new LocalIndex({
          claudeConfigDirs: [join(dir, 'claude')],
          codexHome: codex,
          blockingReads,
          ...(listing && { listing }),
        });
        const snap = await index.refresh();
        const parentPath = join(projects, 'S1.jsonl');
        const parent = snap.sessions.find((s) => s.path === parentPath)!;
        assert.equal(parent.children.length, 2);
        for (const agent of ['a1', 'a2']) {
          assert.equal(
            snap.sessions.find((s) => s.file.agentId === agent)!.summary.parentId,
            parentPath,
          );
        }
        const orphan = snap.sessions.find((s) => s.file.agentId === 'o1')!;
        assert.equal(orphan.summary.parentId, undefined);
        assert.equal(snap.sessions.length, 6);
      } finally {
        await cleanup();
      }
    });

    test('a subagent in another folder is attached by the agentId its parent names', async () => {
      const { dir, cleanup } = await tempDir();
      try {
        const projects = join(dir, 'claude', 'projects', '-p');
        await writeAt(
          join(projects, 'S1.jsonl'),
          jsonl(prompt('hi'), {
            type: 'progress',
            data: { type: 'agent_progress', agentId: 'zz9', message: { type: 'user' } },
            parentToolUseID: 'toolu_1',
            timestamp: '2026-07-01T10:00:01Z',
          }),
        );
        await writeAt(join(projects, 'OTHER', 'subagents', 'agent-zz9.jsonl'), line);
        const snap = await new LocalIndex({
          blockingReads,
          ...(listing && { listing }),
          claudeConfigDirs: [join(dir, 'claude')],
          codexHome: join(dir, 'x'),
        }).refresh();
        const child = snap.sessions.find((s) => s.file.agentId === 'zz9')!;
        assert.equal(child.summary.parentId, join(projects, 'S1.jsonl'));
      } finally {
        await cleanup();
      }
    });

    test('symbolic link loops and aliases: reported, read once, no hang', async () => {
      const { dir, cleanup } = await tempDir();
      try {
        const codex = join(dir, 'codex');
        const day = join(codex, 'sessions', '2026', '07', '01');
        await writeAt(join(day, 'rollout-2026-07-01T10-00-00-a.jsonl'), line);
        await symlink(join(codex, 'sessions'), join(day, 'loop'));
        await symlink(join(day, 'self'), join(day, 'self'));
        const projects = join(dir, 'claude', 'projects');
        await writeAt(join(projects, '-real', 'S1.jsonl'), line);
        await symlink(join(projects, '-real'), join(projects, '-alias'));
        await symlink(
          join(projects, '-real', 'S1.jsonl'),
          join(projects, '-real', 'S1-link.jsonl'),
        );

        const result = await discoverLocalFiles({
          blockingReads,
          ...(listing && { listing }),
          claudeConfigDirs: [join(dir, 'claude')],
          codexHome: codex,
        });
        assert.equal(result.files.filter((f) => f.harness === 'codex').length, 1);
        assert.equal(result.files.filter((f) => f.harness === 'claude-code').length, 1);
        const loops = result.problems.filter((p) => p.kind === 'symlink-loop').map((p) => p.path);
        assert.ok(loops.includes(join(day, 'loop')), 'the loop back to sessions/');
        assert.ok(loops.includes(join(day, 'self')), 'the link to itself');
        assert.ok(
          loops.some((p) => p === join(projects, '-alias') || p === join(projects, '-real')),
        );
      } finally {
        await cleanup();
      }
    });

    test('missing and empty folders; the same folder named twice', async () => {
      const { dir, cleanup } = await tempDir();
      try {
        await mkdir(join(dir, 'empty-claude', 'projects'), { recursive: true });
        await mkdir(join(dir, 'codex'));
        await symlink(join(dir, 'empty-claude'), join(dir, 'alias-claude'));
        const result = await discoverLocalFiles({
          blockingReads,
          ...(listing && { listing }),
          claudeConfigDirs: [
            join(dir, 'empty-claude'),
            join(dir, 'alias-claude'),
            join(dir, 'nope'),
          ],
          codexHome: join(dir, 'codex'),
        });
        assert.deepEqual(
          result.roots.map((r) => r.state),
          ['empty', 'duplicate', 'missing', 'empty'],
        );
        assert.deepEqual(
          result.problems.map((p) => `${p.kind}:${p.path}`),
          [`missing-folder:${join(dir, 'nope')}`],
        );
        // Default folders that do not exist are normal (no Codex installed): not a problem.
        const defaults = await discoverLocalFiles({
          env: {},
          homeDir: join(dir, 'no-home'),
          blockingReads,
          ...(listing && { listing }),
        });
        assert.deepEqual(
          defaults.roots.map((r) => r.state),
          ['missing', 'missing', 'missing'],
        );
        assert.deepEqual(defaults.problems, []);
      } finally {
        await cleanup();
      }
    });

    test('an aborted discovery stops', async () => {
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(
        discoverLocalFiles(
          { env: {}, homeDir: '/', blockingReads, ...(listing && { listing }) },
          controller.signal,
        ),
      );
    });
  });
}

describe('the listing styles', () => {
  test('blocking calls, slices of them and promise calls list the same files, roots and problems in the same order', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const corpus = await writeLocalCorpus(dir, { quirks: true, orphan: true });
      // Besides the quirks session and the orphan subagent folder: a loop, a file gone behind
      // a dangling link, an alias of a project folder, a 2.0.x subagent beside its parent.
      const projects = join(corpus.claudeDir, 'projects');
      const [project] = (await readdir(projects)).sort();
      await symlink(projects, join(projects, project!, 'loop'));
      await symlink(join(dir, 'gone.jsonl'), join(projects, project!, 'dangling.jsonl'));
      await symlink(join(projects, project!), join(projects, 'zz-alias'));
      await writeAt(join(projects, project!, 'agent-beside.jsonl'), line);
      const options = { claudeConfigDirs: [corpus.claudeDir], codexHome: corpus.codexDir };
      const promise = await discoverLocalFiles({ ...options, listing: 'promises' });
      const blocking = await discoverLocalFiles({ ...options, blockingReads: true });
      const slices = await discoverLocalFiles(options);
      assert.deepEqual(blocking, promise);
      assert.deepEqual(slices, promise);
      assert.equal(
        promise.files.filter((f) => f.projectDir !== undefined && f.agentId && !f.sessionId).length,
        1,
      );
      assert.ok(promise.problems.some((p) => p.path?.endsWith('dangling.jsonl')));
      assert.ok(promise.problems.some((p) => p.kind === 'symlink-loop'));
      // Every corpus file is listed once.
      assert.deepEqual(
        promise.files.map((f) => f.path).sort(),
        [...corpus.files.map((f) => f.path), join(projects, project!, 'agent-beside.jsonl')].sort(),
      );
    } finally {
      await cleanup();
    }
  });
});
