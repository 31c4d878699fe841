import { randomUUID } from 'node:crypto';
import { jsonResponse, type BackendResponse } from '../http.ts';

/** The agents API error body: human-readable messages plus a request id to quote. */
export function restError(status: number, message: string): BackendResponse {
  return jsonResponse(status, { messages: [message], request_id: randomUUID() });
}
