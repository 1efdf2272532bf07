import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { UserEntity } from '../../users/entities/user.entity.js';
import { groupNamesOf } from '../../users/groups/group.queries.js';
import { ApplicationAccess } from '../../users/project-access/application-access.service.js';
import { accountRow } from '../../users/queries/oidc-accounts.js';
import { accountReadWithToken } from '../adapter/request-lookups.js';
import { flag, json, millis } from '../../common/database/column-values.js';
import { isActive } from '../../users/rules/user-state.js';
import { rolesProjectOf } from '../tokens/audience.js';

/** What oidc-provider's `findAccount` returns (OIDC Core §5.1 standard claims by scope). */
export interface OidcAccount {
  accountId: string;
  /** The organization the user belongs to: applications sign in only their own organization's users. */
  orgId: string;
  claims(use: string, scope: string): Promise<Record<string, unknown>>;
}

/** The user fields the claims are made of (OIDC Core §5.1). */
type ClaimsUser = Pick<
  UserEntity,
  | 'id'
  | 'displayName'
  | 'givenName'
  | 'familyName'
  | 'nickName'
  | 'gender'
  | 'preferredLanguage'
  | 'timezone'
  | 'profileUrl'
  | 'changedAt'
  | 'email'
  | 'emailVerified'
  | 'phone'
  | 'phoneVerified'
  | 'scimAttributes'
>;

/**
 * Accounts for oidc-provider, read from the users domain on every use: a user who is deactivated,
 * locked or removed has no account, so userinfo answers 401 and their sessions cannot sign in
 * (docs/product-rules.md, "Consistency": the state is read on use). Where the request's token was read
 * with its account in one statement (userinfo, the refresh grant), that read is the use; nothing is
 * kept beyond the request.
 */
@Injectable()
export class AccountFinder {
  constructor(
    private readonly dataSource: DataSource,
    private readonly access: ApplicationAccess,
  ) {}

  /**
   * `clientId`: the client the claims are for, whose project (or requested project) the `roles` claim is of;
   * `resource`: the API application's resource the token is for, whose project's roles it carries instead.
   */
  async find(userId: string, clientId?: string, resource?: string): Promise<OidcAccount | undefined> {
    // Read with the token this request presented, in the same statement (oidc-payload.adapter.ts), or now.
    const withToken = accountReadWithToken(userId);
    const row = withToken !== undefined ? (withToken ?? undefined) : await accountRow(this.dataSource, userId);
    if (!row || !isActive({ state: String(row.state) })) return undefined;
    const str = (value: unknown) => (value == null ? null : String(value));
    const user: ClaimsUser = {
      id: String(row.id),
      displayName: str(row.display_name),
      givenName: str(row.given_name),
      familyName: str(row.family_name),
      nickName: str(row.nick_name),
      gender: str(row.gender),
      preferredLanguage: str(row.preferred_language),
      timezone: str(row.timezone),
      profileUrl: str(row.profile_url),
      changedAt: new Date(millis(row.changed_at) ?? 0),
      email: str(row.email),
      emailVerified: flag(row.email_verified),
      phone: str(row.phone),
      phoneVerified: flag(row.phone_verified),
      scimAttributes: json<object | null>(row.scim_attributes, null),
    };
    const loginName = `${String(row.user_name)}@${str(row.primary_domain) ?? ''}`;
    const claims = async (use: string, scope: string) => {
      const scopes = new Set(scope.split(' '));
      const result = claimsOf(user, loginName, scopes);
      // Read only when asked for: one indexed query on the user's memberships.
      if (scopes.has('groups')) result.groups = await groupNamesOf(this.dataSource.manager, user.id);
      // Likewise one indexed query on the user's and its groups' grants in the token's project.
      // An ID token is for its client (OIDC Core §2, `aud`), so it has the client's roles even beside a resource token.
      if (scopes.has('roles')) result.roles = await this.rolesOf(user.id, clientId, scope, use === 'id_token' ? undefined : resource);
      return result;
    };
    return { accountId: user.id, orgId: String(row.org_id), claims };
  }

  /**
   * The user's role keys in the project a token of this client, scope and resource is for (docs/application-access.md,
   * "How roles reach the application"), sorted by code point; `[]` without a client or project (a machine user's own
   * token).
   */
  async rolesOf(userId: string, clientId: string | undefined, scope: string, resource?: string): Promise<string[]> {
    const projectId = clientId === undefined ? undefined : await rolesProjectOf(this.dataSource, { clientId, scope, userId, resource });
    return projectId === undefined ? [] : this.access.rolesIn(projectId, userId);
  }
}

/** Claims by scope (OIDC Core §5.4); oidc-provider filters them again by the granted scope. */
function claimsOf(user: ClaimsUser, loginName: string, scopes: Set<string>): Record<string, unknown> {
  const claims: Record<string, unknown> = { sub: user.id };
  if (scopes.has('profile')) {
    Object.assign(claims, {
      name: user.displayName ?? ([user.givenName, user.familyName].filter(Boolean).join(' ') || undefined),
      given_name: user.givenName ?? undefined,
      family_name: user.familyName ?? undefined,
      nickname: user.nickName ?? undefined,
      gender: user.gender ?? undefined,
      locale: user.preferredLanguage ?? undefined,
      zoneinfo: user.timezone ?? undefined,
      profile: user.profileUrl ?? undefined,
      preferred_username: loginName,
      updated_at: Math.floor(user.changedAt.getTime() / 1000),
    });
  }
  if (scopes.has('email') && user.email) Object.assign(claims, { email: user.email, email_verified: user.emailVerified });
  if (scopes.has('phone') && user.phone) Object.assign(claims, { phone_number: user.phone, phone_number_verified: user.phoneVerified });
  if (scopes.has('address')) {
    const address = firstAddress(user.scimAttributes);
    if (address) claims.address = address;
  }
  return claims;
}

function firstAddress(attributes: object | null): Record<string, string> | undefined {
  const list = (attributes as { addresses?: Record<string, unknown>[] } | null)?.addresses;
  const a = list?.find((x) => x.primary) ?? list?.[0];
  if (!a) return undefined;
  const pick = (k: string) => (typeof a[k] === 'string' ? (a[k] as string) : undefined);
  return {
    ...(pick('formatted') ? { formatted: pick('formatted')! } : {}),
    ...(pick('streetAddress') ? { street_address: pick('streetAddress')! } : {}),
    ...(pick('locality') ? { locality: pick('locality')! } : {}),
    ...(pick('region') ? { region: pick('region')! } : {}),
    ...(pick('postalCode') ? { postal_code: pick('postalCode')! } : {}),
    ...(pick('country') ? { country: pick('country')! } : {}),
  };
}
