import { ScimError } from '../errors/scim-error.js';
import type { BulkOperation } from './scim-bulk.request.js';

/**
 * Operations that set a password per Bulk request. Each one costs a bcrypt hash (tens to hundreds of
 * milliseconds of CPU at production cost), so 100 of them would hold a process for seconds: a
 * request is the unit a client cannot split below, so the work it may cause is bounded here. Ten keep
 * a Bulk request's hashing under about a second; provisioning clients (Okta, Entra ID) send passwords
 * one user at a time, and a password migration has the import endpoint, which takes hashes.
 */
const MAX_BULK_PASSWORD_OPERATIONS = 10;

/**
 * Refuses the whole request before any operation runs when more than MAX_BULK_PASSWORD_OPERATIONS
 * of its operations set a password. RFC 7644 §3.7.4 answers a request over the provider's limits with
 * 413 and nothing executed.
 */
export function assertPasswordBudget(operations: BulkOperation[]): void {
  const count = operations.filter((operation) => setsPassword(operation.data)).length;
  if (count > MAX_BULK_PASSWORD_OPERATIONS) {
    throw new ScimError(
      413,
      `${count} operations of this request set a password; at most ${MAX_BULK_PASSWORD_OPERATIONS} may per Bulk request (each costs a password hash). Split the request; nothing was changed`,
      undefined,
      'tooManyPasswordOperations',
    );
  }
}

/**
 * Whether an operation's data may set a password: a `password` attribute anywhere (User body, PATCH
 * value; also schema-qualified, RFC 7644 §3.10) or a PATCH `path` naming it. Over-counting an odd body
 * only spends the budget sooner; under-counting would let hashing through unbounded.
 */
export function setsPassword(data: unknown): boolean {
  if (Array.isArray(data)) return data.some(setsPassword);
  if (typeof data !== 'object' || data === null) return false;
  for (const [key, value] of Object.entries(data)) {
    if (namesPassword(key)) return true;
    if (key.toLowerCase() === 'path' && typeof value === 'string' && namesPassword(value)) return true;
    if (setsPassword(value)) return true;
  }
  return false;
}

function namesPassword(attribute: string): boolean {
  const name = attribute.trim().toLowerCase();
  return name === 'password' || name.endsWith(':password');
}
