/**
 * The real transcripts are the bytes their authors published: every file listed in
 * test/fixtures/real/SOURCES.md has the size and sha256 written there (an editor that adds
 * a final newline or re-encodes a file fails here), every transcript in the folder is
 * listed with its licence, and every file the conformance cases read is one of them.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { CASES, REAL } from './realFiles.ts';

interface Listed {
  path: string;
  licence: string;
  bytes: number;
  sha256: string;
}

async function listed(): Promise<Listed[]> {
  const text = await readFile(join(REAL, 'SOURCES.md'), 'utf8');
  const rows: Listed[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const cells = line.split(' | ').map((c) => c.replace(/^\| /, '').replace(/`/g, '').trim());
    rows.push({
      path: cells[0]!,
      licence: cells[5]!,
      bytes: Number(cells[7]),
      sha256: cells[8]!,
    });
  }
  return rows;
}

async function transcripts(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await transcripts(path)));
    else if (e.name.endsWith('.jsonl')) out.push(relative(REAL, path));
  }
  return out;
}

describe('real files: provenance', () => {
  test('each listed file has the size and sha256 SOURCES.md gives', async () => {
    const rows = await listed();
    assert.equal(rows.length, 22);
    for (const row of rows) {
      const bytes = await readFile(join(REAL, row.path));
      assert.equal(bytes.length, row.bytes, `${row.path}: size`);
      assert.equal(createHash('sha256').update(bytes).digest('hex'), row.sha256, row.path);
      assert.match(row.licence, /^(MIT|Apache-2\.0)\b/, `${row.path}: licence`);
    }
  });

  test('every transcript in the folder is listed, and every case reads listed files', async () => {
    const rows = new Set((await listed()).map((r) => r.path));
    assert.deepEqual((await transcripts(REAL)).sort(), [...rows].sort());
    for (const c of CASES) for (const f of c.files) assert.ok(rows.has(f.fixture), f.fixture);
    const read = new Set(CASES.flatMap((c) => c.files.map((f) => f.fixture)));
    assert.deepEqual([...read].sort(), [...rows].sort(), 'every real file is in a case');
  });
});
