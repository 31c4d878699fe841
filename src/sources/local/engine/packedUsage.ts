/**
 * A file's usage records packed into a few strings and typed arrays, for a scan worker to
 * post to the main thread: structured-cloning Maps of tens of thousands of small objects
 * costs the receiving thread several times what the packed form costs.
 */
import type { UsageRecord } from '../types.ts';
import { usageRecord } from '../usageRecord.ts';

/** The numbers of one record, in this order. */
const NUMBERS = 7;

export interface PackedUsage {
  /** Every key, one after the other. */
  keys: string;
  /** Where each key ends in `keys`. */
  keyEnds: Uint32Array;
  /** Distinct models; `model[i]` indexes them (0: no model). */
  models: string[];
  model: Uint32Array;
  /** ms, input, output, cacheRead, cacheWrite, cacheWrite1h, reasoning per record. */
  numbers: Float64Array;
  /** agentId per record, only when some record has one (agent_progress copies). */
  agentIds?: (string | null)[];
}

export function packUsage(records: ReadonlyMap<string, UsageRecord>): PackedUsage {
  const n = records.size;
  const keys: string[] = [];
  const keyEnds = new Uint32Array(n);
  const models: string[] = [''];
  const modelIndex = new Map<string, number>();
  const model = new Uint32Array(n);
  const numbers = new Float64Array(n * NUMBERS);
  let agentIds: (string | null)[] | undefined;
  let length = 0;
  let i = 0;
  for (const [key, r] of records) {
    keys.push(key);
    length += key.length;
    keyEnds[i] = length;
    if (r.model !== undefined) {
      let m = modelIndex.get(r.model);
      if (m === undefined) {
        m = models.push(r.model) - 1;
        modelIndex.set(r.model, m);
      }
      model[i] = m;
    }
    const o = i * NUMBERS;
    numbers[o] = r.ms;
    numbers[o + 1] = r.input;
    numbers[o + 2] = r.output;
    numbers[o + 3] = r.cacheRead;
    numbers[o + 4] = r.cacheWrite;
    numbers[o + 5] = r.cacheWrite1h;
    numbers[o + 6] = r.reasoning;
    if (r.agentId !== undefined)
      (agentIds ??= new Array<string | null>(n).fill(null))[i] = r.agentId;
    i++;
  }
  const packed: PackedUsage = { keys: keys.join(''), keyEnds, models, model, numbers };
  if (agentIds) packed.agentIds = agentIds;
  return packed;
}

export function unpackUsage(packed: PackedUsage): Map<string, UsageRecord> {
  const { keys, keyEnds, models, model, numbers, agentIds } = packed;
  const out = new Map<string, UsageRecord>();
  let start = 0;
  for (let i = 0; i < keyEnds.length; i++) {
    const end = keyEnds[i]!;
    const o = i * NUMBERS;
    const m = model[i]!;
    const agentId = agentIds?.[i];
    const r = usageRecord(
      m === 0 ? undefined : models[m],
      numbers[o]!,
      numbers[o + 1]!,
      numbers[o + 2]!,
      numbers[o + 3]!,
      numbers[o + 4]!,
      numbers[o + 5]!,
      numbers[o + 6]!,
      typeof agentId === 'string' ? agentId : undefined,
    );
    out.set(keys.slice(start, end), r);
    start = end;
  }
  return out;
}
