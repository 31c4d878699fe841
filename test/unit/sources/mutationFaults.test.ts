/**
 * The sources' side of the fault matrix (test/integration/faultMatrix.test.ts has the
 * commands and what the user reads): session_complete, complete_manual_task (confirm=true)
 * and the REST interrupt under each fault, over real HTTP against the reference backend.
 * What the source reports must match what the server did, read from the server's state;
 * the re-reads the commands settle a lost answer with (describe_manual_task, the REST
 * session) must show the server's state, including a request it applies after the
 * client gave up.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildDataset } from '../../../src/demo/dataset.ts';
import type { ReferenceBackend } from '../../../src/demo/server.ts';
import type { UnconfirmedReason } from '../../../src/domain/completionIntent.ts';
import { findBackendError, type BackendErrorKind } from '../../../src/domain/errors.ts';
import { createMcpToolClient } from '../../../src/sources/mcp/mcpSdkClient.ts';
import { McpSource } from '../../../src/sources/mcp/mcpSource.ts';
import { AgentsApiSource } from '../../../src/sources/rest/agentsApiSource.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { FIXED_NOW, startTestBackend, TEST_SEED } from '../../support/backend.ts';
import { FaultInjector, type Fault } from '../../support/faults.ts';

const TIMEOUT_MS = 1_000;
const SLOW_SERVER_MS = 1_600;

const faults = new FaultInjector();
let inFlight = 0;
let backend: ReferenceBackend;

/** What each fault must be reported as: the reason of an unknown outcome, the error kind. */
const FAULTS: readonly {
  name: string;
  fault: Fault;
  reason: UnconfirmedReason;
  kind: BackendErrorKind | 'answered';
  /** Whether the server applied the faulted request (eventually, for the slow one). */
  applies: boolean;
  rest: boolean;
}[] = [
  {
    name: 'reset after apply',
    fault: { kind: 'dropAfterHandler' },
    reason: 'unreachable',
    kind: 'network',
    applies: true,
    rest: true,
  },
  {
    name: '503',
    fault: { kind: 'status', status: 503 },
    reason: 'server',
    kind: 'server',
    applies: false,
    rest: true,
  },
  {
    name: '429 with Retry-After',
    fault: { kind: 'rateLimit', retryAfterSeconds: 7 },
    reason: 'rateLimited',
    kind: 'rateLimited',
    applies: false,
    rest: true,
  },
  {
    name: 'timeout (the server applies it later)',
    fault: { kind: 'latency', ms: SLOW_SERVER_MS },
    reason: 'timeout',
    kind: 'timeout',
    applies: true,
    rest: true,
  },
  {
    name: 'malformed JSON',
    fault: { kind: 'malformedJson' },
    reason: 'server',
    // The interrupt's 200 is the answer; its body is not needed.
    kind: 'answered',
    applies: true,
    rest: true,
  },
  {
    name: 'malformed JSON in a server-sent event',
    fault: { kind: 'malformedJson', as: 'sse' },
    reason: 'server',
    kind: 'answered',
    applies: true,
    rest: false,
  },
];

const dataset = buildDataset({ seed: TEST_SEED, now: FIXED_NOW });
const openSessions = dataset.closedloop.sessions.filter((s) => s.endedAtMs === null);
const openTasks = dataset.itential.manualTasks.filter(
  (t) => t.state === 'pending' && ['ViewData', 'ViewHTML', 'InteractiveHTML'].includes(t.view_type),
);
const running = [...dataset.agents.sessions.values()].flat().filter((s) => s.status === 'running');

before(async () => {
  backend = await startTestBackend({
    interceptor: async (request, next) => {
      inFlight++;
      try {
        return await faults.interceptor(request, next);
      } finally {
        inFlight--;
      }
    },
  });
});
after(() => backend.close());

/** Waits for requests the server is still sleeping on (the timeout row). */
async function drained(): Promise<void> {
  const deadline = Date.now() + SLOW_SERVER_MS * 4;
  while (inFlight > 0 && Date.now() < deadline) await sleep(20);
  assert.equal(inFlight, 0);
}

function mcp(url: string): McpSource {
  return new McpSource({
    config: { id: 'faults', label: 'Faults', kind: 'mcp', url },
    token: async () => backend.token,
    loadClient: async () => createMcpToolClient,
    log: silentLogger,
    timeoutMs: TIMEOUT_MS,
    clientVersion: 'test',
  });
}

describe('session_complete under faults: unknown with the right reason; the retry (same key) applies it once', () => {
  FAULTS.forEach(({ name, fault, reason }, i) => {
    it(name, async () => {
      const source = mcp(backend.mcpUrls.closedloop);
      const session = openSessions[i]!;
      const args = {
        sessionId: session.id,
        status: 'completed',
        summary: 'fault matrix',
        idempotencyKey: `fault-matrix-${i}`,
      };
      await source.canComplete();
      faults.add({ match: { tool: 'session_complete' }, fault, times: 1 });
      const outcome = await source.completeSession(args);
      assert.equal(outcome.kind, 'unknown', outcome.text);
      assert.equal(outcome.kind === 'unknown' && outcome.reason, reason, outcome.text);
      const retried = await source.completeSession(args);
      assert.equal(retried.kind, 'applied', retried.text);
      await drained();
      assert.equal(backend.state.appliedCompletions(session.id), 1);
      // The retry reused the key: the record is the first request's when that one applied.
      assert.equal(backend.state.completion(session.id)?.idempotencyKey, args.idempotencyKey);
      await source.dispose();
    });
  });
});

describe('complete_manual_task under faults: unknown with the right reason; describe_manual_task shows what the server did', () => {
  FAULTS.forEach(({ name, fault, reason, applies }, i) => {
    it(name, async () => {
      const source = mcp(backend.mcpUrls.itential);
      const task = openTasks[i]!;
      assert.equal((await source.describeManualTask(task.work_item_id)).state, 'open');
      faults.add({ match: { tool: 'complete_manual_task' }, fault, times: 1 });
      const outcome = await source.commitManualTask(task.work_item_id, 'success');
      assert.equal(outcome.kind, 'unknown', outcome.text);
      assert.equal(outcome.kind === 'unknown' && outcome.reason, reason, outcome.text);
      const reread = await source.describeManualTask(task.work_item_id);
      if (fault.kind === 'latency') {
        // Read right after the timeout the task is still open, yet the server applies the
        // request later: "open" after a timeout does not mean "nothing was applied".
        assert.equal(reread.state, 'open');
        await drained();
        assert.equal((await source.describeManualTask(task.work_item_id)).state, 'finished');
      } else {
        assert.equal(reread.state, applies ? 'finished' : 'open');
      }
      await drained();
      assert.equal(backend.state.appliedManualTasks(task.work_item_id), applies ? 1 : 0);
      // A second commit never applies it twice: the server refuses a finished task.
      const again = await source.commitManualTask(task.work_item_id, 'success');
      assert.equal(again.kind, applies ? 'refused' : 'applied', again.text);
      assert.equal(backend.state.appliedManualTasks(task.work_item_id), 1);
      await source.dispose();
    });
  });
});

describe('REST interrupt under faults: the error kind says whether it may have landed; the session read again shows it', () => {
  FAULTS.filter((f) => f.rest).forEach(({ name, fault, kind, applies }, i) => {
    it(name, async () => {
      const source = new AgentsApiSource({
        config: { id: 'rest', label: 'REST', kind: 'rest', url: backend.url },
        apiKey: async () => backend.token,
        log: silentLogger,
        timeoutMs: TIMEOUT_MS,
      });
      const session = running[i]!;
      const id = `${session.agent_key}/${session.key}`;
      assert.equal(await source.sessionStatus(id), 'running');
      faults.add({ match: { area: 'rest', method: 'POST' }, fault, times: 1 });
      const result = await source.interrupt(id).then(
        (r) => r,
        (error: unknown) => findBackendError(error)?.kind ?? String(error),
      );
      assert.equal(result, kind === 'answered' ? 'interrupted' : kind);
      if (fault.kind === 'latency') {
        assert.equal(await source.sessionStatus(id), 'running', 'not yet, right after the timeout');
        await drained();
      }
      assert.equal(await source.sessionStatus(id), applies ? 'stopped' : 'running');
      assert.equal(
        backend.state.appliedInterrupts(session.agent_key, session.key),
        applies ? 1 : 0,
      );
      const again = await source.interrupt(id);
      assert.equal(again, applies ? 'nothingToInterrupt' : 'interrupted');
      assert.equal(backend.state.appliedInterrupts(session.agent_key, session.key), 1);
    });
  });
});
