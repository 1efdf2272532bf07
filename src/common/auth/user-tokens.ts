import type { EntityManager } from 'typeorm';

/**
 * Revokes everything a user was issued by the OIDC layer: sessions, grants, codes, access and refresh
 * tokens. `common` declares it and the OIDC layer provides it, so the users domain can revoke a user's
 * access in the transaction of the change that ends it without importing a surface.
 */
export interface UserTokens {
  revokeAll(manager: EntityManager, userId: string): Promise<void>;
}

export const USER_TOKENS = Symbol('USER_TOKENS');
