import type { KindedClient } from './client-kind.js';

/**
 * What the boundary needs to know of a client (its registration metadata, see src/oidc/adapter/client.store.ts); the
 * boundary itself is mayServe (client-kind.ts), beside the other rules a client's kind decides.
 */
export interface BoundaryClient extends KindedClient {
  portcullis_org_id?: string;
  /** The application the client is (its brand shows on the client's sign-in pages). */
  portcullis_app_id?: string;
}

/** What a user of another organization is told when the login UI refuses the sign-in. */
export const FOREIGN_ORGANIZATION_REFUSAL = 'this application signs in only users of its own organization';
