import type { ServerResponse } from 'node:http';

/** Why a request failed with a 5xx, as the surface that answered it knows. */
export interface FailureCause {
  cause: string;
  /** The error, for failures that are bugs: its stack goes into the log line. Absent for outages. */
  err?: unknown;
}

const causes = new WeakMap<ServerResponse, FailureCause>();

/**
 * Each surface answers its 5xx in its own error mapping and notes the cause here; the request's one
 * log line (AppLogger) carries it with the request id. So every failed request is logged once, whichever
 * surface answered it.
 */
export function noteFailure(res: ServerResponse, failure: FailureCause): void {
  causes.set(res, failure);
}

export function failureOf(res: ServerResponse): FailureCause | undefined {
  return causes.get(res);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
