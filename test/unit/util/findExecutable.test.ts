/** findExecutable: PATH lookup as a shell does it, without running anything. */
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { findExecutable } from '../../../src/util/findExecutable.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asi-path-'));
  for (const sub of ['a', 'b', 'c', 'w']) await mkdir(join(dir, sub));
  await writeFile(join(dir, 'a', 'claude'), 'not executable');
  await writeFile(join(dir, 'b', 'claude'), '#!/bin/sh\n');
  await chmod(join(dir, 'b', 'claude'), 0o755);
  await mkdir(join(dir, 'c', 'codex')); // a folder, not a program
  await writeFile(join(dir, 'w', 'claude.cmd'), '@echo off\n');
});
after(() => rm(dir, { recursive: true, force: true }));

describe('findExecutable', () => {
  test('the first executable file on PATH; skips non-executable files and folders', async () => {
    const env = { PATH: ['', join(dir, 'a'), join(dir, 'b')].join(':') };
    assert.equal(await findExecutable('claude', env, 'linux'), join(dir, 'b', 'claude'));
    assert.equal(await findExecutable('codex', { PATH: join(dir, 'c') }, 'linux'), undefined);
    assert.equal(await findExecutable('claude', { PATH: join(dir, 'a') }, 'linux'), undefined);
    assert.equal(await findExecutable('claude', {}, 'linux'), undefined);
  });

  test('Windows: PATHEXT names, a case-insensitive Path variable', async () => {
    const env = { Path: `${join(dir, 'a')};${join(dir, 'w')}`, PATHEXT: '.EXE;.CMD' };
    assert.equal(await findExecutable('claude', env, 'win32'), join(dir, 'w', 'claude.cmd'));
    assert.equal(await findExecutable('codex', env, 'win32'), undefined);
  });
});
