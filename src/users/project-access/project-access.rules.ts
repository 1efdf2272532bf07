import { DomainError } from '../../common/errors/domain-error.js';
import { tooLong } from '../../common/text/column-bounds.js';
import { APPLICATION_ACCESS_MODES } from '../entities/application.entity.js';
import type { ApplicationAccessMode } from '../entities/application.entity.js';

/** A role key (docs/product-rules.md, "Application access"): it becomes a token claim value, compared exactly. */
export const ROLE_KEY = /^[A-Za-z0-9_.:-]{1,100}$/;
const CONTROL = /[\u0000-\u001f\u007f]/;
const MAX_DISPLAY_NAME = 200;
const MAX_DESCRIPTION = 1000;
const MAX_HOME_URL = 2000;

export interface RoleText {
  displayName?: string | null;
  description?: string | null;
}

export function validRoleKey(key: unknown): string {
  if (typeof key !== 'string' || !ROLE_KEY.test(key)) throw DomainError.invalidField('key', 'key must match ^[A-Za-z0-9_.:-]{1,100}$');
  return key;
}

/** A role's display name (≤200) and description (≤1000), without control characters but the description's line breaks. */
export function validRoleText(input: RoleText): { displayName?: string | null; description?: string | null } {
  const out: { displayName?: string | null; description?: string | null } = {};
  if (input.displayName !== undefined) {
    const value = input.displayName;
    if (value !== null && (typeof value !== 'string' || tooLong(value, MAX_DISPLAY_NAME) || CONTROL.test(value)))
      throw DomainError.invalidField('displayName', `displayName must be at most ${MAX_DISPLAY_NAME} characters without control characters`);
    out.displayName = value;
  }
  if (input.description !== undefined) {
    const value = input.description;
    if (value !== null && (typeof value !== 'string' || tooLong(value, MAX_DESCRIPTION) || /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f]/.test(value)))
      throw DomainError.invalidField('description', `description must be at most ${MAX_DESCRIPTION} characters`);
    out.description = value;
  }
  return out;
}

/** Role keys of a grant: distinct, each a valid key, sorted by code point (the order tokens carry them in). */
export function validRoleList(roles: unknown): string[] {
  if (!Array.isArray(roles) || roles.some((key) => typeof key !== 'string' || !ROLE_KEY.test(key)))
    throw DomainError.invalidField('roles', 'roles must be a list of role keys');
  return sortedByCodePoint(new Set(roles as string[]));
}

export function sortedByCodePoint(keys: Iterable<string>): string[] {
  return [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export function validAccessMode(access: unknown): ApplicationAccessMode {
  if (typeof access !== 'string' || !(APPLICATION_ACCESS_MODES as readonly string[]).includes(access))
    throw DomainError.invalidField('access', 'access must be "everyone" or "granted"');
  return access as ApplicationAccessMode;
}

/** An application's `homeUrl`: an absolute http(s) URL without credentials (it is shown as a link to every admitted user). */
export function validHomeUrl(value: unknown): string | null {
  if (value === null) return null;
  const refuse = () => DomainError.invalidField('homeUrl', 'homeUrl must be an absolute http or https URL of at most 2000 characters');
  if (typeof value !== 'string' || tooLong(value, MAX_HOME_URL) || CONTROL.test(value)) throw refuse();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse();
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '') throw refuse();
  return value;
}
