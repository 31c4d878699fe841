// Entry of the lazily loaded sources bundle (dist/sources.cjs): the adapters and
// their zod schemas, evaluated on the first connection rather than at activation.
export { McpSource } from './mcp/mcpSource.ts';
export { AgentsApiSource } from './rest/agentsApiSource.ts';
