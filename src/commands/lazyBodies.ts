import * as path from 'node:path';
import type * as Bodies from './bodies/index.ts';

export type CommandBodies = typeof Bodies;

let bodies: CommandBodies | undefined;

/**
 * What the search, changes, export and session-action commands do lives in
 * dist/commands.cjs, read when one of them first runs: activation only registers their ids.
 */
export function loadCommandBodies(extensionPath: string): CommandBodies {
  bodies ??= require(path.join(extensionPath, 'dist', 'commands.cjs')) as CommandBodies;
  return bodies;
}
