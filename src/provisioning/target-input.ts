import { isIP } from 'node:net';
import { DomainError } from '../common/errors/domain-error.js';
import { absoluteUrlProblem, assertReachableTarget } from '../common/net/configured-target.js';
import { hostOf, resolveAll } from '../common/net/outbound-address.js';
import { requestTimeoutOf } from './provisioning-settings.js';
import type { AuthType, OnRemove, PushGroups, TargetSettings, UserNameSource, UserScope } from './provisioning-settings.js';

/** A target as created (`POST`: name, baseUrl and auth required) or changed (`PATCH`: the fields sent), validated in shape by the DTOs. */
export interface TargetInput {
  name?: string;
  baseUrl?: string;
  auth?: { type: AuthType; token?: string; tokenUrl?: string; clientId?: string; clientSecret?: string; scope?: string };
  scope?: { users: UserScope; groupIds?: string[] };
  pushGroups?: PushGroups;
  userName?: UserNameSource;
  onRemove?: OnRemove;
  rolesFrom?: string | null;
  requestTimeoutMs?: number;
  enabled?: boolean;
}

/**
 * The settings a target has after `input` (over `before`, when it is changed), and the new secret if one was
 * given. A changed auth of the same type may leave its secret out (the stored one stays); a new type needs one.
 */
export function settingsOf(input: TargetInput, before: TargetSettings | undefined): { settings: TargetSettings; secret: string | undefined } {
  if (!before && (input.name === undefined || input.baseUrl === undefined || input.auth === undefined)) {
    const missing = (['name', 'baseUrl', 'auth'] as const).filter((f) => input[f] === undefined);
    throw DomainError.invalid(
      `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} required`,
      missing.map((field) => ({ field, message: `${field} is required` })),
    );
  }
  let auth = before?.auth;
  let secret: string | undefined;
  if (input.auth) {
    const a = input.auth;
    const sameType = before?.auth.type === a.type;
    if (a.type === 'bearer') {
      for (const field of ['tokenUrl', 'clientId', 'clientSecret', 'scope'] as const)
        if (a[field] !== undefined) throw DomainError.invalidField(`auth.${field}`, `auth.${field} belongs to oauth_client_credentials, not bearer`);
      if (a.token === undefined && !sameType) throw DomainError.invalidField('auth.token', 'auth.token is required for bearer');
      auth = { type: 'bearer' };
      secret = a.token;
    } else {
      if (a.token !== undefined) throw DomainError.invalidField('auth.token', 'auth.token belongs to bearer, not oauth_client_credentials');
      const previous = sameType && before!.auth.type === 'oauth_client_credentials' ? before!.auth : undefined;
      const tokenUrl = a.tokenUrl ?? previous?.tokenUrl;
      const clientId = a.clientId ?? previous?.clientId;
      if (tokenUrl === undefined) throw DomainError.invalidField('auth.tokenUrl', 'auth.tokenUrl is required for oauth_client_credentials');
      if (clientId === undefined) throw DomainError.invalidField('auth.clientId', 'auth.clientId is required for oauth_client_credentials');
      if (a.clientSecret === undefined && !previous)
        throw DomainError.invalidField('auth.clientSecret', 'auth.clientSecret is required for oauth_client_credentials');
      const scope = a.scope ?? previous?.scope;
      auth = { type: 'oauth_client_credentials', tokenUrl, clientId, ...(scope ? { scope } : {}) };
      secret = a.clientSecret;
    }
  }
  const scope = input.scope
    ? { users: input.scope.users, groupIds: [...new Set(input.scope.groupIds ?? [])] }
    : (before?.scope ?? { users: 'all' as const, groupIds: [] });
  const pushGroups = input.pushGroups ?? before?.pushGroups ?? 'none';
  if (scope.groupIds.length === 0 && scope.users === 'groups')
    throw DomainError.invalidField('scope.groupIds', 'scope.groupIds must name at least one group when scope.users is "groups"');
  return {
    settings: {
      auth: auth!,
      scope,
      pushGroups,
      userName: input.userName ?? before?.userName ?? 'userName',
      onRemove: input.onRemove ?? before?.onRemove ?? 'deactivate',
      rolesFrom: input.rolesFrom !== undefined ? input.rolesFrom : (before?.rolesFrom ?? null),
      requestTimeoutMs: input.requestTimeoutMs ?? requestTimeoutOf(before ?? {}),
    },
    secret,
  };
}

/** Where a target's settings send its stored secret, or a token bought with it: the SCIM base URL and the token URL. */
interface SecretDestination {
  baseUrl: string;
  settings: TargetSettings;
}

/**
 * The stored secret is write-only (docs/provisioning.md): a change of `baseUrl` or `auth.tokenUrl` without the secret
 * would let an editor send it to a host of their own and read it there. Such a change must carry it again (a 400
 * naming the field). With client credentials the base URL counts too: the access token is a credential at the target.
 */
export function assertSecretResent(before: SecretDestination, after: SecretDestination, secret: string | undefined): void {
  if (secret !== undefined) return;
  const tokenUrl = ({ settings }: SecretDestination) => (settings.auth.type === 'oauth_client_credentials' ? settings.auth.tokenUrl : undefined);
  if (after.baseUrl === before.baseUrl && tokenUrl(after) === tokenUrl(before)) return;
  const field = after.settings.auth.type === 'bearer' ? 'auth.token' : 'auth.clientSecret';
  throw DomainError.invalidField(field, `${field} must be sent again when baseUrl or auth.tokenUrl changes: the stored secret never goes to a new address`);
}

export interface UrlRules {
  allowPrivateNetworks: boolean;
  /** This instance's listening port and public URL: a target there would be the service calling itself. */
  port: number;
  publicUrl: string;
}

/**
 * A URL the service will call for a target (docs/provisioning.md, "Targets", "Outbound calls"): absolute http(s) without credentials, query or
 * fragment; https on a public address unless `OUTBOUND_ALLOW_PRIVATE_NETWORKS`; never this instance itself (its
 * `PUBLIC_URL`, or its own port on a loopback address). A 400 naming `field`.
 */
export async function checkTargetUrl(value: string, field: string, rules: UrlRules): Promise<void> {
  const problem = absoluteUrlProblem(value);
  if (problem) throw DomainError.invalidField(field, `${field} ${problem}`);
  const url = new URL(value);
  if (url.origin === new URL(rules.publicUrl).origin || (await isOwnListener(url, rules.port))) {
    throw DomainError.invalidField(field, `${field} must not point at this instance itself`);
  }
  await assertReachableTarget(value, field, rules);
}

async function isOwnListener(url: URL, port: number): Promise<boolean> {
  const urlPort = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (urlPort !== port) return false;
  const host = hostOf(url);
  const addresses = isIP(host)
    ? [host]
    : await resolveAll(host).then(
        (all) => all.map((a) => a.address),
        () => [],
      );
  return addresses.some((a) => a.startsWith('127.') || a === '::1' || a === '0.0.0.0' || a === '::' || a === '::ffff:127.0.0.1');
}
