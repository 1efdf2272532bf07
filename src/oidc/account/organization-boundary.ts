import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { mayServe } from '../../login/organization-boundary.js';
import type { BoundaryClient } from '../../login/organization-boundary.js';
import { clientServing } from '../agents/agent-organization.js';
import type { AccountFinder, OidcAccount } from './account.finder.js';

/**
 * oidc-provider's `findAccount` with the boundary applied wherever a token is used (code exchange,
 * refresh, userinfo): a user of another organization has no account for that client, so no token of
 * it is issued or honoured. At the authorization endpoint (no token) the account is returned as is and
 * the interaction policy's `foreign_organization` check decides (interaction.policy.ts). An agent client of no
 * organization serves the organization of the resource the code or refresh token is for (docs/agents.md).
 */
export async function findAccountWithinOrganization(
  accounts: AccountFinder,
  dataSource: DataSource,
  ctx: OidcContext,
  sub: string,
  token?: unknown,
): Promise<OidcAccount | undefined> {
  const account = await accounts.find(sub);
  if (!account || token === undefined) return account;
  const client = await clientServing(dataSource, ctx?.oidc?.client as BoundaryClient | undefined, (token as { resource?: unknown }).resource);
  return mayServe(client, account) ? account : undefined;
}
