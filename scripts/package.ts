// `npm run package`: production bundles, then dist/agent-session-inspector.vsix with vsce.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from './lib/tools.ts';

const steps: string[][] = [
  ['esbuild.mjs', '--production'],
  [
    path.join('node_modules', '@vscode', 'vsce', 'vsce'),
    'package',
    '--no-dependencies',
    '--allow-missing-repository',
    // No public repository yet: README links stay relative (they resolve in the source tree).
    // VS Code's Extensions view loads README images from https: only (relative and data:
    // images are dropped), so they show there once vsce can rewrite them to a public URL.
    '--no-rewrite-relative-links',
    '--out',
    path.join('dist', 'agent-session-inspector.vsix'),
  ],
];
for (const args of steps) {
  const result = spawnSync(process.execPath, args, { cwd: projectRoot, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
