/**
 * The transcript engine behind the session webview (host side, plain Node): one entry
 * model for every source, a streaming index over JSONL files, windows of entries on
 * request. See model.ts for the data that crosses to the webview.
 */
export * from './model.ts';
export {
  MAX_WINDOW,
  TranscriptDocument,
  subagentFile,
  type OpenTranscriptOptions,
  type RefreshResult,
  type TranscriptProgress,
} from './transcriptDocument.ts';
export { MemoryTranscript } from './memoryTranscript.ts';
export { normalizeItentialSession } from './normalize/itential.ts';
export { normalizeRestEvents } from './normalize/restEvents.ts';
export { detectFormat } from './formatDetect.ts';
export { CLAUDE_HIDDEN_TYPES } from './normalize/claudeCode.ts';
export { CODEX_HIDDEN_EVENTS } from './normalize/codex.ts';
