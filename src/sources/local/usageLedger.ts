/**
 * What de-duplicating a part of the rows found (aggregate.ts assignUsage), kept so that a
 * refresh after an append adds the new responses to it instead of de-duplicating the
 * whole group again: each response key's entry (its record, owner and the records it
 * was merged from), the order a full pass creates entries in, and how far each file's
 * records were read. An append that can only add entries a full pass would add at the
 * same place (fresh keys; the caller checks that the files' order is unchanged) is applied
 * here; anything else (a key seen before, a key hash another group has, a file read
 * again from the start) is refused before anything changes, and the caller aggregates
 * the group from scratch.
 */
import { copyUsage, mergeUsage } from './usageRecord.ts';
import type { FileSummary, UsageRecord } from './types.ts';
import { lowerBound } from '../../util/sortedSearch.ts';

/** Sort keys: pass (usage, then copies), the carrier's rank in file order, the key's place in its map. */
const COPIES_PASS = 2 ** 51;
const RANK = 2 ** 32;

export function sortKey(copies: boolean, rank: number, place: number): number {
  return (copies ? COPIES_PASS : 0) + rank * RANK + place;
}

/** A file as the ledger last read it (an append keeps the same maps, only longer). */
interface Carrier {
  usage: ReadonlyMap<string, UsageRecord>;
  copies: ReadonlyMap<string, UsageRecord>;
  usageSize: number;
  copiesSize: number;
  /** Place in the files' order (the caller checks that first timestamps did not move). */
  rank: number;
}

/** The part of a row the ledger updates: its records, in entry order. */
export interface LedgerRow {
  path: string;
  records: UsageRecord[];
}

export class UsageLedger {
  /** Rows of the part it was made from (Claude Code and Codex). */
  readonly paths = new Set<string>();
  /** Response key → entry. */
  readonly index = new Map<string, number>();
  /** Per entry: the record counted (a merged copy when several carried it), its owner's path. */
  readonly recs: UsageRecord[] = [];
  readonly owners: string[] = [];
  /** Per merged entry: the records merged, in the order they were merged. */
  readonly sources: (UsageRecord[] | undefined)[] = [];
  /** Per carrier path: entries it carries that are merged or owned by another row. */
  readonly foreign = new Map<string, number[]>();
  /** Per owner path: the sort keys of its records, in order. */
  readonly order = new Map<string, number[]>();
  readonly carriers = new Map<string, Carrier>();
  /** `${parent path}\n${agentId}` → the subagent row owning that agent's copies. */
  readonly subagentOf = new Map<string, string>();

  addCarrier(path: string, file: FileSummary, rank: number): void {
    this.carriers.set(path, {
      usage: file.usage,
      copies: file.copies,
      usageSize: file.usage.size,
      copiesSize: file.copies.size,
      rank,
    });
  }

  /** The entries `path` carries for another row (a new list when none yet). */
  foreignOf(path: string): number[] {
    return listIn(this.foreign, path);
  }

  /** The sort keys of the records `path` owns (a new list when none yet). */
  orderOf(path: string): number[] {
    return listIn(this.order, path);
  }

  /**
   * Adds what `changed` files appended since the ledger read them, when a full pass would
   * add exactly that; returns the paths of rows whose records changed (their sums are to
   * be worked out again), or undefined with nothing changed. `seenElsewhere`: whether a
   * row outside the part has a key with this hash.
   */
  append(
    changed: readonly FileSummary[],
    rows: ReadonlyMap<string, LedgerRow>,
    seenElsewhere: (key: string) => boolean,
  ): { dirty: Set<string>; added: Map<string, string[]> } | undefined {
    const fresh: {
      carrier: string;
      key: string;
      record: UsageRecord;
      sort: number;
      owner: string;
    }[] = [];
    const newKeys = new Set<string>();
    for (const file of changed) {
      const c = this.carriers.get(file.path);
      if (
        !c ||
        file.usage !== c.usage ||
        file.copies !== c.copies ||
        file.usage.size < c.usageSize ||
        file.copies.size < c.copiesSize
      ) {
        return undefined;
      }
      for (const copies of [false, true]) {
        const map = copies ? file.copies : file.usage;
        let place = 0;
        const from = copies ? c.copiesSize : c.usageSize;
        for (const [key, record] of map) {
          if (place++ < from) continue;
          if (this.index.has(key) || newKeys.has(key) || seenElsewhere(key)) return undefined;
          newKeys.add(key);
          const owner = copies
            ? (record.agentId && this.subagentOf.get(`${file.path}\n${record.agentId}`)) ||
              file.path
            : file.path;
          if (!rows.has(owner)) return undefined;
          fresh.push({
            carrier: file.path,
            key,
            record,
            sort: sortKey(copies, c.rank, place - 1),
            owner,
          });
        }
      }
    }
    // Nothing refused: applied from here on.
    const dirty = new Set<string>();
    const added = new Map<string, string[]>();
    for (const f of fresh) {
      const e = this.recs.length;
      this.index.set(f.key, e);
      this.recs.push(f.record);
      this.owners.push(f.owner);
      this.sources.push(undefined);
      this.insert(rows.get(f.owner)!, f.record, f.sort);
      if (f.owner !== f.carrier) this.foreignOf(f.carrier).push(e);
      dirty.add(f.owner);
      listIn(added, f.carrier).push(f.key);
    }
    for (const file of changed) {
      const c = this.carriers.get(file.path)!;
      c.usageSize = file.usage.size;
      c.copiesSize = file.copies.size;
      dirty.add(file.path);
      // Records it shares or gives to another row may have grown in place.
      for (const e of this.foreign.get(file.path) ?? []) {
        const sources = this.sources[e];
        if (sources) remerge(this.recs[e]!, sources);
        dirty.add(this.owners[e]!);
      }
    }
    return { dirty, added };
  }

  /** Puts `record` among the row's records where a full pass would have it. */
  private insert(row: LedgerRow, record: UsageRecord, sort: number): void {
    const keys = this.orderOf(row.path);
    const lo = lowerBound(keys, sort);
    keys.splice(lo, 0, sort);
    row.records.splice(lo, 0, record);
  }
}

/** The list `map` holds for `key`, put there empty when there is none. */
function listIn<K, V>(map: Map<K, V[]>, key: K): V[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/** The files' order key: first timestamp, files without one last. */
export function orderMs(firstMs: number): number {
  return Number.isFinite(firstMs) ? firstMs : Infinity;
}

/** A merged record worked out again from what it was merged from (they may have grown). */
function remerge(into: UsageRecord, sources: readonly UsageRecord[]): void {
  Object.assign(into, copyUsage(sources[0]!));
  for (let i = 1; i < sources.length; i++) mergeUsage(into, sources[i]!);
}
