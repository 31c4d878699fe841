// `npm run package`: production bundles, then dist/agent-session-inspector.vsix with vsce.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './lib/tools.ts';

/**
 * The README that goes into the package. VS Code's Extensions view shows a README in a
 * webview whose policy loads images from https: and data: only, and we have no public
 * repository to link to: the screenshots go in as data: URIs, so they render there.
 */
function packageReadme(): string {
  const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8').replace(
    /!\[([^\]]*)\]\((media\/screenshots\/[\w.-]+\.png)\)/g,
    (_match, alt: string, file: string) =>
      `![${alt}](data:image/png;base64,${readFileSync(path.join(projectRoot, file)).toString('base64')})`,
  );
  const out = path.join(projectRoot, 'dist', 'package-readme', 'README.md');
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, readme);
  return path.relative(projectRoot, out);
}

const build = spawnSync(process.execPath, ['esbuild.mjs', '--production'], {
  cwd: projectRoot,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);
const pack = spawnSync(
  process.execPath,
  [
    path.join('node_modules', '@vscode', 'vsce', 'vsce'),
    'package',
    '--no-dependencies',
    '--allow-missing-repository',
    '--readme-path',
    packageReadme(),
    // No public repository yet: other README links stay relative.
    '--no-rewrite-relative-links',
    '--out',
    path.join('dist', 'agent-session-inspector.vsix'),
  ],
  { cwd: projectRoot, stdio: 'inherit' },
);
process.exit(pack.status ?? 1);
