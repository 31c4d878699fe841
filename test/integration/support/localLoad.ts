import type { ExtensionApi } from '../../../src/extension.ts';
import { until } from './until.ts';

/**
 * Loads a local connection and waits for its checked rows: a new source's first load
 * shows the rows saved beside the index (provisional), and the check that follows is
 * listed again when it ends (LiveLocalSessions, on the source's onDidUpdate). Files
 * written or removed while no source was open show only in the checked rows.
 */
export async function loadChecked(api: ExtensionApi, id: string): Promise<void> {
  await api.store.refreshAfterCurrent(id);
  await until(`the checked rows of ${id}`, () => {
    const state = api.store.state(id);
    return state?.loadedOnce && !state.provisional && !state.loading;
  });
}
