/**
 * Why our cost of a day × model cell and ccusage's differ when their tokens are equal.
 *
 * ccusage's prices (LiteLLM's data, embedded in its binary and used with --offline) are not
 * readable from outside, so they are observed: ccusage runs once on a small tree where each
 * day holds one response of one token kind for each model (100k and 300k tokens), and its
 * cost per day × model gives its per-million price of each kind, below and above 200k. As
 * observed for 20.0.24 on such files: each response is priced on its own; tokens of a kind
 * above 200k of that kind are billed at LiteLLM's above-200k price (when it has one), the
 * rest at the base price; Claude's 1-hour cache writes have a price of their own; Codex
 * input is billed without its cached part, which is billed as cache reads.
 *
 * Ours (src/sources/local/pricing.ts, @pydantic/genai-prices): each response on its own; a
 * request whose input (cache included) exceeds the model's threshold is billed wholly at
 * the long-context prices; a price may change on a date.
 *
 * With both modelled response by response, a cell's difference splits into named parts:
 * the base prices (genai-prices' vs LiteLLM's, kind by kind) and the long-context rules.
 * The bench trusts the split only when the modelled ccusage cost reproduces the one it
 * printed and our modelled cost the one we printed.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LocalSnapshot } from '../../src/sources/local/localIndex.ts';
import type { Pricing } from '../../src/sources/local/pricing.ts';
import type { UsageRecord } from '../../src/sources/local/types.ts';
import { utcDay } from '../../src/sources/local/usageReport.ts';

export const KINDS = ['input', 'output', 'cacheRead', 'cacheWrite', 'cacheWrite1h'] as const;
export type Kind = (typeof KINDS)[number];
const KIND_LABEL: Record<Kind, string> = {
  input: 'input',
  output: 'output',
  cacheRead: 'cache read',
  cacheWrite: 'cache write (5 min)',
  cacheWrite1h: 'cache write (1 h)',
};

/** USD per million tokens of one kind: up to 200k tokens of that kind, and above. */
export interface KindPrice {
  base: number;
  above: number;
}
export type CcusagePrices = Record<Kind, KindPrice>;

/** The tokens ccusage's LiteLLM tiers count from. */
const THRESHOLD = 200_000;
const SIZES = [100_000, 300_000] as const;

/** `claude|model` or `codex|model`. */
export const modelKey = (agent: string, model: string) => `${agent}|${model}`;

interface CcusageDaily {
  daily: {
    period: string;
    agents?: { agent: string; modelBreakdowns: { modelName: string; cost: number }[] }[];
  }[];
}

function run(bin: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(Buffer.concat(out).toString())
        : reject(new Error(`ccusage exited with ${code}: ${Buffer.concat(err).toString()}`)),
    );
  });
}

/** The day of probe `i` (kind × size), one per day so each cell holds one response. */
const probeDay = (i: number) => new Date(Date.UTC(2030, 0, 1 + i)).toISOString().slice(0, 10);

/** ccusage's prices of each model, observed on one run over a probe tree (see the module comment). */
export async function probeCcusagePrices(
  bin: string,
  models: readonly { agent: 'claude' | 'codex'; model: string }[],
): Promise<Map<string, CcusagePrices>> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'asi-bench-ccusage-prices-'));
  try {
    const claudeDir = path.join(root, 'claude');
    const codexDir = path.join(root, 'codex');
    await mkdir(path.join(claudeDir, 'projects', '-probe'), { recursive: true });
    await mkdir(path.join(codexDir, 'sessions'), { recursive: true });
    const claudeLines: string[] = [];
    let n = 0;
    for (const { agent, model } of models) {
      for (const [k, kind] of KINDS.entries()) {
        for (const [s, size] of SIZES.entries()) {
          const day = probeDay(k * SIZES.length + s);
          const t = `${day}T12:00:00.000Z`;
          n++;
          if (agent === 'claude') {
            const tokens = (of: Kind) => (kind === of ? size : 0);
            claudeLines.push(
              JSON.stringify({
                type: 'assistant',
                sessionId: 'probe',
                cwd: '/probe',
                isSidechain: false,
                message: {
                  model,
                  id: `msg_probe_${n}`,
                  role: 'assistant',
                  content: [],
                  usage: {
                    input_tokens: tokens('input'),
                    output_tokens: tokens('output'),
                    cache_read_input_tokens: tokens('cacheRead'),
                    cache_creation_input_tokens: tokens('cacheWrite') + tokens('cacheWrite1h'),
                    cache_creation: {
                      ephemeral_5m_input_tokens: tokens('cacheWrite'),
                      ephemeral_1h_input_tokens: tokens('cacheWrite1h'),
                    },
                  },
                },
                requestId: `req_probe_${n}`,
                uuid: `probe-${n}`,
                timestamp: t,
              }),
            );
          } else if (kind === 'input' || kind === 'output' || kind === 'cacheRead') {
            // Codex: input_tokens include the cached ones.
            const usage = {
              input_tokens: kind === 'output' ? 0 : size,
              cached_input_tokens: kind === 'cacheRead' ? size : 0,
              output_tokens: kind === 'output' ? size : 0,
              reasoning_output_tokens: 0,
              total_tokens: size,
            };
            const id = `0190aaaa-0000-7000-8000-${String(n).padStart(12, '0')}`;
            const dir = path.join(codexDir, 'sessions', ...day.split('-'));
            await mkdir(dir, { recursive: true });
            const lines = [
              { timestamp: t, type: 'session_meta', payload: { id, timestamp: t, cwd: '/probe' } },
              { timestamp: t, type: 'turn_context', payload: { cwd: '/probe', model } },
              {
                timestamp: t,
                type: 'event_msg',
                payload: {
                  type: 'token_count',
                  info: { total_token_usage: usage, last_token_usage: usage },
                },
              },
            ];
            await writeFile(
              path.join(dir, `rollout-${day}T12-00-00-${id}.jsonl`),
              lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
            );
          }
        }
      }
    }
    await writeFile(
      path.join(claudeDir, 'projects', '-probe', 'probe.jsonl'),
      claudeLines.join('\n') + '\n',
    );
    const home = path.join(root, 'home');
    await mkdir(home);
    const out = await run(
      bin,
      ['daily', '--json', '--offline', '--timezone', 'UTC', '--by-agent'],
      {
        PATH: process.env.PATH ?? '',
        HOME: home,
        TZ: 'UTC',
        NO_COLOR: '1',
        CLAUDE_CONFIG_DIR: claudeDir,
        CODEX_HOME: codexDir,
      },
    );
    const costs = new Map<string, number>();
    for (const day of (JSON.parse(out) as CcusageDaily).daily) {
      for (const a of day.agents ?? []) {
        for (const m of a.modelBreakdowns)
          costs.set(`${a.agent}|${m.modelName}|${day.period}`, m.cost);
      }
    }
    const prices = new Map<string, CcusagePrices>();
    for (const { agent, model } of models) {
      const p = {} as CcusagePrices;
      KINDS.forEach((kind, k) => {
        const [small, large] = SIZES.map(
          (_, s) => costs.get(`${agent}|${model}|${probeDay(k * SIZES.length + s)}`) ?? 0,
        ) as [number, number];
        const base = (small / SIZES[0]) * 1e6;
        const above = ((large - (base * THRESHOLD) / 1e6) / (SIZES[1] - THRESHOLD)) * 1e6;
        p[kind] = { base: round6(base), above: round6(above) };
      });
      prices.set(modelKey(agent, model), p);
    }
    return prices;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/** A record's tokens by kind as the two sides bill them (1-hour writes apart). */
function tokensOf(r: UsageRecord): Record<Kind, number> {
  const oneHour = Math.min(r.cacheWrite1h, r.cacheWrite);
  return {
    input: r.input,
    output: r.output,
    cacheRead: r.cacheRead,
    cacheWrite: r.cacheWrite - oneHour,
    cacheWrite1h: oneHour,
  };
}

/** ccusage's cost of one response under its observed rule. */
export function ccusageCost(p: CcusagePrices, r: UsageRecord): number {
  const t = tokensOf(r);
  let usd = 0;
  for (const kind of KINDS) {
    const n = t[kind];
    usd +=
      (p[kind].base * Math.min(n, THRESHOLD) + p[kind].above * Math.max(0, n - THRESHOLD)) / 1e6;
  }
  return usd;
}

/** ccusage's base prices, no tier: what the response would cost at LiteLLM's list prices. */
function flatCost(prices: Record<Kind, number>, r: UsageRecord): number {
  const t = tokensOf(r);
  let usd = 0;
  for (const kind of KINDS) usd += (prices[kind] * t[kind]) / 1e6;
  return usd;
}

/** Our base prices (below every tier) of a model at a time, per kind. */
function ourBase(pricing: Pricing, model: string, ms: number): Record<Kind, number> | undefined {
  const r = pricing.ratesOf(model, ms, 0);
  return r
    ? {
        input: r.input,
        output: r.output,
        cacheRead: r.cacheRead,
        cacheWrite: r.cacheWrite,
        cacheWrite1h: r.cacheWrite1h,
      }
    : undefined;
}

export type CostRule = 'price' | 'tier' | 'unpriced';

export const COST_RULES: Record<CostRule, string> = {
  price:
    "the base prices differ between genai-prices and ccusage's LiteLLM data (per model and kind below)",
  tier: "long-context tiers: genai-prices bills a request whose input (cache included) exceeds the threshold (200k for Claude, 272k for GPT-5.4+) wholly at the long-context prices, and some prices (Claude Opus/Sonnet 4.6) had a tier only until 2026-03-13; ccusage bills the tokens of each kind above 200k of that kind at LiteLLM's above-200k price, whatever the date",
  unpriced: 'one side has no price for the model (genai-prices: cost unknown; ccusage: $0)',
};

export interface CellCost {
  /** Our modelled cost of the cell (should equal what we printed). */
  ours: number;
  /** ccusage's modelled cost of the cell (should equal what it printed). */
  ccusage: number;
  /** Ours − ccusage by rule. */
  parts: Partial<Record<CostRule, number>>;
  /** Responses that crossed a tier on either side. */
  tiered: number;
  responses: number;
}

/**
 * Our and ccusage's modelled cost of each harness|day|model cell of the snapshot (UTC days),
 * with the difference split by rule.
 */
export function modelCellCosts(
  snapshot: LocalSnapshot,
  pricing: Pricing,
  prices: ReadonlyMap<string, CcusagePrices>,
): Map<string, CellCost> {
  const cells = new Map<string, CellCost>();
  for (const s of snapshot.sessions) {
    const agent = s.harness === 'claude-code' ? 'claude' : 'codex';
    for (const r of s.records) {
      const model = r.model ?? 'unknown';
      if (r.input + r.output + r.cacheRead + r.cacheWrite === 0) continue;
      const key = `${agent}|${utcDay(r.ms)}|${model}`;
      let c = cells.get(key);
      if (!c) cells.set(key, (c = { ours: 0, ccusage: 0, parts: {}, tiered: 0, responses: 0 }));
      c.responses++;
      const theirs = prices.get(modelKey(agent, model));
      const mine = pricing.costOf(r);
      const theirCost = theirs ? ccusageCost(theirs, r) : 0;
      c.ccusage += theirCost;
      const add = (rule: CostRule, usd: number) => {
        if (usd !== 0) c.parts[rule] = (c.parts[rule] ?? 0) + usd;
      };
      const base = ourBase(pricing, model, r.ms);
      if (mine === undefined || !base || !theirs) {
        // Ours counts only the priced part (knownCost), ccusage bills an unknown model $0.
        c.ours += mine ?? 0;
        add('unpriced', (mine ?? 0) - theirCost);
        continue;
      }
      c.ours += mine;
      const theirBase = Object.fromEntries(KINDS.map((k) => [k, theirs[k].base])) as Record<
        Kind,
        number
      >;
      const theirFlat = flatCost(theirBase, r);
      const ourFlat = flatCost(base, r);
      add('price', ourFlat - theirFlat);
      const tierDelta = mine - ourFlat - (theirCost - theirFlat);
      add('tier', tierDelta);
      if (Math.abs(mine - ourFlat) > 1e-12 || Math.abs(theirCost - theirFlat) > 1e-12) c.tiered++;
    }
  }
  return cells;
}

const list = (rates: Partial<Record<Kind, number>>, kinds: readonly Kind[]) =>
  kinds.map((k) => `${KIND_LABEL[k]} $${round6(rates[k] ?? 0)}`).join(', ');

/**
 * How each side bills long requests of a model on a day: genai-prices' tiers (whole request
 * above a threshold) and ccusage's above-200k prices (per kind), one line per model and day.
 */
export function tierDescriptions(
  pricing: Pricing,
  prices: ReadonlyMap<string, CcusagePrices>,
  cells: readonly { agent: string; model: string; day: string }[],
): string[] {
  const lines: string[] = [];
  for (const { agent, model, day } of cells) {
    const ms = Date.parse(`${day}T12:00:00Z`);
    const kinds = agent === 'codex' ? (['input', 'output', 'cacheRead'] as const) : KINDS;
    const thresholds = pricing.tierThresholds(model, ms);
    const ours =
      thresholds.length === 0
        ? 'no long-context tier'
        : thresholds
            .map(
              (t) =>
                `a request over ${t} input tokens (cache included) wholly at ${list(pricing.ratesOf(model, ms, t + 1)!, kinds)}`,
            )
            .join('; ');
    const p = prices.get(modelKey(agent, model));
    const tiered = p && kinds.some((k) => Math.abs(p[k].above - p[k].base) > 1e-9);
    const theirs = !p
      ? 'no price'
      : tiered
        ? `tokens of a kind above 200k at ${list(Object.fromEntries(kinds.map((k) => [k, p[k].above])), kinds)}`
        : 'no long-context price';
    lines.push(`tier of ${model} on ${day}: genai-prices ${ours}; ccusage (LiteLLM) ${theirs}`);
  }
  return lines;
}

/** One line per model whose base prices differ: `claude-x: input $3 vs $3.3; …`. */
export function priceDifferences(
  pricing: Pricing,
  prices: ReadonlyMap<string, CcusagePrices>,
  models: readonly { agent: string; model: string; ms: number }[],
): string[] {
  const lines: string[] = [];
  for (const { agent, model, ms } of models) {
    const theirs = prices.get(modelKey(agent, model));
    const ours = ourBase(pricing, model, ms);
    if (!theirs || !ours) continue;
    const kinds = agent === 'codex' ? (['input', 'output', 'cacheRead'] as const) : KINDS;
    const diffs = kinds
      .filter((k) => Math.abs(ours[k] - theirs[k].base) > 1e-9)
      .map((k) => `${KIND_LABEL[k]} $${ours[k]} vs $${theirs[k].base}`);
    if (diffs.length > 0) {
      lines.push(
        `price differs between genai-prices and ccusage's LiteLLM data for ${model} (per million, genai-prices vs ccusage): ${diffs.join('; ')}`,
      );
    }
  }
  return lines;
}
