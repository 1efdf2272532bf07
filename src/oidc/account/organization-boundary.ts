import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { ApplicationEntry, EntryClient } from '../../login/application-entry.js';
import { mayServe } from '../../login/client-kind.js';
import type { BoundaryClient } from '../../login/organization-boundary.js';
import { clientServing } from '../../agents/agent-organization.js';
import type { AccountFinder, OidcAccount } from './account.finder.js';
import { issuedAudience } from './resource-audience.js';
import { resourceOfToken } from '../tokens/audience.js';

/**
 * oidc-provider's `findAccount` with the boundary and the application's access applied wherever a token is used
 * (code exchange, refresh, userinfo): a user of another organization, or one without a grant of an application that
 * admits only granted users (docs/product-rules.md, "Application access"), has no account for that client, so no token
 * of it is issued or honoured. A refused refresh records `user.app.access.denied`; userinfo refuses silently. At the
 * authorization endpoint (no token) the account is returned as is and the interaction policy decides
 * (interaction.policy.ts). An agent client of no organization serves the organization of the resource the code or
 * refresh token is for (docs/agents.md). A token whose audience names an API application with `access: "granted"`
 * (its resource or its project) is refused the same way when that application does not admit the user, whichever
 * client holds it (docs/application-access.md, "Resources of a restricted API application"); a refused code or
 * refresh records door `resource`.
 */
export async function findAccountWithinOrganization(
  accounts: AccountFinder,
  dataSource: DataSource,
  entry: ApplicationEntry,
  ctx: OidcContext,
  sub: string,
  token?: unknown,
): Promise<OidcAccount | undefined> {
  const client = ctx?.oidc?.client as (EntryClient & { clientId?: string }) | undefined;
  // A code, refresh or access token for an API application's resource carries that resource's roles.
  const account = await accounts.find(sub, client?.clientId, resourceOfToken(token));
  if (!account || token === undefined) return account;
  const serving = await clientServing(dataSource, client as BoundaryClient | undefined, (token as { resource?: unknown }).resource);
  if (!mayServe(serving, account)) return undefined;
  const kind = (token as { kind?: string }).kind;
  const user = { id: account.accountId, orgId: account.orgId };
  if (!(await entry.admits(client, account.accountId))) {
    if (kind === 'RefreshToken') await entry.recordRefusal(client, user, 'refresh');
    return undefined;
  }
  const audience = await issuedAudience(dataSource, token as Parameters<typeof issuedAudience>[1]);
  // Userinfo refuses silently, as for the application's own access; a code or refresh token records the refusal.
  const refused = kind === 'AccessToken' ? await entry.refusingResource(audience, account.accountId) : await entry.refusesResource(audience, user);
  return refused ? undefined : account;
}
