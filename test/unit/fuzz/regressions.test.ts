/**
 * The exceptions and disagreements the parser fuzz tests found, each pinned by the
 * smallest input that showed it (each fails without its fix).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ReferenceBackend } from '../../../src/demo/server.ts';
import { BackendError } from '../../../src/domain/errors.ts';
import { TranscriptDocument } from '../../../src/domain/transcript/transcriptDocument.ts';
import { isWebviewMessage } from '../../../src/shared/protocol.ts';
import { ClaudeCodeScanner } from '../../../src/sources/local/claudeCodeScan.ts';
import { parsePlatformRows, withManualTasks } from '../../../src/sources/mcp/platformRows.ts';
import { AgentsApiSource } from '../../../src/sources/rest/agentsApiSource.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { startTestBackend } from '../../support/backend.ts';

describe('found by fuzzing', () => {
  test('a webview message typed "__proto__" or "toString" is refused, not thrown or taken', () => {
    for (const type of ['__proto__', 'toString', 'constructor', 'hasOwnProperty', 'valueOf']) {
      assert.equal(isWebviewMessage({ type }), false, type);
      assert.equal(isWebviewMessage(JSON.parse(`{"type":"${type}","id":"x"}`)), false, type);
    }
    assert.equal(isWebviewMessage({ type: 'ready' }), true);
  });

  test('a manual task waiting 1e308 seconds leaves the wait start unknown, no RangeError', () => {
    const session = parsePlatformRows([{ session_id: 'S1', status: 'RUNNING' }], 'c')!.sessions[0]!;
    const folded = withManualTasks(session, {
      session_id: 'S1',
      status: 'RUNNING',
      pending_manual_tasks: [{ work_item_id: 'T1', title: 'Approve', waiting_age_seconds: 1e308 }],
    });
    assert.equal(folded.pendingTasks?.length, 1);
    assert.equal(folded.waitingSince, undefined);
  });

  test('a value nested 1,500 levels deep is the error entry the index counted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'asi-fuzz-regression-'));
    try {
      const path = join(dir, 'deep.jsonl');
      const deep = '{"type":"user","x":' + '['.repeat(1500) + ']'.repeat(1500) + '}';
      await writeFile(path, `${deep}\n{"type":"summary","summary":"after"}\n`);
      const doc = await TranscriptDocument.open(path, { format: 'claude-code' });
      try {
        await doc.whenIndexed();
        const { entries } = await doc.getWindow(0, 10);
        assert.equal(entries[0]?.kind, 'error');
        assert.match((entries[0] as { message: string }).message, /nested/);
        assert.equal(doc.info().errorCount, 1);
        assert.equal(doc.nextError(-1), 0);
        assert.equal(doc.fitCorrections, 0, 'entries as planned');
      } finally {
        await doc.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('Claude Code: an assistant line with malformed usage decides no status, read either way', () => {
    const system = JSON.stringify({
      type: 'system',
      subtype: 'local_command',
      content: '<command-name>/model</command-name>',
      timestamp: '2026-07-01T10:01:55.834Z',
    });
    const assistant = JSON.stringify({
      type: 'assistant',
      requestId: 'req_1',
      timestamp: '2026-07-01T10:02:00.000Z',
      message: {
        model: 'claude-opus-4-6',
        id: 'msg_1',
        role: 'assistant',
        content: [{ type: 'text', text: 'Done.' }],
        stop_reason: null,
        usage: { input_tokens: 2, output_tokens: 10 },
      },
    }).replace('"output_tokens":10', '"output_tokens"10');
    const bytes = Buffer.from(`${system}\n${assistant}\n`);
    const scan = (deferred: boolean) => {
      const s = new ClaudeCodeScanner('/t/S1.jsonl', { role: 'session', sessionId: 'S1' });
      if (deferred) s.deferStatus();
      s.feed(bytes);
      s.finish();
      const replay = deferred ? s.statusReplay() : undefined;
      if (replay) {
        replay.scanner.feed(bytes.subarray(replay.from));
        replay.scanner.finish();
        s.adoptStatus(replay.scanner);
      }
      return s.summary();
    };
    const eager = scan(false);
    assert.ok(
      eager.problems.some((p) => p.line === 2),
      'line 2 is reported',
    );
    assert.deepEqual(scan(true).last, eager.last);
  });
});

describe('found by fuzzing: REST keys', () => {
  let backend: ReferenceBackend;
  before(async () => {
    backend = await startTestBackend();
  });
  after(() => backend.close());

  test('an agent key with a lone surrogate is a BackendError, not a URIError', async () => {
    const source = new AgentsApiSource({
      config: { id: 'rest', label: 'REST', kind: 'rest', url: backend.url, agents: ['a\ud800'] },
      apiKey: async () => backend.token,
      log: silentLogger,
      timeoutMs: 5000,
    });
    const outcome = await source.listSessions({ limit: 10 }).then(
      (page) => page,
      (error: unknown) => error,
    );
    if (outcome instanceof Error) assert.ok(outcome instanceof BackendError, String(outcome));
    await assert.rejects(source.listEvents('a\ud800/s\udc00'), BackendError);
  });
});
