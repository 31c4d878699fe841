/** The extension's bundles: what activation evaluates, and that every lazily read bundle ships. */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as esbuild from 'esbuild';

const root = path.resolve(import.meta.dirname, '../..');
const { builds } = (await import(path.join(root, 'esbuild.mjs'))) as {
  builds: Record<string, esbuild.BuildOptions>;
};

/** Builds one of esbuild.mjs's bundles in memory: its inputs and its text. */
async function build(name: string) {
  const options = builds[name];
  assert.ok(options, `esbuild.mjs builds ${name}`);
  const result = await esbuild.build({
    ...options,
    absWorkingDir: root,
    minify: false,
    sourcemap: false,
    write: false,
  });
  const inputs = Object.keys(result.metafile!.inputs);
  const text = result.outputFiles.map((f) => f.text).join('\n');
  return { inputs, text };
}

const vscodeRequires = (text: string) => text.match(/require\("vscode"\)/g)?.length ?? 0;

test('activation evaluates no command body and requires the vscode API once', async () => {
  const { inputs, text } = await build('extension');
  const bodies = inputs.filter((file) => file.startsWith('src/commands/bodies/'));
  assert.deepEqual(bodies, [], 'the command bodies are in dist/commands.cjs');
  assert.ok(inputs.includes('src/commands/searchCommands.ts'), 'the registrations are eager');
  // Each require of 'vscode' copied the whole API object into the file's own namespace.
  assert.equal(vscodeRequires(text), 1);
});

test('the lazily read command bundle holds the bodies and requires the vscode API once', async () => {
  const { inputs, text } = await build('commands');
  for (const body of ['search', 'changes', 'export', 'sessionActions'])
    assert.ok(inputs.includes(`src/commands/bodies/${body}.ts`), body);
  assert.ok(inputs.includes('src/views/searchResultsTree.ts'));
  assert.equal(vscodeRequires(text), 1);
});

test('every bundle the extension reads at run time is built and packaged', () => {
  const required = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.ts'))
        for (const m of readFileSync(file, 'utf8').matchAll(/'dist', '([\w-]+\.cjs)'/g))
          required.add(m[1]!);
    }
  };
  walk(path.join(root, 'src'));
  assert.ok(required.has('commands.cjs') && required.has('sources.cjs'), [...required].join());
  const built = new Set(
    Object.values(builds)
      .filter((b) => b.outdir === 'dist' && b.outExtension?.['.js'] === '.cjs')
      .flatMap((b) => Object.keys(b.entryPoints as Record<string, string>))
      .map((name) => `${name}.cjs`),
  );
  const packaged = readFileSync(path.join(root, '.vscodeignore'), 'utf8').split('\n');
  for (const bundle of required) {
    assert.ok(built.has(bundle), `esbuild.mjs builds dist/${bundle}`);
    assert.ok(packaged.includes(`!dist/${bundle}`), `.vscodeignore keeps dist/${bundle}`);
  }
});
