/**
 * dist/commands.cjs: the bodies of commands whose ids are registered at activation
 * (src/commands/*Commands.ts) and which load this bundle on first use (lazyBodies.ts).
 */
import type { ChangesDeps } from '../changesCommands.ts';
import type { SearchCommandDeps } from '../searchCommands.ts';
import { ChangesController } from './changes.ts';
import { SearchController } from './search.ts';

export function createSearchController(deps: SearchCommandDeps): SearchController {
  return new SearchController(deps);
}

export function createChangesController(deps: ChangesDeps): ChangesController {
  return new ChangesController(deps);
}

export { exportCommand } from './export.ts';
export { runSessionAction } from './sessionActions.ts';
