import * as z from 'zod';

/**
 * Tolerant schemas for the Closedloop-style reporting tools: unknown fields pass,
 * nullable everywhere the servers have been seen to send null. Rows are read with
 * readRow (../rowFields.ts): a wrongly typed field costs that field, not the row.
 */
const optionalString = z.string().nullish();
const optionalNumber = z.number().nullish();

export const reportingSessionRow = z.looseObject({
  id: z.string().min(1),
  slug: optionalString,
  externalSessionId: optionalString,
  name: optionalString,
  status: optionalString,
  harness: optionalString,
  model: optionalString,
  repositoryFullName: optionalString,
  baseBranch: optionalString,
  startedAt: optionalString,
  lastActivityAt: optionalString,
  endedAt: optionalString,
  estimatedCost: optionalNumber,
  inputTokens: optionalNumber,
  outputTokens: optionalNumber,
  cacheReadTokens: optionalNumber,
  cacheWriteTokens: optionalNumber,
  agentCount: optionalNumber,
  toolUseCount: optionalNumber,
  errorCount: optionalNumber,
  user: z
    .looseObject({
      id: optionalString,
      email: optionalString,
      firstName: optionalString,
      lastName: optionalString,
    })
    .nullish(),
});
export type ReportingSessionRow = z.infer<typeof reportingSessionRow>;

/** The envelope is validated strictly enough to page; rows one by one. */
export const listAgentSessionsResult = z.looseObject({
  items: z.array(z.unknown()),
  // A malformed count must not hide the rows: it is dropped (paging then goes by rows).
  returned: optionalNumber.catch(undefined),
  total: optionalNumber.catch(undefined),
  viewerScope: optionalString.catch(undefined),
});
