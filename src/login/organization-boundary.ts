/** What the boundary needs to know of a client (its registration metadata, see src/oidc/adapter/client.store.ts). */
export interface BoundaryClient {
  portcullis_kind?: string;
  portcullis_org_id?: string;
  portcullis_api_access?: boolean;
}

/** What a user of another organization is told when the login UI refuses the sign-in. */
export const FOREIGN_ORGANIZATION_REFUSAL = 'this application signs in only users of its own organization';

/**
 * Sign-in stays inside the organization (SECURITY.md): an application serves only users of its own
 * organization, except the instance's first-party applications (`apiAccess`, e.g. the console), which
 * serve users of every organization. A machine user's tokens are its own.
 */
export function mayServe(client: BoundaryClient | undefined, account: { orgId: string }): boolean {
  if (!client || client.portcullis_kind === 'machine' || client.portcullis_api_access === true) return true;
  return client.portcullis_org_id === account.orgId;
}
