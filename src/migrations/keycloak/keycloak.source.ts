import type { MigrationPlan } from '../migration-plan.js';
import { checkRealm } from './keycloak-document.js';
import type { KcUser } from './keycloak-document.js';
import { planClients } from './keycloak-clients.js';
import { groupRolesOf, planGroups } from './keycloak-groups.js';
import { mapUser } from './keycloak-users.js';

/** Realm fields read by this source, or that only describe the export itself. */
const HANDLED = new Set([
  'id',
  'realm',
  'displayName',
  'displayNameHtml',
  'enabled',
  'users',
  'groups',
  'roles',
  'clients',
  'defaultRole',
  'defaultRoles',
  'keycloakVersion',
]);

/** Why a realm field stays behind; fields not named here are settings without a counterpart. */
const REASONS: Record<string, string> = {
  clientScopes: 'client scopes and their protocol mappers have no counterpart: Portcullis has fixed scopes and claims',
  defaultDefaultClientScopes: 'client scopes have no counterpart',
  defaultOptionalClientScopes: 'client scopes have no counterpart',
  scopeMappings: 'scope mappings have no counterpart: a token carries the roles of the client’s project',
  clientScopeMappings: 'scope mappings have no counterpart',
  authenticationFlows: 'authentication flows have no counterpart: one sign-in flow with the organization’s login policy',
  authenticatorConfig: 'authentication flows have no counterpart',
  requiredActions: 'the realm’s required-action settings have no counterpart (each user’s owed actions are mapped)',
  identityProviders: 'identity providers are not migrated by this version: add them as upstream IdPs (docs/federation.md)',
  identityProviderMappers: 'identity provider mappers have no counterpart',
  components: 'components (LDAP and Kerberos federation, key providers) have no counterpart: keys are the instance’s own',
  smtpServer: 'mail is configured per instance (docs/mail.md)',
  loginTheme: 'themes have no counterpart (docs/operations.md)',
  accountTheme: 'themes have no counterpart',
  adminTheme: 'themes have no counterpart',
  emailTheme: 'themes have no counterpart',
  passwordPolicy: 'the password policy is the instance’s (docs/operations.md, "Settings")',
  otpPolicyType: 'authenticators are TOTP with SHA-1, 6 digits and 30 s',
  browserFlow: 'authentication flows have no counterpart',
  registrationFlow: 'authentication flows have no counterpart',
  directGrantFlow: 'authentication flows have no counterpart',
  resetCredentialsFlow: 'authentication flows have no counterpart',
  clientAuthenticationFlow: 'authentication flows have no counterpart',
  dockerAuthenticationFlow: 'authentication flows have no counterpart',
  firstBrokerLoginFlow: 'authentication flows have no counterpart',
  federatedUsers: 'users of a user-federation provider stay in that directory',
};

/**
 * A Keycloak realm export (docs/migrating.md, "Keycloak"), checked whole, then read into a plan: the realm as one
 * organization, its users with ids, hashes and authenticators, its groups by path, its realm roles as `role:`
 * groups, and its OIDC clients as applications keeping their ids and secrets, with their roles and grants. Service-account users belong to clients and come with them. Every other field is listed as unmapped.
 */
export function planKeycloak(document: unknown): MigrationPlan {
  const realm = checkRealm(document);
  const plan: MigrationPlan = {
    container: realm.id ?? realm.realm,
    orgName: realm.displayName || realm.realm,
    users: [],
    groups: [],
    clients: [],
    failures: [],
    unmapped: [],
  };
  const people: KcUser[] = [];
  for (const [index, user] of (realm.users ?? []).entries()) {
    if (user.serviceAccountClientId !== undefined) {
      plan.unmapped.push({ path: `users[${index}]`, reason: 'the service account of a client: service accounts are not migrated by this version' });
      continue;
    }
    const mapped = mapUser(user, index);
    plan.unmapped.push(...mapped.unmapped);
    if (mapped.failure) plan.failures.push(mapped.failure);
    if (mapped.user) {
      plan.users.push(mapped.user);
      people.push(user);
    }
  }
  plan.groups = planGroups(realm, people);
  const clients = planClients(realm, people, groupRolesOf(realm));
  plan.clients = clients.clients;
  plan.unmapped.push(...clients.unmapped);
  for (const key of Object.keys(realm)) {
    if (HANDLED.has(key)) continue;
    plan.unmapped.push({ path: key, reason: REASONS[key] ?? 'a realm setting without a counterpart here' });
  }
  return plan;
}
