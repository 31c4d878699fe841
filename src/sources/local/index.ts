/** Local Claude Code and Codex transcripts: the public surface for wiring and reports. */
export {
  LocalSource,
  describeSnapshot,
  matchesFilters,
  type LocalSourceOptions,
} from './localSource.ts';
export { LocalIndex, type LocalIndexOptions, type LocalSnapshot } from './localIndex.ts';
export {
  buildUsageReport,
  localDay,
  scanUsage,
  type UsageReport,
  type UsageReportOptions,
  type UsageTotals,
} from './usageReport.ts';
export {
  discoverLocalFiles,
  folderOptions,
  resolveRoots,
  type DiscoveredFile,
  type DiscoveryResult,
  type LocalRoot,
  type LocalRootsOptions,
  type RootReport,
} from './discovery.ts';
export {
  Pricing,
  SYNTHETIC_MODEL,
  normalizeModel,
  type ModelPrice,
  type PriceSource,
  type PriceTable,
  type PricingOptions,
} from './pricing.ts';
export {
  describePriceProblems,
  parsePriceOverrides,
  type PriceOverrideProblem,
  type PriceOverrides,
} from './priceOverrides.ts';
export {
  ASK_USER_TOOLS,
  DEFAULT_STATUS_THRESHOLDS,
  deriveLocalStatus,
  type LocalStatus,
  type LocalStatusInput,
  type StatusThresholds,
} from './localStatus.ts';
export { ScanCache, type ScanStats, type SubagentMeta } from './scanCache.ts';
export type { LocalSession } from './aggregate.ts';
export type * from './types.ts';
