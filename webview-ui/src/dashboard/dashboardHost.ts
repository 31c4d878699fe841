import type {
  DashboardPanelState,
  DashboardToHost,
  HostToDashboard,
} from '../../../src/shared/dashboardProtocol.ts';

interface VsCodeApi {
  postMessage(message: DashboardToHost): void;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** The dashboard's end of its typed protocol (acquireVsCodeApi may be called once per page). */
export const dashboardHost = (() => {
  const api = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : undefined;
  return {
    post(message: DashboardToHost): void {
      api?.postMessage(message);
    },
    /** Kept by VS Code with the tab: what a reload restores the dashboard from. */
    saveState(state: DashboardPanelState): void {
      api?.setState(state);
    },
    onMessage(listener: (message: HostToDashboard) => void): () => void {
      const handler = (event: MessageEvent<HostToDashboard>) => listener(event.data);
      window.addEventListener('message', handler);
      return () => window.removeEventListener('message', handler);
    },
  };
})();
