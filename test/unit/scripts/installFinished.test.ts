import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { installFinished } from '../../../scripts/lib/tools.ts';

test('code-server counts as installed only when its install finished, not when its command exists', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'asi-install-finished-'));
  try {
    const bin = path.join(dir, 'node_modules', '.bin', 'code-server');
    assert.equal(installFinished(dir, bin), false, 'nothing installed');

    // npm links the command before the postinstall builds the native modules: a Ctrl-C
    // then leaves the command, and no lock file.
    mkdirSync(path.dirname(bin), { recursive: true });
    writeFileSync(bin, '');
    assert.equal(installFinished(dir, bin), false, 'an install stopped half-way');

    // An install from before the marker: npm wrote its lock file at the end.
    writeFileSync(path.join(dir, 'package-lock.json'), '{}');
    assert.equal(installFinished(dir, bin), true);
    assert.ok(existsSync(path.join(dir, 'install-finished')), 'the marker is written then');

    rmSync(path.join(dir, 'package-lock.json'));
    assert.equal(installFinished(dir, bin), true, 'the marker alone');
    rmSync(bin);
    assert.equal(installFinished(dir, bin), false, 'a marker without the command');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
