import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ESLint } from 'eslint';

// The project's own eslint.config.mjs, applied to source text placed at paths inside the
// floors (lintText with a filePath): the imports resolve against the real files there.
const root = path.resolve(import.meta.dirname, '../../..');
const eslint = new ESLint({ cwd: root });
const BOUNDARY = 'import-x/no-restricted-paths';

/** A real module of a floor, as a specifier from `fromDir` (the test follows renames). */
function moduleOf(floor: string, fromDir: string): string {
  const dir = path.join(root, floor);
  const file = readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .sort()[0];
  assert.ok(file, `no .ts file in ${floor}`);
  const spec = path
    .relative(path.join(root, fromDir), path.join(dir, file))
    .split(path.sep)
    .join('/');
  return spec.startsWith('.') ? spec : `./${spec}`;
}

async function lint(filePath: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, filePath) });
  assert.ok(result, 'no lint result');
  assert.equal(result.fatalErrorCount, 0, JSON.stringify(result.messages));
  return result.messages;
}

const ruleLines = (messages: { ruleId: string | null; line: number }[], ruleId: string) =>
  messages.filter((m) => m.ruleId === ruleId).map((m) => m.line);

test('a src/domain file importing from src/views is reported', async () => {
  const spec = moduleOf('src/views', 'src/domain');
  const messages = await lint(
    'src/domain/layersFixture.ts',
    `import * as views from '${spec}';\nexport const v = views;\n`,
  );
  assert.deepEqual(ruleLines(messages, BOUNDARY), [1]);
});

test('a webview-ui file importing src/domain is reported; src/shared is allowed', async () => {
  const domain = moduleOf('src/domain', 'webview-ui/src');
  const shared = moduleOf('src/shared', 'webview-ui/src');
  const messages = await lint(
    'webview-ui/src/layersFixture.ts',
    `import * as shared from '${shared}';\nimport * as domain from '${domain}';\nexport const both = [shared, domain];\n`,
  );
  assert.deepEqual(ruleLines(messages, BOUNDARY), [2]);
});

test('type-only, re-exported and required upward imports are reported too', async () => {
  const host = moduleOf('src/webview', 'src/views');
  const commands = moduleOf('src/commands', 'src/store');
  const store = moduleOf('src/store', 'src/sources');
  const views = await lint(
    'src/views/layersFixture.ts',
    `import type * as host from '${host}';\nexport type Host = typeof host;\n`,
  );
  assert.deepEqual(ruleLines(views, BOUNDARY), [1]);
  const store_ = await lint('src/store/layersFixture.ts', `export * from '${commands}';\n`);
  assert.deepEqual(ruleLines(store_, BOUNDARY), [1]);
  const sources = await lint(
    'src/sources/layersFixture.ts',
    `export const load = () => require('${store}');\n`,
  );
  assert.deepEqual(ruleLines(sources, BOUNDARY), [1]);
});

test('downward imports and a floor importing itself are not reported', async () => {
  const code = (dir: string, floors: string[]) =>
    floors.map((f, i) => `import * as m${i} from '${moduleOf(f, dir)}';`).join('\n') +
    `\nexport const all = [${floors.map((_, i) => `m${i}`).join(', ')}];\n`;
  const cases: [string, string[]][] = [
    ['src', ['src/webview', 'src/commands', 'src/store', 'src/util']],
    ['src/webview', ['src/webview', 'src/commands', 'src/views', 'src/sources']],
    ['src/commands', ['src/views', 'src/background', 'src/config', 'src/domain']],
    ['src/store', ['src/config', 'src/sources', 'src/shared', 'src/util']],
    ['src/sources', ['src/sources', 'src/domain', 'src/shared', 'src/util']],
    ['src/domain', ['src/shared', 'src/util']],
    ['src/demo', ['src/domain', 'src/shared', 'src/util']],
  ];
  for (const [dir, floors] of cases) {
    const messages = await lint(`${dir}/layersFixture.ts`, code(dir, floors));
    assert.deepEqual(messages, [], `${dir}: ${JSON.stringify(messages)}`);
  }
});

test('sideways and out-of-tree imports are reported: shared → util, demo → store, src → test', async () => {
  const cases: [string, string][] = [
    ['src/shared', 'src/util'],
    ['src/demo', 'src/store'],
    ['src/commands', 'src/demo'],
    ['src/views', 'src/commands'],
    ['src/util', 'src/domain'],
    ['src/domain', 'test/unit/lint'],
  ];
  for (const [dir, floor] of cases) {
    const messages = await lint(
      `${dir}/layersFixture.ts`,
      `import * as m from '${moduleOf(floor, dir)}';\nexport const x = m;\n`,
    );
    assert.deepEqual(ruleLines(messages, BOUNDARY), [1], `${dir} → ${floor}`);
  }
});

test('an import that does not resolve is an error (it would slip past the boundary rule)', async () => {
  const messages = await lint(
    'src/domain/layersFixture.ts',
    `import { x } from '../views/noSuchModule.ts';\nexport const y = x;\n`,
  );
  assert.deepEqual(ruleLines(messages, 'import-x/no-unresolved'), [1]);
  assert.deepEqual(ruleLines(messages, BOUNDARY), []);
});

test('src/domain, src/shared and src/util do not import vscode', async () => {
  for (const dir of ['src/domain', 'src/shared', 'src/util']) {
    const messages = await lint(
      `${dir}/layersFixture.ts`,
      `import * as vscode from 'vscode';\nexport const v = vscode;\n`,
    );
    assert.deepEqual(ruleLines(messages, 'no-restricted-imports'), [1], dir);
  }
});

test('every folder under src/ is a floor of the lint config', async () => {
  const { FLOORS } = (await import(path.join(root, 'eslint.config.mjs'))) as {
    FLOORS: { name: string }[];
  };
  const folders = readdirSync(path.join(root, 'src'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const floors = FLOORS.map((floor) => floor.name).filter((name) => name !== 'extension.ts');
  assert.deepEqual(folders, [...floors].sort());
});
