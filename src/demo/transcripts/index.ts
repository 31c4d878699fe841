/** Deterministic generators of realistic agent transcripts (demo backend, tests, benchmarks). */
export {
  CLAUDE_CODE_LINE_TYPES,
  CLAUDE_CODE_QUIRK_UNKNOWN_TYPE,
  generateClaudeCodeTranscript,
  type ClaudeCodeTranscriptOptions,
  type GeneratedSubagentTranscript,
  type GeneratedTranscript,
} from './claudeCode.ts';
export { generateCodexTranscript, type CodexTranscriptOptions } from './codex.ts';
export {
  largeClaudeCodeTranscript,
  writeLargeClaudeCodeTranscript,
  type LargeClaudeCodeTranscriptOptions,
} from './large.ts';
