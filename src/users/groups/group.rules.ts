import { DomainError } from '../../common/errors/domain-error.js';
import type { ErrorDetail } from '../../common/errors/domain-error.js';

export interface GroupInput {
  displayName: string;
  externalId?: string | null;
}

const CONTROL = /[\u0000-\u001f\u007f]/;
const MAX_LENGTH = 255;

/**
 * A group's names, checked alike for every surface (management API, SCIM): a display name of 1–255
 * characters that is not blank and has no control characters (it becomes a token claim), an
 * external id of at most 255. Returns the input with the display name trimmed.
 */
export function validGroupInput(input: GroupInput): { displayName: string; externalId: string | null } {
  const problems: ErrorDetail[] = [];
  const displayName = typeof input.displayName === 'string' ? input.displayName.trim() : '';
  if (displayName.length === 0) problems.push({ field: 'displayName', message: 'displayName must not be empty' });
  else if (displayName.length > MAX_LENGTH) problems.push({ field: 'displayName', message: `displayName must be at most ${MAX_LENGTH} characters` });
  else if (CONTROL.test(displayName)) problems.push({ field: 'displayName', message: 'displayName must not contain control characters' });
  const externalId = input.externalId ?? null;
  if (externalId !== null && (typeof externalId !== 'string' || externalId.length > MAX_LENGTH || CONTROL.test(externalId))) {
    problems.push({ field: 'externalId', message: `externalId must be a string of at most ${MAX_LENGTH} characters without control characters` });
  }
  if (problems.length > 0) throw DomainError.invalid(problems.map((p) => p.message).join('; '), problems);
  return { displayName, externalId };
}
