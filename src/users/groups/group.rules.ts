import { DomainError } from '../../common/errors/domain-error.js';
import type { ErrorDetail } from '../../common/errors/domain-error.js';
import { tooLong } from '../../common/text/column-bounds.js';
import { STRING_BOUNDS } from '../rules/string-bounds.js';

export interface GroupInput {
  displayName: string;
  externalId?: string | null;
}

const CONTROL = /[\u0000-\u001f\u007f]/;
const { groupDisplayName: MAX_NAME, groupExternalId: MAX_EXTERNAL_ID } = STRING_BOUNDS;

/**
 * A group's names, checked alike for every surface (management API, SCIM): a display name of 1–255
 * characters that is not blank and has no control characters (it becomes a token claim), an
 * external id of at most 255 (the lengths of the org_groups columns). Returns the input with the display name trimmed.
 */
export function validGroupInput(input: GroupInput): { displayName: string; externalId: string | null } {
  const problems: ErrorDetail[] = [];
  const displayName = typeof input.displayName === 'string' ? input.displayName.trim() : '';
  if (displayName.length === 0) problems.push({ field: 'displayName', message: 'displayName must not be empty' });
  else if (tooLong(displayName, MAX_NAME)) problems.push({ field: 'displayName', message: `displayName must be at most ${MAX_NAME} characters` });
  else if (CONTROL.test(displayName)) problems.push({ field: 'displayName', message: 'displayName must not contain control characters' });
  const externalId = input.externalId ?? null;
  if (externalId !== null && (typeof externalId !== 'string' || tooLong(externalId, MAX_EXTERNAL_ID) || CONTROL.test(externalId))) {
    problems.push({ field: 'externalId', message: `externalId must be a string of at most ${MAX_EXTERNAL_ID} characters without control characters` });
  }
  if (problems.length > 0) throw DomainError.invalid(problems.map((p) => p.message).join('; '), problems);
  return { displayName, externalId };
}
