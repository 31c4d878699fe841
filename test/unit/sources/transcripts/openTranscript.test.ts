import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveFileKey } from '../../../../src/sources/transcripts/openTranscript.ts';

const file = (fileKey: string) => ({
  fileKey,
  label: fileKey,
  availability: 'available',
  description: '',
});

test('a subagent named by its agent id finds the server file keyed by its file id', () => {
  const files = [file('main'), file('subagent:agent-a1b2'), file('subagent:agent-c3d4')];
  assert.equal(resolveFileKey('subagent:c3d4', files), 'subagent:agent-c3d4');
  assert.equal(
    resolveFileKey('subagent:agent-a1b2', files),
    'subagent:agent-a1b2',
    'exact keys stay',
  );
  assert.equal(resolveFileKey('main', files), 'main');
  assert.equal(
    resolveFileKey('subagent:zzzz', files),
    'subagent:zzzz',
    'unknown keys pass through',
  );
  assert.equal(resolveFileKey('subagent:b2', files), 'subagent:b2', 'no partial-id matches');
});
