import type { DashboardToHost, HostToDashboard } from '../../../src/shared/dashboardProtocol.ts';

interface VsCodeApi {
  postMessage(message: DashboardToHost): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** The dashboard's end of its typed protocol (acquireVsCodeApi may be called once per page). */
export const dashboardHost = (() => {
  const api = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : undefined;
  return {
    post(message: DashboardToHost): void {
      api?.postMessage(message);
    },
    onMessage(listener: (message: HostToDashboard) => void): () => void {
      const handler = (event: MessageEvent<HostToDashboard>) => listener(event.data);
      window.addEventListener('message', handler);
      return () => window.removeEventListener('message', handler);
    },
  };
})();
