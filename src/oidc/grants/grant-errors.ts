import { errors } from 'oidc-provider';

/**
 * invalid_grant whose error_description says which check failed: oidc-provider's own InvalidGrant
 * answers "grant request is invalid" whatever the reason, which leaves a client nothing to fix. The
 * descriptions name the check, never another organization's users or keys.
 */
export function invalidGrant(description: string): Error {
  return Object.assign(new errors.InvalidGrant(description), { error_description: description });
}

/**
 * One answer for an unknown subject, an inactive one and one of another organization, so a token
 * exchange cannot tell which users exist elsewhere.
 */
export const SUBJECT_NOT_SERVED = 'the subject is not an active user this client may serve';
