/**
 * What a user's state allows (docs/product-rules.md, "Domain"): only an active user signs in, holds
 * sessions and tokens, is a SCIM `active: true`, and counts as an IAM owner. Inactive (deactivated by an
 * administrator) and locked (too many failed password checks) users do none of this.
 */
/** A user entity, or a row read by raw SQL (whose state is a plain string). */
type Stated = { state: string };

export function isActive(user: Stated): boolean {
  return user.state === 'active';
}

export function isInactive(user: Stated): boolean {
  return user.state === 'inactive';
}

export function isLocked(user: Stated): boolean {
  return user.state === 'locked';
}

/** The SQL condition "the user is active", for queries that cannot load the entity; `alias` is the users table's. */
export function activeUserSql(alias?: string): string {
  return `${alias ? `${alias}.` : ''}state = 'active'`;
}

/** The SQL condition "the user is inactive or locked". */
export function notActiveUserSql(alias?: string): string {
  return `${alias ? `${alias}.` : ''}state <> 'active'`;
}
