import { ScimError, scimErrorBody } from '../errors/scim-error.js';
import { toScimError } from '../errors/scim-exception.filter.js';
import type { BulkOperation, BulkRequest } from './scim-bulk.request.js';

/** What one operation produced (RFC 7644 §3.7.3). */
export interface BulkOperationResult {
  method: string;
  bulkId?: string;
  location?: string;
  version?: string;
  status: string;
  response?: Record<string, unknown>;
}

/** Executes one operation whose bulkId references are resolved; returns status, location and version. */
export type BulkExecutor = (operation: BulkOperation) => Promise<{ status: number; id?: string; location?: string; version?: string }>;

/** The absolute URL a (possibly failed) operation's path names, if it names one. */
type BulkLocator = (path: string) => string | undefined;

const BULK_ID = /^bulkId:(.+)$/;

/**
 * Runs operations in order (RFC 7644 §3.7): "bulkId:<id>" in a path or anywhere inside data is replaced
 * by the id the operation with that bulkId created; a reference to a bulkId not (yet, or
 * successfully) created fails that operation. After `failOnErrors` errors the rest is not run (§3.7.3).
 * Unexpected errors (bugs) are rethrown and become the request's 500.
 */
export async function runBulk(request: BulkRequest, execute: BulkExecutor, locate: BulkLocator = () => undefined): Promise<BulkOperationResult[]> {
  const created = new Map<string, string>();
  const results: BulkOperationResult[] = [];
  let errors = 0;
  for (const operation of request.operations) {
    if (request.failOnErrors !== undefined && errors >= request.failOnErrors) break;
    const base = { method: operation.method, ...(operation.bulkId !== undefined ? { bulkId: operation.bulkId } : {}) };
    let path = operation.path;
    try {
      if (operation.method.startsWith('invalid:')) throw ScimError.badRequest('invalidSyntax', '"method" must be POST, PUT, PATCH or DELETE');
      // RFC 7644 §3.7: "bulkId … REQUIRED when "method" is "POST"".
      if (operation.method === 'POST' && operation.bulkId === undefined) throw ScimError.badRequest('invalidSyntax', 'a POST operation needs a "bulkId"');
      path = resolvePath(operation.path, created);
      const resolved = { ...operation, path, data: resolveData(operation.data, created) };
      const outcome = await execute(resolved);
      if (operation.bulkId !== undefined && outcome.id !== undefined) created.set(operation.bulkId, outcome.id);
      results.push({
        ...base,
        ...(outcome.location ? { location: outcome.location } : {}),
        ...(outcome.version ? { version: outcome.version } : {}),
        status: String(outcome.status),
      });
    } catch (error) {
      const scim = toScimError(error);
      if (!scim) throw error;
      errors++;
      // RFC 7644 §3.7.3: "location … REQUIRED in a response, except in the event of a POST failure."
      const location = operation.method === 'POST' ? undefined : locate(path);
      results.push({
        ...base,
        ...(location ? { location } : {}),
        status: String(scim.status),
        response: scimErrorBody(scim.status, scim.message, scim.scimType, scim.id),
      });
    }
  }
  return results;
}

function lookup(reference: string, created: Map<string, string>): string {
  const id = created.get(reference);
  // RFC 7644 §3.7.2: an unresolvable bulkId reference is the client's error.
  if (id === undefined) throw new ScimError(409, `bulkId "${reference}" does not name a resource created earlier in this request`, 'invalidValue');
  return id;
}

function resolvePath(path: string, created: Map<string, string>): string {
  return path
    .split('/')
    .map((segment) => {
      const match = BULK_ID.exec(segment);
      return match ? lookup(match[1], created) : segment;
    })
    .join('/');
}

function resolveData(data: unknown, created: Map<string, string>): unknown {
  if (typeof data === 'string') {
    const match = BULK_ID.exec(data);
    return match ? lookup(match[1], created) : data;
  }
  if (Array.isArray(data)) return data.map((v) => resolveData(v, created));
  if (data && typeof data === 'object') return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, resolveData(v, created)]));
  return data;
}
