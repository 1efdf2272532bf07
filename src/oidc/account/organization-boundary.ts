import type { OidcContext } from 'oidc-provider';
import type { AccountFinder, OidcAccount } from './account.finder.js';

/** What the boundary needs to know of a client (its registration metadata, see client.store.ts). */
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
export function mayServe(client: BoundaryClient | undefined, account: Pick<OidcAccount, 'orgId'>): boolean {
  if (!client || client.portcullis_kind === 'machine' || client.portcullis_api_access === true) return true;
  return client.portcullis_org_id === account.orgId;
}

/**
 * oidc-provider's `findAccount` with the boundary applied wherever a token is used (code exchange,
 * refresh, userinfo): a user of another organization has no account for that client, so no token of
 * it is issued or honoured. At the authorization endpoint (no token) the account is returned as is and
 * the interaction policy's `foreign_organization` check decides (interaction.policy.ts).
 */
export async function findAccountWithinOrganization(accounts: AccountFinder, ctx: OidcContext, sub: string, token?: unknown): Promise<OidcAccount | undefined> {
  const account = await accounts.find(sub);
  if (!account || token === undefined) return account;
  return mayServe(ctx?.oidc?.client as BoundaryClient | undefined, account) ? account : undefined;
}
