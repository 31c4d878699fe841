import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bool,
  int,
  messageGuard,
  messageTypes,
  type MessageOf,
  oneOf,
  optional,
  str,
} from '../../../src/shared/messageSchema.ts';
import { isWebviewMessage, type WEBVIEW_MESSAGES } from '../../../src/shared/protocol.ts';

describe('message schema', () => {
  const schema = {
    ping: {},
    open: { path: str, line: optional(int), pinned: optional(bool) },
    pick: { side: oneOf('left', 'right', null) },
  } as const;
  const isMessage = messageGuard(schema);

  it('derives the message type from the list (a wrong field fails to compile)', () => {
    const ok: MessageOf<typeof schema>[] = [
      { type: 'ping' },
      { type: 'open', path: 'a.ts' },
      { type: 'open', path: 'a.ts', line: 3, pinned: true },
      { type: 'pick', side: null },
    ];
    for (const message of ok) assert.equal(isMessage(message), true, JSON.stringify(message));
    // @ts-expect-error: `line` is a number
    const wrong: MessageOf<typeof schema> = { type: 'open', path: 'a.ts', line: '3' };
    assert.equal(isMessage(wrong), false);
  });

  it('checks every named field, and optional ones only when present', () => {
    for (const bad of [
      { type: 'open' },
      { type: 'open', path: 1 },
      { type: 'open', path: 'a', line: -1 },
      { type: 'open', path: 'a', line: 1.5 },
      { type: 'open', path: 'a', line: null },
      { type: 'open', path: 'a', pinned: 'yes' },
      { type: 'pick' },
      { type: 'pick', side: 'up' },
    ])
      assert.equal(isMessage(bad), false, JSON.stringify(bad));
    assert.equal(isMessage({ type: 'open', path: 'a', line: undefined }), true);
  });

  it('leaves fields it does not name alone', () => {
    assert.equal(isMessage({ type: 'ping', extra: { deep: [1] } }), true);
  });

  it('refuses what is not a message of the list, prototype names included', () => {
    for (const bad of [
      undefined,
      null,
      0,
      'ping',
      [],
      ['ping'],
      {},
      { type: 3 },
      { type: 'pong' },
      { type: '__proto__' },
      JSON.parse('{"__proto__": {"type": "ping"}}'),
      { type: 'toString' },
      { type: 'hasOwnProperty' },
      { type: 'constructor' },
    ])
      assert.equal(isMessage(bad), false, JSON.stringify(bad));
  });

  it('reads only own fields: an inherited field does not pass', () => {
    const inherited = Object.create({ path: 'a.ts' }) as Record<string, unknown>;
    inherited.type = 'open';
    assert.equal(isMessage(inherited), false);
  });

  it('lists its message types', () => {
    assert.deepEqual(messageTypes(schema), ['ping', 'open', 'pick']);
  });
});

describe('session panel protocol', () => {
  it('accepts each message of the list with its fields', () => {
    const samples: Record<keyof typeof WEBVIEW_MESSAGES, Record<string, unknown>> = {
      ready: {},
      refresh: {},
      complete: {},
      cancel: {},
      interrupt: {},
      resume: {},
      sessionCommand: { command: 'archive' },
      openManualTask: { id: 'T1' },
      finishManualTask: { id: 'T1', finish: 'failure' },
      selectFile: { fileKey: 'subagent:a' },
      retryTranscript: {},
      getEntries: { requestId: 1, start: 0, count: 200 },
      search: { requestId: 2, query: 'x', direction: 'previous', from: 4 },
      nextError: { requestId: 3, from: 0 },
      getFullText: { requestId: 4, index: 9, part: 'output' },
      openFile: { path: 'src/a.ts', line: 12 },
      openExternal: { url: 'https://example.com/' },
      openRaw: {},
      loadComments: { filter: 'OPEN', more: false },
      revealComment: { threadId: 'th1' },
      loadChanges: {},
      openChange: { index: 0 },
      openAllChanges: {},
      compareWithWorkspace: {},
    };
    for (const [type, fields] of Object.entries(samples)) {
      assert.equal(isWebviewMessage({ type, ...fields }), true, type);
      // Every message with fields needs them.
      if (Object.keys(fields).length > 0) assert.equal(isWebviewMessage({ type }), false, type);
    }
  });

  it('refuses wrong field values the webview could send', () => {
    for (const bad of [
      { type: 'getEntries', requestId: 1, start: -1, count: 1 },
      { type: 'search', requestId: 1, query: 'x', direction: 'sideways' },
      { type: 'getFullText', requestId: 1, index: 0, part: 'raw' },
      { type: 'loadComments', filter: 'all', more: false },
      { type: 'loadComments', filter: 'ALL', more: 'no' },
      { type: 'finishManualTask', id: 'T1', finish: 'maybe' },
      { type: 'openFile', path: 'a', line: '3' },
      { type: 'setRange', days: 7 },
    ])
      assert.equal(isWebviewMessage(bad), false, JSON.stringify(bad));
  });
});
