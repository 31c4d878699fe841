// Entry of the lazily loaded sources bundle (dist/sources.cjs): the adapters and
// their zod schemas, evaluated on the first connection rather than at activation.
export { McpSource } from './mcp/mcpSource.ts';
export { AgentsApiSource } from './rest/agentsApiSource.ts';
export { LocalSource } from './local/localSource.ts';
export { describePriceProblems, parsePriceOverrides } from './local/priceOverrides.ts';
export { folderOptions } from './local/discovery.ts';
export { openSessionTranscript } from './transcripts/openTranscript.ts';
export { loadSessionChanges } from './transcripts/sessionChanges.ts';
export { isTranscriptUnavailableError } from './transcripts/availability.ts';
export {
  listSessionComments,
  commentsView,
  placeAnchors,
  searchTranscript,
} from './comments/sessionComments.ts';
export { buildSessionUsage } from './usage/sessionUsage.ts';
export { fetchDashboardData } from './usage/connectionUsage.ts';
export { exportSessionTranscript } from './transcripts/exportTranscript.ts';
export { searchSessions } from './search/sessionSearch.ts';
export { collectSearchTargets } from './search/searchTargets.ts';
export { findRipgrep } from './search/ripgrep.ts';
