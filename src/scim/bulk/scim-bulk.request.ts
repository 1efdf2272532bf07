import { ScimError } from '../errors/scim-error.js';
import { BULK_REQUEST_SCHEMA, MAX_BULK_OPERATIONS } from '../scim.constants.js';

type BulkMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One operation of a BulkRequest (RFC 7644 §3.7), checked for shape only. */
export interface BulkOperation {
  method: BulkMethod;
  path: string;
  bulkId: string | undefined;
  data: unknown;
}

export interface BulkRequest {
  failOnErrors: number | undefined;
  operations: BulkOperation[];
}

const METHODS = new Set<string>(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Reads a BulkRequest. The whole request is refused only when its envelope is unusable; a malformed
 * operation is reported in its own slot of the response (RFC 7644 §3.7.3).
 */
export function readBulkRequest(body: unknown): BulkRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ScimError.badRequest('invalidSyntax', 'the body must be a BulkRequest object');
  const b = Object.fromEntries(Object.entries(body).map(([k, v]) => [k.toLowerCase(), v]));
  if (!Array.isArray(b.schemas) || !b.schemas.some((s) => typeof s === 'string' && s.toLowerCase() === BULK_REQUEST_SCHEMA.toLowerCase())) {
    throw ScimError.badRequest('invalidSyntax', `"schemas" must be ["${BULK_REQUEST_SCHEMA}"]`);
  }
  if (!Array.isArray(b.operations) || b.operations.length === 0) throw ScimError.badRequest('invalidSyntax', '"Operations" must be a non-empty array');
  // RFC 7644 §3.7.4: over maxOperations, 413 naming the limit.
  if (b.operations.length > MAX_BULK_OPERATIONS) {
    throw new ScimError(413, `the request has ${b.operations.length} operations; maxOperations is ${MAX_BULK_OPERATIONS}`, undefined, 'tooManyOperations');
  }
  const failOnErrors = b.failonerrors;
  if (failOnErrors !== undefined && failOnErrors !== null && (!Number.isInteger(failOnErrors) || (failOnErrors as number) < 1)) {
    throw ScimError.badRequest('invalidValue', '"failOnErrors" must be a positive integer');
  }
  const operations = b.operations.map(readOperation);
  return { failOnErrors: (failOnErrors as number | null | undefined) ?? undefined, operations };
}

function readOperation(raw: unknown): BulkOperation {
  const o = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? Object.fromEntries(Object.entries(raw).map(([k, v]) => [k.toLowerCase(), v])) : {};
  const method = typeof o.method === 'string' ? o.method.toUpperCase() : '';
  return {
    method: (METHODS.has(method) ? method : `invalid:${String(o.method)}`) as BulkMethod,
    path: typeof o.path === 'string' ? o.path : '',
    bulkId: typeof o.bulkid === 'string' ? o.bulkid : undefined,
    data: o.data,
  };
}
