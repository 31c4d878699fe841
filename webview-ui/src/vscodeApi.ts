/**
 * The webview's one wrapper of VS Code's webview API, typed by each page's protocol: the
 * session panel's `host` and the usage dashboard's `dashboardHost`. acquireVsCodeApi may be
 * called once per page, so it is called here, once, when the page loads.
 */
import type {
  DashboardPanelState,
  DashboardToHost,
  HostToDashboard,
} from '../../src/shared/dashboardProtocol.ts';
import type { HostMessage, PanelState, WebviewMessage } from '../../src/shared/protocol.ts';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const api = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : undefined;

/** A page's end of its typed protocol: `In` from the host, `Out` to it, `State` kept by VS Code. */
export interface PageHost<In, Out, State> {
  post(message: Out): void;
  /** Kept by VS Code with the tab: what a reload restores the page from. */
  saveState(state: State): void;
  /** Listens to the host's messages; returns the function that stops listening. */
  onMessage(listener: (message: In) => void): () => void;
}

function pageHost<In, Out, State>(): PageHost<In, Out, State> {
  return {
    post(message) {
      api?.postMessage(message);
    },
    saveState(state) {
      api?.setState(state);
    },
    onMessage(listener) {
      const handler = (event: MessageEvent<In>) => listener(event.data);
      window.addEventListener('message', handler);
      return () => window.removeEventListener('message', handler);
    },
  };
}

/** The session panel's end of protocol.ts. */
export const host = pageHost<HostMessage, WebviewMessage, PanelState>();

/** The usage dashboard's end of dashboardProtocol.ts. */
export const dashboardHost = pageHost<HostToDashboard, DashboardToHost, DashboardPanelState>();
