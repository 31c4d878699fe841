/** What the test runner passes to both phases of the reload scenario. */
export interface ReloadScenario {
  connectionId: string;
  mcpUrl: string;
  token: string;
  sessionId: string;
}

export function reloadScenario(): ReloadScenario {
  const raw = process.env.ASI_RELOAD_SCENARIO;
  if (!raw) throw new Error('ASI_RELOAD_SCENARIO is not set');
  return JSON.parse(raw) as ReloadScenario;
}
