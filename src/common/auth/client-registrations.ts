import type { EntityManager } from 'typeorm';

/**
 * What the OIDC layer does when an application's registration changes or goes: it forgets the
 * registration it read (so a replaced secret or a removed key stops at once in this process), and it
 * revokes what was issued to a removed client (grants, codes, access and refresh tokens). `common`
 * declares it and the OIDC layer provides it, like USER_TOKENS, so the users domain can call it without
 * importing a surface.
 */
export interface ClientRegistrations {
  /** Deletes every stored OIDC object issued to the client, in the caller's transaction. */
  revokeIssuedTo(manager: EntityManager, clientId: string): Promise<void>;
  /**
   * Deletes what was issued to the client in transactions of a bounded size, before the removal's own transaction
   * deletes what is issued meanwhile: no transaction grows with the client's tokens (a Galera node applies each one
   * whole; docs/high-availability.md).
   */
  revokeIssuedInBatches(clientId: string): Promise<void>;
  /** Drops this process's cached registration of the client; call it once the change has committed. */
  forget(clientId: string): void;
}

export const CLIENT_REGISTRATIONS = Symbol('CLIENT_REGISTRATIONS');
