import type { OidcContext } from 'oidc-provider';
import { mayServe } from '../../login/organization-boundary.js';
import type { BoundaryClient } from '../../login/organization-boundary.js';
import type { AccountFinder, OidcAccount } from './account.finder.js';

/**
 * oidc-provider's `findAccount` with the boundary applied wherever a token is used (code exchange,
 * refresh, userinfo): a user of another organization has no account for that client, so no token of
 * it is issued or honoured. At the authorization endpoint (no token) the account is returned as is and
 * the interaction policy's `foreign_organization` check decides (interaction.policy.ts).
 */
export async function findAccountWithinOrganization(accounts: AccountFinder, ctx: OidcContext, sub: string, token?: unknown): Promise<OidcAccount | undefined> {
  const client = ctx?.oidc?.client as (BoundaryClient & { clientId?: string }) | undefined;
  const account = await accounts.find(sub, client?.clientId);
  if (!account || token === undefined) return account;
  return mayServe(client, account) ? account : undefined;
}
