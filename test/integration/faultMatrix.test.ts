import * as assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import * as vscode from 'vscode';
import type {
  InterceptedRequest,
  ReferenceBackend,
  RequestInterceptor,
} from '../../src/demo/server.ts';
import type { PendingTask, SessionSummary } from '../../src/domain/session.ts';
import type { ExtensionApi } from '../../src/extension.ts';
import { startTestBackend } from '../support/backend.ts';
import { FaultInjector, type Fault, type FaultMatch } from '../support/faults.ts';
import { ScriptedUser } from './support/ui.ts';
import { extensionApi } from './support/extensionApi.ts';

/**
 * Every mutation × every fault, in a real VS Code against the reference backend: the
 * server applies it at most once, also after the user's retries, and every message the
 * user reads is true at the moment it is shown (checked against the backend's own count
 * and against which request actually applied it).
 */

/** The client's timeout in the timeout column (the setting's minimum) and the server's delay. */
const TIGHT_TIMEOUT_SECONDS = 2;
const SLOW_SERVER_MS = 3_000;

type Mutation = 'complete' | 'cancel' | 'task preview' | 'task commit' | 'interrupt';
type FaultName =
  | 'reset after apply'
  | '500'
  | '502'
  | '503'
  | '429 Retry-After'
  | 'timeout'
  | 'malformed JSON'
  | 'malformed SSE';

/** Each fault with the words the first outcome must give as its cause (the server's or ours). */
const FAULTS: readonly { name: FaultName; fault: Fault; cause: RegExp; mcpOnly?: boolean }[] = [
  {
    name: 'reset after apply',
    fault: { kind: 'dropAfterHandler' },
    cause: /connection to the server failed or was lost|Could not reach/,
  },
  { name: '500', fault: { kind: 'status', status: 500 }, cause: /server failed|answered 500/ },
  { name: '502', fault: { kind: 'status', status: 502 }, cause: /server failed|answered 502/ },
  { name: '503', fault: { kind: 'status', status: 503 }, cause: /server failed|answered 503/ },
  {
    name: '429 Retry-After',
    fault: { kind: 'rateLimit', retryAfterSeconds: 1 },
    cause: /rate limiting/,
  },
  {
    name: 'timeout',
    fault: { kind: 'latency', ms: SLOW_SERVER_MS },
    cause: /in time|did not answer within/,
  },
  {
    name: 'malformed JSON',
    fault: { kind: 'malformedJson' },
    cause: /could not be read|malformed/,
  },
  {
    name: 'malformed SSE',
    fault: { kind: 'malformedJson', as: 'sse' },
    cause: /could not be read|malformed/,
    mcpOnly: true,
  },
];
const MUTATIONS: readonly Mutation[] = [
  'complete',
  'cancel',
  'task preview',
  'task commit',
  'interrupt',
];

/** What a message tells the user about the mutation. */
type Claim =
  | 'applied' // it is done (confirmed by the server's answer or by reading the state again)
  | 'notDone' // it was not done
  | 'refused' // the server refused this request (nothing changed by it)
  | 'unconfirmed' // it may or may not have been applied
  | 'prompt' // a question before anything is sent
  | 'neutral'; // says nothing about the outcome

function claimOf(text: string): Claim | undefined {
  if (/^Not confirmed|may or may not have been applied|may still apply/.test(text))
    return 'unconfirmed';
  if (
    /cannot be undone|The agent stops and the session cannot be resumed|never got a confirmed answer/.test(
      text,
    )
  )
    return 'prompt';
  if (
    /was completed\.|was canceled\.|was finished as|is now finished|already finished|was interrupted|no longer running|had nothing running to interrupt/.test(
      text,
    )
  )
    return 'applied';
  if (
    /was not finished|still open|still running|was not interrupted|Could not interrupt/.test(text)
  )
    return 'notDone';
  if (/^The server refused to finish/.test(text)) return 'refused';
  // Nothing was sent yet (a read before the mutation failed on a busy machine).
  if (/^Could not read the manual task|^Could not check whether/.test(text)) return 'neutral';
  return undefined;
}

/**
 * In the timeout column the user is patient: they do not retry at once but wait for the
 * slow server, then run the command again. Only then does a claim made while the request
 * was still on its way ("nothing was applied") meet what the server did with it.
 */
const patient = (fault: FaultName) => fault === 'timeout';

/** What a cell's runs must end with ('first': the first claim; arrays: either, by timing). */
function expected(
  mutation: Mutation,
  fault: FaultName,
): { first: Claim[]; endOfFirst: Claim[]; again: Claim } {
  const timing: Claim[] = ['unconfirmed', 'applied']; // a re-read may come before or after the slow server applies it
  if (mutation === 'task preview')
    // The preview changes nothing: "not finished" is the truth; running it again finishes it.
    return { first: ['notDone'], endOfFirst: ['notDone'], again: 'applied' };
  if (mutation === 'complete' || mutation === 'cancel')
    return patient(fault)
      ? // "Retry Earlier Request" resends the same key: the server answers with what it applied.
        { first: ['unconfirmed'], endOfFirst: ['unconfirmed'], again: 'applied' }
      : // Retry right away (same key) confirms it; running the command again is refused (ended).
        { first: ['unconfirmed'], endOfFirst: ['applied'], again: 'refused' };
  // Manual task commit and interrupt settle a lost answer by reading the task / session again.
  if (patient(fault)) return { first: timing, endOfFirst: timing, again: 'applied' };
  const applied = fault === 'reset after apply' || fault.startsWith('malformed');
  return {
    // A reset after apply or a garbled answer: the re-read (or a 200) shows it done; a 5xx or
    // 429 left it open / running, and Try Again applies it.
    first: applied ? ['applied'] : ['notDone'],
    endOfFirst: ['applied'],
    // Again on a finished task or a stopped session: "already finished" / "nothing running".
    again: 'applied',
  };
}

interface Seen {
  level: 'info' | 'warning' | 'error';
  text: string;
  claim: Claim | undefined;
  /** The server's count when the message was shown. */
  countAt: number;
  /** How many of the target's mutation requests had reached the server by then. */
  sentBefore: number;
  run: 1 | 2;
}

interface MutationRecord {
  applied: boolean;
}

interface Backend {
  readonly name: string;
  server?: ReferenceBackend;
}

interface Target {
  readonly backend: Backend;
  readonly connectionId: string;
  readonly session: SessionSummary;
  readonly task?: PendingTask;
  /** Key of the target's mutation requests (see mutationKey). */
  readonly key: string;
}

describe('fault matrix: every mutation × every fault is applied at most once and reported truly', function () {
  this.timeout(240_000);
  const faults = new FaultInjector();
  /** complete_manual_task with confirm=false (the preview) has its own rules. */
  const previewFaults = new FaultInjector();
  const records = new Map<string, MutationRecord[]>();
  let inFlight = 0;
  let api: ExtensionApi;
  const backends: Backend[] = [];
  const connectionIds: string[] = [];
  const taskPool: { target: Omit<Target, 'connectionId'>; tight: string; normal: string }[] = [];
  const rows: string[] = [];
  let started = 0;

  /** "complete:<sessionId>", "task:<work item>", "interrupt:<agent>/<session>"; undefined otherwise. */
  const mutationKey = (request: InterceptedRequest): string | undefined => {
    const args = request.toolArguments as Record<string, unknown> | undefined;
    if (request.toolName === 'session_complete') return `complete:${String(args?.sessionId)}`;
    if (request.toolName === 'complete_manual_task' && args?.confirm === true)
      return `task:${String(args.work_item_id)}`;
    const rest = /^\/v2\/agents\/([^/]+)\/sessions\/([^/]+)\/events$/.exec(request.url.pathname);
    if (request.area === 'rest' && request.method === 'POST' && rest)
      return `interrupt:${decodeURIComponent(rest[1]!)}/${decodeURIComponent(rest[2]!)}`;
    return undefined;
  };
  const count = (backend: Backend, key: string): number => {
    const state = backend.server!.state;
    const [kind, id] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    if (kind === 'complete') return state.appliedCompletions(id);
    if (kind === 'task') return state.appliedManualTasks(id);
    const [agent, session] = id.split('/');
    return state.appliedInterrupts(agent!, session!);
  };
  const recordsOf = (target: Target) => {
    const id = `${target.backend.name}|${target.key}`;
    let list = records.get(id);
    if (!list) records.set(id, (list = []));
    return list;
  };

  /** Routes faults and notes, per mutation request, whether that request applied it. */
  const interceptorFor =
    (backend: Backend): RequestInterceptor =>
    async (request, next) => {
      const preview =
        request.toolName === 'complete_manual_task' &&
        (request.toolArguments as { confirm?: unknown } | undefined)?.confirm !== true;
      if (preview) {
        inFlight++;
        try {
          return await previewFaults.interceptor(request, next);
        } finally {
          inFlight--;
        }
      }
      const key = mutationKey(request);
      if (!key) return next();
      const record: MutationRecord = { applied: false };
      recordsOf({ backend, key } as Target).push(record);
      inFlight++;
      try {
        return await faults.interceptor(request, async () => {
          const before = count(backend, key);
          const response = await next();
          if (count(backend, key) > before) record.applied = true;
          return response;
        });
      } finally {
        inFlight--;
      }
    };

  const startBackend = async (): Promise<Backend> => {
    const backend: Backend = { name: `b${backends.length + 1}` };
    backend.server = await startTestBackend({ interceptor: interceptorFor(backend) });
    backends.push(backend);
    return backend;
  };

  /** Adds a connection; a tight one's source is made while the timeout setting is short. */
  const connect = async (
    id: string,
    kind: 'mcp' | 'rest',
    url: string,
    token: string,
    tight: boolean,
  ) => {
    await api.tokens.set(id, url, token);
    const settings = vscode.workspace.getConfiguration('sessionInspector');
    if (tight)
      await settings.update(
        'requestTimeoutSeconds',
        TIGHT_TIMEOUT_SECONDS,
        vscode.ConfigurationTarget.Global,
      );
    try {
      api.registry.addEphemeral({ id, label: id, kind, url });
      connectionIds.push(id);
      assert.ok(api.store.source(id), `source for ${id}`);
    } finally {
      if (tight)
        await settings.update(
          'requestTimeoutSeconds',
          undefined,
          vscode.ConfigurationTarget.Global,
        );
    }
    if (!tight) {
      await api.store.refreshAfterCurrent(id);
      while (api.store.state(id)?.next !== undefined) await api.store.loadMore(id);
      assert.equal(api.store.state(id)?.error, undefined, `${id} loaded`);
    }
  };

  /** A backend's Itential tasks that can be completed, each for one cell. */
  const addTaskBackend = async (backend: Backend) => {
    const normal = `fmTasks${backend.name}`;
    const tight = `${normal}Tight`;
    await connect(normal, 'mcp', backend.server!.mcpUrls.itential, backend.server!.token, false);
    await connect(tight, 'mcp', backend.server!.mcpUrls.itential, backend.server!.token, true);
    for (const session of api.store.state(normal)?.sessions ?? []) {
      for (const task of session.pendingTasks ?? []) {
        if (!task.completionSupported) continue;
        if (backend.server!.state.appliedManualTasks(task.id) > 0) continue;
        taskPool.push({
          target: { backend, session, task, key: `task:${task.id}` },
          normal,
          tight,
        });
      }
    }
  };

  let main: Backend;
  const reportingPool: SessionSummary[] = [];
  const runningPool: SessionSummary[] = [];

  before(async () => {
    started = Date.now();
    api = await extensionApi();
    main = await startBackend();
    const server = main.server!;
    await connect('fmReporting', 'mcp', server.mcpUrls.closedloop, server.token, false);
    await connect('fmReportingTight', 'mcp', server.mcpUrls.closedloop, server.token, true);
    await connect('fmAgents', 'rest', server.url, server.token, false);
    await connect('fmAgentsTight', 'rest', server.url, server.token, true);
    await addTaskBackend(main);
    const pending = (id: string) =>
      server.state.instructions(id).filter((i) => i.state === 'pending').length;
    reportingPool.push(
      ...(api.store.state('fmReporting')?.sessions ?? []).filter(
        (s) =>
          s.status.status !== 'finished' &&
          !s.endedAt &&
          server.state.completion(s.id) === undefined &&
          pending(s.id) === 0,
      ),
    );
    runningPool.push(
      ...(api.store.state('fmAgents')?.sessions ?? []).filter((s) => s.status.raw === 'running'),
    );
  });

  after(async () => {
    for (const id of connectionIds) await api.registry.remove(id);
    for (const backend of backends) await backend.server?.close();
    console.log(`\n      fault matrix (${rows.length} cells, ${(Date.now() - started) / 1000} s):`);
    for (const row of rows) console.log(`        ${row}`);
  });

  const lease = async (mutation: Mutation, tight: boolean): Promise<Target> => {
    const suffix = tight ? 'Tight' : '';
    if (mutation === 'complete' || mutation === 'cancel') {
      const session = reportingPool.shift();
      assert.ok(session, 'an open reporting session is left for this cell');
      return {
        backend: main,
        connectionId: `fmReporting${suffix}`,
        session: { ...session, connectionId: `fmReporting${suffix}` },
        key: `complete:${session.id}`,
      };
    }
    if (mutation === 'interrupt') {
      const session = runningPool.shift();
      assert.ok(session, 'a running REST session is left for this cell');
      return {
        backend: main,
        connectionId: `fmAgents${suffix}`,
        session: { ...session, connectionId: `fmAgents${suffix}` },
        key: `interrupt:${session.id}`,
      };
    }
    // A backend has seven completable tasks; the matrix needs more, so more backends start.
    if (taskPool.length === 0) await addTaskBackend(await startBackend());
    const next = taskPool.shift()!;
    const connectionId = tight ? next.tight : next.normal;
    return {
      ...next.target,
      connectionId,
      session: { ...next.target.session, connectionId },
    };
  };

  /** Runs the mutation's command once, as the user would, recording every message. */
  const runCommand = async (
    mutation: Mutation,
    target: Target,
    run: 1 | 2,
    seen: Seen[],
    patientUser: boolean,
  ) => {
    const user = new ScriptedUser();
    let retries = patientUser ? 2 : 0;
    const window = vscode.window as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const [name, level] of [
      ['showInformationMessage', 'info'],
      ['showWarningMessage', 'warning'],
      ['showErrorMessage', 'error'],
    ] as const) {
      const scripted = window[name]!;
      window[name] = (text: unknown, ...rest: unknown[]) => {
        seen.push({
          level,
          text: String(text),
          claim: claimOf(String(text)),
          countAt: count(target.backend, target.key),
          sentBefore: recordsOf(target).length,
          run,
        });
        // The user confirms what they asked for and retries what was not confirmed (twice at
        // most; a patient user not at once).
        const offered = rest.filter((r): r is string => typeof r === 'string');
        if (offered.length) {
          let answer: string | undefined;
          if (/cannot be undone/.test(String(text))) answer = offered[0];
          else if (offered.includes('Cancel Session')) answer = 'Cancel Session';
          else if (offered.includes('Retry Earlier Request')) answer = 'Retry Earlier Request';
          else if (/^Could not check whether/.test(String(text))) answer = 'Retry';
          else if (retries < 2) {
            answer = ['Retry', 'Try Again'].find((b) => offered.includes(b));
            if (answer) retries++;
          }
          user.click(answer);
        }
        return scripted(text, ...rest);
      };
    }
    try {
      const node = { kind: 'session', session: target.session };
      switch (mutation) {
        case 'complete':
          user.type('Done under faults').pick((items) => items[0]); // no review
          await vscode.commands.executeCommand('sessionInspector.completeSession', node);
          break;
        case 'cancel':
          user.type('Canceled under faults');
          await vscode.commands.executeCommand('sessionInspector.cancelSession', node);
          break;
        case 'task preview':
        case 'task commit':
          user.pick((items) => items[0]); // success
          await vscode.commands.executeCommand('sessionInspector.completeManualTask', {
            ...node,
            task: target.task,
          });
          break;
        case 'interrupt':
          await vscode.commands.executeCommand('sessionInspector.interruptSession', node);
          break;
      }
    } finally {
      user.restore();
    }
    // A request the server is still sleeping on (the timeout column) must land before counting.
    const deadline = Date.now() + SLOW_SERVER_MS * 3;
    while (inFlight > 0 && Date.now() < deadline) await sleep(50);
    assert.equal(inFlight, 0, 'every request of the cell was answered or dropped');
  };

  /** Each message is true when shown, given which requests the server applied. */
  const assertTruthful = (target: Target, seen: Seen[]) => {
    const sent = recordsOf(target);
    for (const m of seen) {
      const where = `${JSON.stringify(m.text)} (${JSON.stringify(seen.map((s) => s.text))})`;
      assert.ok(m.claim, `every message is one the matrix knows: ${where}`);
      if (m.claim === 'applied')
        assert.ok(m.countAt >= 1, `said done while the server had not applied it: ${where}`);
      if (m.claim === 'notDone')
        assert.ok(
          sent.slice(0, m.sentBefore).every((r) => !r.applied),
          `said not done, but a request sent before it applied it: ${where}`,
        );
      if (m.claim === 'refused')
        assert.equal(
          sent[m.sentBefore - 1]?.applied,
          false,
          `said refused, but that request applied it: ${where}`,
        );
      if (m.claim === 'notDone' || m.claim === 'refused' || m.claim === 'unconfirmed')
        assert.notEqual(
          m.level,
          'info',
          `a failure or doubt is not shown as information: ${where}`,
        );
      if (m.claim === 'applied')
        assert.equal(m.level, 'info', `a done mutation is not an error or warning: ${where}`);
    }
  };

  const outcomes = (seen: Seen[], run: 1 | 2) =>
    seen
      .filter((m) => m.run === run && m.claim !== 'prompt' && m.claim !== 'neutral')
      .map((m) => m.claim!);

  for (const mutation of MUTATIONS) {
    for (const { name: faultName, fault, cause, mcpOnly } of FAULTS) {
      if (mcpOnly && mutation === 'interrupt') continue;
      it(`${mutation} × ${faultName}`, async () => {
        const tight = fault.kind === 'latency';
        const target = await lease(mutation, tight);
        const match: FaultMatch =
          mutation === 'interrupt'
            ? { area: 'rest', method: 'POST' }
            : mutation === 'complete' || mutation === 'cancel'
              ? { tool: 'session_complete' }
              : { tool: 'complete_manual_task' };
        faults.clear();
        previewFaults.clear();
        const rule = (mutation === 'task preview' ? previewFaults : faults).add({
          match,
          fault,
          times: 1,
        });
        const seen: Seen[] = [];
        try {
          await runCommand(mutation, target, 1, seen, patient(faultName));
          assert.equal(rule.hits, 1, 'the fault was injected');
          // The user runs the command again (a retry from scratch, after the in-flow retries).
          await runCommand(mutation, target, 2, seen, patient(faultName));
        } finally {
          faults.clear();
          previewFaults.clear();
        }
        const first = outcomes(seen, 1);
        const again = outcomes(seen, 2);
        const applied = count(target.backend, target.key);
        rows.push(
          `${`${mutation} × ${faultName}`.padEnd(34)} ${first.join(' → ') || '(nothing)'} | again: ${again.join(' → ') || '(nothing)'} | applied ${applied}×`,
        );
        const texts = JSON.stringify(seen.map((m) => `${m.run}:${m.level}: ${m.text}`));
        assertTruthful(target, seen);
        assert.equal(applied, 1, `applied exactly once after the retries: ${texts}`);
        const want = expected(mutation, faultName);
        assert.ok(want.first.includes(first[0]!), `the first thing the user is told: ${texts}`);
        assert.ok(want.endOfFirst.includes(first.at(-1)!), `the end of the first run: ${texts}`);
        assert.equal(again.at(-1), want.again, `the second run: ${texts}`);
        // The cause is named truly (a 200 with a garbled body confirmed the interrupt: no cause).
        const firstText = seen.find((m) => m.claim === first[0])!.text;
        if (!(mutation === 'interrupt' && faultName === 'malformed JSON'))
          assert.match(firstText, cause, `the cause of ${faultName}: ${texts}`);
        if (mutation === 'complete' || mutation === 'cancel') {
          const record = target.backend.server!.state.completion(target.session.id);
          assert.equal(record?.status, mutation === 'complete' ? 'completed' : 'canceled');
          assert.equal(
            api.completions.unfinishedFor(target.connectionId, target.session.id),
            undefined,
            'no intent is left waiting once the server confirmed it',
          );
        }
      });
    }
  }
});
