import type { PlannedIdp, PlannedIdpLink, PlannedOidcIdp, Unmapped } from '../migration-plan.js';
import type { KcRealm, KcUser } from './keycloak-document.js';
import { samlIdpOf } from './keycloak-saml-idp.js';

/** Keycloak's admin console masks a secret it shows, and a partial export writes the mask. */
const MASKED = /^\*+$/;
/** Social providers that are OpenID Connect providers with a fixed issuer (OpenID Connect Discovery §4). */
const SOCIAL_ISSUERS: Record<string, string> = {
  google: 'https://accounts.google.com',
  microsoft: 'https://login.microsoftonline.com/common/v2.0',
  gitlab: 'https://gitlab.com',
};
const AUTH_METHODS: Record<string, PlannedOidcIdp['authMethod']> = {
  client_secret_basic: 'client_secret_basic',
  client_secret_post: 'client_secret_post',
};
/** Config keys this mapping reads, or that state what the upstream's discovery document says anyway. */
const READ = new Set([
  'issuer',
  'clientId',
  'clientSecret',
  'clientAuthMethod',
  'defaultScope',
  'authorizationUrl',
  'tokenUrl',
  'userInfoUrl',
  'jwksUrl',
  'logoutUrl',
  'useJwksUrl',
  'validateSignature',
  'syncMode',
  'pkceEnabled',
  'pkceMethod',
  'guiOrder',
  'hideOnLoginPage',
]);

/**
 * A realm's identity providers as upstream OpenID Connect and SAML IdPs (docs/migrating.md, "Identity providers"), with their
 * client ids and secrets, and its users' federated identities as links, so a person who signs in through the upstream
 * is the same user with the same `sub`. A secret the export masks is never written: that IdP is listed for re-entry,
 * with its users' links. What the IdPs here cannot be is listed with its path.
 */
export function planIdps(realm: KcRealm, users: { user: KcUser; index: number }[]): { idps: PlannedIdp[]; links: PlannedIdpLink[]; unmapped: Unmapped[] } {
  const idps: PlannedIdp[] = [];
  const unmapped: Unmapped[] = [];
  const list = Array.isArray(realm.identityProviders) ? (realm.identityProviders as Record<string, unknown>[]) : [];
  for (const [i, idp] of list.entries()) {
    const path = `identityProviders[${i}]`;
    const alias = typeof idp.alias === 'string' ? idp.alias : `#${i}`;
    const providerId = typeof idp.providerId === 'string' ? idp.providerId : '';
    const config = (idp.config ?? {}) as Record<string, string>;
    const issuer = providerId === 'oidc' || providerId === 'keycloak-oidc' ? config.issuer : SOCIAL_ISSUERS[providerId];
    if (providerId === 'saml') {
      const name = typeof idp.displayName === 'string' && idp.displayName !== '' ? idp.displayName : alias;
      const saml = samlIdpOf(idp, alias, path, name);
      unmapped.push(...saml.unmapped);
      if (saml.idp) idps.push(saml.idp);
      continue;
    }
    if (issuer === undefined || issuer === '') {
      unmapped.push({
        path,
        reason:
          providerId === 'oidc' || providerId === 'keycloak-oidc'
            ? `${alias} has no issuer: an upstream IdP here is found by its discovery document`
            : `${alias} (${providerId}) is not an OpenID Connect provider: it has no counterpart here`,
      });
      continue;
    }
    const secret = config.clientSecret;
    if (secret === undefined || secret === '' || MASKED.test(secret) || /^\$\{vault\./.test(secret)) {
      unmapped.push({
        path: `${path}.config.clientSecret`,
        reason: `the secret of ${alias} is masked or held in a vault in the export, so it needs re-entry: export with kc.sh export, or add the IdP with its secret (docs/federation.md)`,
      });
      continue;
    }
    const authMethod = AUTH_METHODS[config.clientAuthMethod ?? 'client_secret_post'];
    if (authMethod === undefined) {
      unmapped.push({ path: `${path}.config.clientAuthMethod`, reason: `${config.clientAuthMethod} has no counterpart: only client secrets carry over` });
      continue;
    }
    for (const key of Object.keys(config))
      if (!READ.has(key)) unmapped.push({ path: `${path}.config.${key}`, reason: 'an identity provider setting without a counterpart here' });
    if (typeof idp.firstBrokerLoginFlowAlias === 'string' && idp.firstBrokerLoginFlowAlias !== 'first broker login')
      unmapped.push({ path: `${path}.firstBrokerLoginFlowAlias`, reason: 'authentication flows have no counterpart' });
    const scopes = (config.defaultScope ?? 'openid').split(/\s+/).filter((s) => s !== '');
    idps.push({
      sourceId: alias,
      name: typeof idp.displayName === 'string' && idp.displayName !== '' ? idp.displayName : alias,
      issuer,
      clientId: config.clientId ?? '',
      clientSecret: secret,
      authMethod,
      scopes,
    });
  }
  const known = new Set(idps.map((idp) => idp.sourceId));
  const listed = new Set(list.map((idp) => idp.alias));
  const links: PlannedIdpLink[] = [];
  for (const { user, index } of users) {
    for (const [j, identity] of ((user.federatedIdentities ?? []) as Record<string, unknown>[]).entries()) {
      const alias = String(identity.identityProvider ?? '');
      if (known.has(alias) && typeof identity.userId === 'string') links.push({ userSourceId: user.id, idpSourceId: alias, subject: identity.userId });
      else
        unmapped.push({
          path: `users[${index}].federatedIdentities[${j}]`,
          reason: listed.has(alias)
            ? `${alias} did not come in (see identityProviders): the user links at first sign-in through it`
            : 'an unknown identity provider',
        });
    }
  }
  return { idps, links, unmapped };
}
