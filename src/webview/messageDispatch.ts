/**
 * What the webview host does with one message from a page, without vscode (so it is unit
 * tested): anything that is not a message of the protocol is dropped; `ready` goes to the
 * handshake; every other message to its handler, whose failure is reported, not thrown.
 */

interface Message {
  type: string;
}

/**
 * A handler for every message of a protocol but `ready` (the host answers that one). The
 * compiler asks for a handler when a message is added to the protocol's list.
 */
export type MessageHandlers<In extends Message> = {
  [K in Exclude<In['type'], 'ready'>]: (message: Extract<In, { type: K }>) => unknown;
};

export interface DispatchOptions<In extends Message> {
  isMessage(value: unknown): value is In;
  /** The page said `ready` (first load, or again after a reload of its page). */
  ready(): unknown;
  handlers: MessageHandlers<In>;
  /** A handler (or the handshake) threw or rejected: `type` names the message. */
  failed(type: string, error: unknown): void;
}

/**
 * The dispatcher of a page's messages. Its promise settles when the handler has; it is
 * false when the value was not a message of the protocol (nothing ran).
 */
export function messageDispatcher<In extends Message>(
  options: DispatchOptions<In>,
): (value: unknown) => Promise<boolean> {
  return async (value) => {
    if (!options.isMessage(value)) return false;
    const type = value.type;
    try {
      if (type === 'ready') await options.ready();
      else {
        const handler = options.handlers[type as Exclude<In['type'], 'ready'>] as (
          message: In,
        ) => unknown;
        await handler(value);
      }
    } catch (error) {
      options.failed(type, error);
    }
    return true;
  };
}
