import type { HostMessage, PanelState, WebviewMessage } from '../../src/shared/protocol.ts';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** The webview's end of the typed protocol. */
export const host = (() => {
  const api = typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : undefined;
  return {
    post(message: WebviewMessage): void {
      api?.postMessage(message);
    },
    saveState(state: PanelState): void {
      api?.setState(state);
    },
    onMessage(listener: (message: HostMessage) => void): void {
      window.addEventListener('message', (event: MessageEvent<HostMessage>) =>
        listener(event.data),
      );
    },
  };
})();
