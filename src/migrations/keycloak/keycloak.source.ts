import type { MigrationPlan } from '../migration-plan.js';
import { checkRealm } from './keycloak-document.js';
import type { KcUser } from './keycloak-document.js';
import { planClients } from './keycloak-clients.js';
import { planIdps } from './keycloak-idps.js';
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
  'identityProviders',
]);

/** Roles every Keycloak user holds: they mean nothing here. */
const DEFAULT_ROLES = /^(default-roles-.*|offline_access|uma_authorization)$/;

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
  const indexed: { user: KcUser; index: number }[] = [];
  for (const [index, user] of (realm.users ?? []).entries()) {
    if (user.serviceAccountClientId !== undefined) {
      // It comes with its client as a machine user; its roles do not (a machine user's token carries none).
      const roles = [...(user.realmRoles ?? []).filter((r) => !DEFAULT_ROLES.test(r)), ...Object.keys(user.clientRoles ?? {})];
      if (roles.length > 0)
        plan.unmapped.push({ path: `users[${index}].realmRoles`, reason: 'a service account’s roles do not reach its client_credentials tokens here' });
      continue;
    }
    const mapped = mapUser(user, index);
    plan.unmapped.push(...mapped.unmapped);
    if (mapped.failure) plan.failures.push(mapped.failure);
    if (mapped.user) {
      plan.users.push(mapped.user);
      people.push(user);
      indexed.push({ user, index });
    }
  }
  plan.groups = planGroups(realm, people);
  const clients = planClients(realm, people, groupRolesOf(realm));
  plan.clients = clients.clients;
  plan.machines = clients.machines;
  plan.samlApps = clients.samlApps;
  const idps = planIdps(realm, indexed);
  plan.idps = idps.idps;
  plan.idpLinks = idps.links;
  plan.unmapped.push(...idps.unmapped);
  plan.unmapped.push(...clients.unmapped);
  for (const key of Object.keys(realm)) {
    if (HANDLED.has(key)) continue;
    if (key === 'authenticationFlows' && Array.isArray(realm.authenticationFlows)) {
      plan.unmapped.push(...flowsUnmapped(realm.authenticationFlows));
      continue;
    }
    plan.unmapped.push({ path: key, reason: REASONS[key] ?? 'a realm setting without a counterpart here' });
  }
  return plan;
}

/**
 * A realm's own authentication flows each by its path and alias (what an operator built and must rebuild as login
 * policy); Keycloak's built-in ones together, as one path.
 */
function flowsUnmapped(flows: unknown[]): { path: string; reason: string }[] {
  const listed: { path: string; reason: string }[] = [];
  let builtIn = 0;
  for (const [i, flow] of flows.entries()) {
    const f = (flow ?? {}) as { alias?: unknown; builtIn?: unknown };
    if (f.builtIn === true) builtIn++;
    else
      listed.push({
        path: `authenticationFlows[${i}]`,
        reason: `the realm's own flow "${String(f.alias ?? '')}" has no counterpart: set the organization's login policy (docs/migrating.md)`,
      });
  }
  if (builtIn > 0) listed.unshift({ path: 'authenticationFlows', reason: REASONS.authenticationFlows });
  return listed;
}
