import type { SessionSummary } from '../../domain/session.ts';
import type { HostMessage, WebviewMessage } from '../../shared/protocol.ts';
import type { SourceAdapters } from '../../sources/sourceFactory.ts';
import type { SessionStore } from '../../store/sessionStore.ts';
import type { Logger } from '../../util/logger.ts';
import type { MessageHandlers } from '../webviewHost.ts';

/** What the session panel's tabs need from the extension. */
export interface PanelDeps {
  adapters: () => SourceAdapters;
  store: SessionStore;
  storageDir: string;
  log: Logger;
  /** Whether the user archived the session (the header offers Unarchive then). */
  isArchived?: (session: SessionSummary) => boolean;
}

/** One session panel's end of the host: where its tabs post, and the session they show. */
export interface PanelContext extends PanelDeps {
  post(message: HostMessage): void;
  /** The session as last loaded (it changes with the store). */
  session(): SessionSummary;
}

/** The handlers of the session panel's messages; each tab supplies some of them. */
export type SessionHandlers = MessageHandlers<WebviewMessage>;
