/**
 * The reference backend's Changes demo: one finished Claude Code session whose first turn
 * writes a new file, edits one it read whole and multi-edits one it read in part, served
 * through get-agent-session-transcript like any other.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { ReferenceBackend } from '../../../src/demo/server.ts';
import { collectChangeEntries } from '../../../src/domain/changes/collectEntries.ts';
import { sessionChanges } from '../../../src/domain/changes/sessionChanges.ts';
import { callTool, connectMcp, startTestBackend, type LooseJson } from '../../support/backend.ts';
import { openDoc, tempFile } from '../domain/transcript/fixtures.ts';

let backend: ReferenceBackend;
let client: Client;

before(async () => {
  backend = await startTestBackend();
  client = await connectMcp(backend);
});
after(async () => {
  await client.close();
  await backend.close();
});

it('serves a session whose agent created, edited and multi-edited a file', async () => {
  const sessionId = backend.fixtures.closedloop.editsThreeFiles;
  const result = await callTool(client, 'get-agent-session-transcript', { sessionId });
  assert.equal(result.isError, false, result.text);
  const main = (result.json.files as LooseJson[]).find((f) => f.fileKey === 'main');
  assert.equal(main?.availability, 'available');
  const text = await (await fetch(main!.url as string)).text();
  const doc = await openDoc(tempFile(text));
  const { files } = sessionChanges({ main: { entries: await collectChangeEntries(doc) } });
  assert.deepEqual(
    files
      .slice(0, 3)
      .map((f) => [f.kind, f.calls.find((c) => !c.failed)?.tool, f.beforeFrom ?? f.unknownReason]),
    [
      ['created', 'Write', 'created'],
      ['edited', 'Edit', 'read'],
      ['edited', 'MultiEdit', 'not-read'],
    ],
  );
});
