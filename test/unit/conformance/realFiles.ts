/**
 * The real transcripts in test/fixtures/real (see its SOURCES.md) as cases: one session
 * with its subagent files, laid out in a temporary Claude Code config folder or Codex home
 * the way the harness writes them. The bytes are copied unchanged; only the file names of
 * the copies in the temporary folder follow the harness's layout (`<sessionId>.jsonl`,
 * where upstream renamed a file, e.g. Entire's `full.jsonl`).
 */
import { copyFile, mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REAL = fileURLToPath(new URL('../../fixtures/real', import.meta.url));

export interface RealFile {
  /** Path under test/fixtures/real. */
  fixture: string;
  /** Path of the copy under the Claude config folder or Codex home. */
  layout: string;
}

export interface RealCase {
  id: string;
  harness: 'claude-code' | 'codex';
  /** As written in the files (`version` / `cli_version`). */
  version: string;
  files: RealFile[];
}

const claude = (id: string, version: string, files: [string, string][]): RealCase => ({
  id,
  harness: 'claude-code',
  version,
  files: files.map(([fixture, layout]) => ({
    fixture: `claude/${fixture}`,
    layout: `projects/${layout}`,
  })),
});

const codex = (id: string, name: string): RealCase => ({
  id,
  harness: 'codex',
  version: '0.104.0-alpha.1',
  files: [
    {
      fixture: `codex/localpush/sessions/${name}`,
      layout: `sessions/2026/02/23/${name}`,
    },
  ],
});

const SNIFFLY = 'sniffly/-Users-chip-dev-ai-music';
const VIEWER = 'claude-code-viewer/sample-project';
const SPOTTER = 'spotter/transcripts';
const P258 = '258c7280-ae70-4798-800f-63464d01a85d';

export const CASES: readonly RealCase[] = [
  claude('sniffly', '1.0.17', [
    [
      `${SNIFFLY}/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl`,
      'music/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl',
    ],
    [
      `${SNIFFLY}/fed8ce56-bc79-401f-a83e-af084253362f.jsonl`,
      'music/fed8ce56-bc79-401f-a83e-af084253362f.jsonl',
    ],
    [
      `${SNIFFLY}/ff71dbed-a4f2-4284-a4fc-fe2fb90de929.jsonl`,
      'music/ff71dbed-a4f2-4284-a4fc-fe2fb90de929.jsonl',
    ],
  ]),
  claude('viewer', '1.0.98 / 1.0.108', [
    [
      `${VIEWER}/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl`,
      'sample/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl',
    ],
    [
      `${VIEWER}/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl`,
      'sample/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl',
    ],
  ]),
  claude('git-ai-1.0.111', '1.0.111', [
    ['git-ai/example-claude-code.jsonl', 'git-ai-a/cb947e5b-246e-4253-a953-631f7e464c6b.jsonl'],
  ]),
  claude('git-ai-2.0.69', '2.0.69', [
    [
      'git-ai/claude-code-with-thinking.jsonl',
      'git-ai-b/dac34307-159f-4fcd-9c21-35210246ad38.jsonl',
    ],
  ]),
  claude('entire-a6-2.0.76', '2.0.76', [
    [
      'entire-checkpoints/a6/e4c2a0fbd1/0/full.jsonl',
      'entire-a6/198393f2-22db-477b-ac77-1825bea883ae.jsonl',
    ],
  ]),
  claude('entire-ca-2.1.5', '2.1.5', [
    [
      'entire-checkpoints/ca/fca7ea73ac/0/full.jsonl',
      'entire-ca/d1423492-e4f5-4a86-a997-1f1c8d09a940.jsonl',
    ],
  ]),
  claude('entire-b1-2.1.17', '2.1.17', [
    [
      'entire-checkpoints/b1/5d3b4e29e9/0/full.jsonl',
      'entire-b1/d563fb6b-39cf-4895-bb5f-681c33e58bbc.jsonl',
    ],
  ]),
  claude('entire-89-2.1.17', '2.1.17', [
    [
      'entire-checkpoints/89/7eb280e769/20/full.jsonl',
      'entire-89/9f26971d-da0a-46db-b911-e156aad9548e.jsonl',
    ],
  ]),
  claude('entire-60-2.1.34', '2.1.34', [
    [
      'entire-checkpoints/60/fd31fcf44f/0/full.jsonl',
      'entire-60/61cb3ba8-484b-4a21-bf99-34f7dc361170.jsonl',
    ],
  ]),
  claude('entire-68-2.1.38', '2.1.38', [
    [
      'entire-checkpoints/68/e0ff0d6706/0/full.jsonl',
      'entire-68/9d440bfc-a64f-43be-aa10-10a3764a59ea.jsonl',
    ],
  ]),
  claude('spotter-short-2.1.38', '2.1.38', [
    [`${SPOTTER}/short.jsonl`, 'spotter-a/55604662-cf2a-4331-851a-ec234028f8ca.jsonl'],
  ]),
  claude('spotter-tool-heavy-2.1.38', '2.1.38', [
    [`${SPOTTER}/tool_heavy.jsonl`, 'spotter-b/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl'],
  ]),
  claude('spotter-subagent-2.1.38', '2.1.38', [
    [`${SPOTTER}/subagent.jsonl`, 'spotter-c/491e126e-1e71-469c-ade2-fcc8af567c74.jsonl'],
  ]),
  claude('spotter-258c-2.1.39', '2.1.39', [
    [`${SPOTTER}/${P258}.jsonl`, `spotter-d/${P258}.jsonl`],
    [
      `${SPOTTER}/${P258}/subagents/agent-a881341.jsonl`,
      `spotter-d/${P258}/subagents/agent-a881341.jsonl`,
    ],
    [
      `${SPOTTER}/${P258}/subagents/agent-acompact-fffbd0.jsonl`,
      `spotter-d/${P258}/subagents/agent-acompact-fffbd0.jsonl`,
    ],
  ]),
  codex(
    'codex-long-0.104',
    'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
  ),
  codex(
    'codex-tiny-0.104',
    'rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl',
  ),
  codex('codex-0.104', 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl'),
];

export function realCase(id: string): RealCase {
  const c = CASES.find((x) => x.id === id);
  if (!c) throw new Error(`no real case ${id}`);
  return c;
}

export const fixturePath = (fixture: string): string => join(REAL, fixture);

export function readFixture(fixture: string): Promise<Buffer> {
  return readFile(fixturePath(fixture));
}

/** The latest `timestamp` written in a JSONL text (ISO strings compare as dates). */
export function lastTimestamp(text: string): number {
  let last = NaN;
  for (const m of text.matchAll(/"timestamp":"([^"]+)"/g)) {
    const ms = Date.parse(m[1]!);
    if (!(ms <= last)) last = ms;
  }
  return last;
}

/**
 * Copies a case's files under `root` (the Claude config folder or the Codex home) with
 * each copy's mtime at the last timestamp written in it, as if the harness had just
 * written its last line. Returns the latest of those times.
 */
export async function layOut(c: RealCase, root: string): Promise<number> {
  let latest = NaN;
  const undated: string[] = [];
  for (const f of c.files) {
    const to = join(root, f.layout);
    await mkdir(dirname(to), { recursive: true });
    await copyFile(fixturePath(f.fixture), to);
    const ms = lastTimestamp(await readFile(to, 'utf8'));
    if (Number.isNaN(ms)) {
      undated.push(to);
      continue;
    }
    await utimes(to, ms / 1000, ms / 1000);
    if (!(ms <= latest)) latest = ms;
  }
  // A file without any timestamp (a summary-only file) is dated with the case.
  for (const to of undated) await utimes(to, latest / 1000, latest / 1000);
  return latest;
}

/** Writes a reconstructed file (a transformation of real lines) under `root`. */
export async function writeReconstructed(
  root: string,
  layout: string,
  content: string | Buffer,
  mtimeMs: number,
): Promise<string> {
  const to = join(root, layout);
  await mkdir(dirname(to), { recursive: true });
  await writeFile(to, content);
  await utimes(to, mtimeMs / 1000, mtimeMs / 1000);
  return to;
}
