/**
 * From per-file summaries to sessions: subagent files attached to their parent (by folder,
 * or for 2.0.x files beside the parent by the sessionId in their lines, else by the agentId
 * the parent mentions; orphans stay as their own rows, never as resumable sessions), Claude Code
 * usage de-duplicated across files, statuses derived, tokens and cost summed.
 *
 * De-duplication: a Claude response key (message.id:requestId) is counted once over all
 * files, with the maximum of each field over every line and copy that carries it. It
 * belongs to the earliest file (by first timestamp, then path) whose own lines have it, so
 * a subagent's response counts in the subagent's row and a resumed session that repeats
 * old responses does not count them again. An agent_progress copy only counts when no file
 * has the response itself (the subagent file is missing): then it belongs to that
 * subagent's row if there is one, else to the parent.
 */
import { dirname, join } from 'node:path';
import type { SessionSummary } from '../../domain/session.ts';
import type { DiscoveredFile } from './discovery.ts';
import { deriveLocalStatus, type StatusThresholds } from './localStatus.ts';
import { copyUsage, mergeUsage } from './usageRecord.ts';
import type { Pricing } from './pricing.ts';
import type { SubagentMeta } from './scanCache.ts';
import { baseName, cleanTitle } from './text.ts';
import type { FileSummary, Harness, UsageRecord } from './types.ts';

export interface LocalSession {
  summary: SessionSummary;
  harness: Harness;
  role: 'session' | 'subagent';
  path: string;
  /** The working directory (what "project" means for local sessions). */
  project: string | undefined;
  /** De-duplicated usage this session owns. */
  records: UsageRecord[];
  /** No token accounting in the file (Codex legacy): tokens and cost are unknown. */
  noTokenInfo: boolean;
  /** Latest mtime of the session's files (subagent files included for a parent). */
  lastWriteMs: number;
  file: FileSummary;
  /** Paths of attached subagent files. */
  children: string[];
  /** Codex: under archived_sessions/. */
  archived: boolean;
}

export interface AggregateInput {
  connectionId: string;
  files: readonly DiscoveredFile[];
  summaries: readonly FileSummary[];
  metas: ReadonlyMap<string, SubagentMeta>;
  now: number;
  pricing: Pricing;
  thresholds: StatusThresholds;
}

/** Sessions sorted by last activity (newest first), then id. */
export function aggregate(input: AggregateInput): LocalSession[] {
  const sessions = buildSessions(input);
  assignUsage(sessions);
  // Before finish: setStatus there copies the summary.
  addTokens(sessions, input.pricing);
  for (const s of sessions) finish(s, input);
  return sortSessions(sessions);
}

export function sortSessions(sessions: LocalSession[]): LocalSession[] {
  const key = (s: LocalSession) => Date.parse(s.summary.lastActivityAt ?? '') || 0;
  return sessions.sort(
    (a, b) => key(b) - key(a) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
}

function buildSessions(input: AggregateInput): LocalSession[] {
  const sessions: LocalSession[] = [];
  const byPath = new Map<string, LocalSession>();
  input.files.forEach((file, i) => {
    const s = input.summaries[i]!;
    const session: LocalSession = {
      summary: {
        id: file.path,
        connectionId: input.connectionId,
        label: '',
        status: { status: 'unknown', raw: '' },
        harness: file.harness,
      },
      harness: file.harness,
      role: file.role,
      path: file.path,
      project: s.cwd,
      records: [],
      noTokenInfo: s.noTokenInfo,
      lastWriteMs: file.mtimeMs,
      file: s,
      children: [],
      archived: file.archived === true,
    };
    sessions.push(session);
    byPath.set(file.path, session);
  });
  // Parents named by the agentId their Task results and progress lines mention.
  const byAgentId = new Map<string, LocalSession>();
  for (const s of sessions) {
    if (s.harness === 'claude-code' && s.role === 'session') {
      for (const link of s.file.subagents)
        if (!byAgentId.has(link.agentId)) byAgentId.set(link.agentId, s);
    }
  }
  input.files.forEach((file, i) => {
    if (file.role !== 'subagent') return;
    const child = sessions[i]!;
    // <project>/<sessionId>/subagents/agent-<id>.jsonl → <project>/<sessionId>.jsonl; a
    // 2.0.x <project>/agent-<id>.jsonl → the sessionId its lines carry, beside it.
    const sessionId = file.sessionId ?? child.file.sessionId;
    const byFolder = file.sessionId
      ? byPath.get(join(dirname(dirname(dirname(file.path))), `${file.sessionId}.jsonl`))
      : sessionId
        ? byPath.get(join(dirname(file.path), `${sessionId}.jsonl`))
        : undefined;
    const parent = byFolder ?? (file.agentId ? byAgentId.get(file.agentId) : undefined);
    const meta = input.metas.get(file.path);
    child.summary.label =
      cleanTitle(meta?.description ?? '') ??
      child.file.title ??
      `Subagent ${file.agentId ?? ''}`.trim();
    if (!parent) return; // an orphan: shown on its own
    child.summary.parentId = parent.path;
    child.project ??= parent.project;
    parent.children.push(file.path);
    parent.lastWriteMs = Math.max(parent.lastWriteMs, file.mtimeMs);
  });
  return sessions;
}

function assignUsage(sessions: LocalSession[]): void {
  const claude = sessions
    .filter((s) => s.harness === 'claude-code')
    .sort(
      (a, b) =>
        (Number.isFinite(a.file.firstMs) ? a.file.firstMs : Infinity) -
          (Number.isFinite(b.file.firstMs) ? b.file.firstMs : Infinity) ||
        (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
    );
  // Each response once: its record (the first seen, or a copy once another merges into
  // it: the files' own records belong to the scan cache and are reused by the next
  // refresh) and the session it counts in. Parallel arrays behind one Map of indexes: no
  // object per response (a cold scan has tens of thousands).
  const index = new Map<string, number>();
  const recs: UsageRecord[] = [];
  const owners: LocalSession[] = [];
  const copied: boolean[] = [];
  const add = (key: string, r: UsageRecord, owner: () => LocalSession) => {
    const i = index.get(key);
    if (i === undefined) {
      index.set(key, recs.length);
      recs.push(r);
      owners.push(owner());
      copied.push(false);
      return;
    }
    if (!copied[i]) {
      recs[i] = copyUsage(recs[i]!);
      copied[i] = true;
    }
    mergeUsage(recs[i]!, r);
  };
  for (const s of claude) {
    const self = () => s;
    s.file.usage.forEach((r, key) => add(key, r, self));
  }
  // Subagent rows by (parent path, agentId), for copies whose subagent file lacks them.
  const subagentOf = new Map<string, LocalSession>();
  for (const s of claude) {
    if (s.role === 'subagent' && s.summary.parentId && s.file.agentId) {
      subagentOf.set(`${s.summary.parentId}\n${s.file.agentId}`, s);
    }
  }
  for (const s of claude) {
    s.file.copies.forEach((r, key) =>
      add(key, r, () => (r.agentId && subagentOf.get(`${s.path}\n${r.agentId}`)) || s),
    );
  }
  for (let i = 0; i < recs.length; i++) owners[i]!.records.push(recs[i]!);
  for (const s of sessions) {
    if (s.harness === 'codex') s.records = [...s.file.usage.values()];
  }
}

function finish(s: LocalSession, input: AggregateInput): void {
  const f = s.file;
  const sum = s.summary;
  if (s.role === 'session') {
    const short = (f.sessionId ?? baseName(s.path)).slice(0, 8);
    sum.label =
      f.title ??
      f.summaryTitle ??
      `${s.harness === 'codex' ? 'Codex' : 'Claude Code'} session ${short}`;
    // Subagents have no id of their own to resume: they are resumed with their parent.
    if (f.sessionId) sum.resumeId = f.sessionId;
  }
  if (f.mainModel) sum.model = f.mainModel;
  if (s.project) sum.project = s.project;
  const repository = f.gitRemote ?? (s.project ? baseName(s.project) : undefined);
  if (repository) sum.repository = repository;
  if (f.gitBranch) sum.branch = f.gitBranch;
  if (f.firstTimestamp) sum.startedAt = f.firstTimestamp;
  // Legacy Codex files have one timestamp (the header): the file's mtime says more.
  const last =
    f.lastTimestamp && !s.noTokenInfo
      ? f.lastTimestamp
      : new Date(Math.max(s.lastWriteMs, Number.isFinite(f.lastMs) ? f.lastMs : 0)).toISOString();
  sum.lastActivityAt = last;
  // Last: it replaces the summary object.
  setStatus(s, input.now, input.thresholds);
}

/**
 * Token sums and cost of every session; without token information they stay unknown
 * (absent). One flat loop over all sessions' records. This code runs once per listing, so
 * V8 optimises it while it runs (on-stack replacement), from its hottest loop: a loop per
 * session inside a loop over sessions would be compiled for the inner loop alone, and that
 * code thrown away at each exit from it.
 */
function addTokens(sessions: readonly LocalSession[], pricing: Pricing): void {
  const counted = sessions.filter((s) => !s.noTokenInfo || s.records.length > 0);
  let next = 0;
  let records: readonly UsageRecord[] = [];
  let i = 0;
  let input = 0;
  let output = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  let cost: number | undefined = 0;
  for (;;) {
    if (i < records.length) {
      const r = records[i++]!;
      input += r.input;
      output += r.output;
      cacheRead += r.cacheRead;
      cacheWrite += r.cacheWrite;
      const c = pricing.costOf(r);
      cost = c === undefined || cost === undefined ? undefined : cost + c;
      continue;
    }
    // The last session's records are summed: write them, go on with the next session.
    if (next > 0) {
      const sum = counted[next - 1]!.summary;
      sum.inputTokens = input;
      sum.outputTokens = output;
      sum.cacheReadTokens = cacheRead;
      sum.cacheWriteTokens = cacheWrite;
      if (cost !== undefined) sum.estimatedCost = cost;
    }
    if (next === counted.length) return;
    records = counted[next++]!.records;
    i = 0;
    input = output = cacheRead = cacheWrite = 0;
    cost = 0;
  }
}

/**
 * Derives the session's status for `now` into a new summary object (rows already handed
 * out keep theirs): status, waitingSince, and endedAt for finished sessions.
 */
export function setStatus(s: LocalSession, now: number, thresholds: StatusThresholds): void {
  const { waitingSince, ...status } = deriveLocalStatus(
    {
      harness: s.harness,
      role: s.role,
      facts: s.file.last,
      lastWriteMs: s.lastWriteMs,
      now,
      archived: s.archived,
    },
    thresholds,
  );
  const sum: SessionSummary = { ...s.summary, status };
  delete sum.waitingSince;
  delete sum.endedAt;
  if (waitingSince) sum.waitingSince = waitingSince;
  if (status.status === 'finished' && sum.lastActivityAt) sum.endedAt = sum.lastActivityAt;
  s.summary = sum;
}
