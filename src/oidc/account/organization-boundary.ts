import type { OidcContext } from 'oidc-provider';
import type { ApplicationEntry, EntryClient } from '../../login/application-entry.js';
import { mayServe } from '../../login/organization-boundary.js';
import type { AccountFinder, OidcAccount } from './account.finder.js';

/**
 * oidc-provider's `findAccount` with the boundary and the application's access applied wherever a token is used
 * (code exchange, refresh, userinfo): a user of another organization, or one without a grant of an application that
 * admits only granted users (docs/product-rules.md, "Application access"), has no account for that client, so no token
 * of it is issued or honoured. A refused refresh records `user.app.access.denied`; userinfo refuses silently. At the
 * authorization endpoint (no token) the account is returned as is and the interaction policy decides
 * (interaction.policy.ts).
 */
export async function findAccountWithinOrganization(
  accounts: AccountFinder,
  entry: ApplicationEntry,
  ctx: OidcContext,
  sub: string,
  token?: unknown,
): Promise<OidcAccount | undefined> {
  const account = await accounts.find(sub);
  if (!account || token === undefined) return account;
  const client = ctx?.oidc?.client as EntryClient | undefined;
  if (!mayServe(client, account)) return undefined;
  if (await entry.admits(client, account.accountId)) return account;
  if ((token as { kind?: string }).kind === 'RefreshToken') await entry.recordRefusal(client, { id: account.accountId, orgId: account.orgId }, 'refresh');
  return undefined;
}
