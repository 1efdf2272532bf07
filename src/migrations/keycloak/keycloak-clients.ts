import type { PlannedClient, PlannedMachine, PlannedSamlApp, Unmapped } from '../migration-plan.js';
import type { KcClient, KcRealm, KcUser } from './keycloak-document.js';
import { planSamlClient } from './keycloak-saml.js';

/** Keycloak's own clients, in every realm: they serve Keycloak's consoles and mean nothing here. */
const BUILT_IN_CLIENTS = new Set(['account', 'account-console', 'admin-cli', 'broker', 'realm-management', 'security-admin-console']);
/** Keycloak's admin console shows a confidential client's secret masked in a partial export. */
const MASKED = /^\*+$/;
const ROLE_KEY = /^[A-Za-z0-9_.:-]{1,100}$/;

const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(:\d+)?(\/|$)/;

/**
 * OIDC clients as applications, each in a project of its own name (docs/migrating.md, "Clients"): the same
 * `client_id` and secret, redirect URIs without wildcards, the flows it had, and Keycloak's token defaults (JWT access
 * tokens, profile claims in the ID token). Its client roles become the project's roles and the users holding them
 * get grants. What has no counterpart is listed with its path.
 */
export function planClients(
  realm: KcRealm,
  users: KcUser[],
  groupRoles: (paths: string[]) => { realm: string[]; client: Record<string, string[]> },
): { clients: PlannedClient[]; machines: PlannedMachine[]; samlApps: PlannedSamlApp[]; unmapped: Unmapped[] } {
  const clients: PlannedClient[] = [];
  const machines: PlannedMachine[] = [];
  const samlApps: PlannedSamlApp[] = [];
  const unmapped: Unmapped[] = [];
  const list: KcClient[] = realm.clients ?? [];
  for (const [index, client] of list.entries()) {
    const path = `clients[${index}]`;
    if (BUILT_IN_CLIENTS.has(client.clientId)) {
      unmapped.push({ path, reason: `built-in: Keycloak's own ${client.clientId} client serves Keycloak's consoles and is skipped` });
      continue;
    }
    if (client.protocol === 'saml') {
      const saml = planSamlClient(client, path);
      unmapped.push(...saml.unmapped);
      if (saml.app) samlApps.push(saml.app);
      continue;
    }
    if ((client.protocol ?? 'openid-connect') !== 'openid-connect') {
      unmapped.push({ path: `${path}.protocol`, reason: `a client of the ${client.protocol} protocol has no counterpart` });
      continue;
    }
    if (client.bearerOnly) {
      unmapped.push({ path, reason: 'a bearer-only client is a resource server: add an API application' });
      continue;
    }
    const attributes = client.attributes ?? {};
    const isPublic = client.publicClient === true;
    if (!isPublic && (client.clientAuthenticatorType ?? 'client-secret') !== 'client-secret') {
      unmapped.push({ path: `${path}.clientAuthenticatorType`, reason: 'only client-secret authentication carries over: register the client’s keys again' });
      continue;
    }
    if (!isPublic && (typeof client.secret !== 'string' || client.secret === '' || MASKED.test(client.secret))) {
      unmapped.push({ path: `${path}.secret`, reason: 'the secret is missing or masked (a partial export): export with kc.sh export to keep it' });
      continue;
    }
    const redirectUris: string[] = [];
    for (const [i, uri] of (client.redirectUris ?? []).entries()) {
      if (uri.includes('*'))
        unmapped.push({ path: `${path}.redirectUris[${i}]`, reason: `a wildcard redirect URI is not carried: add the exact ones (${uri})` });
      else redirectUris.push(uri);
    }
    const devMode = redirectUris.some((uri) => uri.startsWith('http:'));
    for (const [i, uri] of redirectUris.entries()) {
      if (uri.startsWith('http:') && !LOOPBACK.test(uri))
        unmapped.push({ path: `${path}.redirectUris[${i}]`, reason: 'an http redirect URI is carried in development mode only: use https' });
    }
    const postLogout = attributes['post.logout.redirect.uris'];
    const postLogoutRedirectUris =
      postLogout === undefined || postLogout === '' ? [] : postLogout === '+' ? redirectUris : postLogout.split('##').filter((u) => !u.includes('*'));
    const grantTypes: string[] = [];
    const responseTypes: string[] = [];
    if (client.standardFlowEnabled !== false) {
      grantTypes.push('authorization_code');
      responseTypes.push('code');
      if (attributes['use.refresh.tokens'] !== 'false') grantTypes.push('refresh_token');
    }
    if (client.implicitFlowEnabled === true) {
      grantTypes.push('implicit');
      responseTypes.push('id_token', 'id_token token');
    }
    if (client.directAccessGrantsEnabled === true)
      unmapped.push({ path: `${path}.directAccessGrantsEnabled`, reason: 'the password grant is not offered here (OAuth 2.0 Security BCP, RFC 9700 §2.4)' });
    if (client.serviceAccountsEnabled === true) {
      if (isPublic) unmapped.push({ path: `${path}.serviceAccountsEnabled`, reason: 'a public client has no secret to ask for tokens with' });
      else if (grantTypes.length > 0)
        unmapped.push({
          path: `${path}.serviceAccountsEnabled`,
          reason: 'the client id is the application’s here: create a machine user with a secret for its client_credentials requests',
        });
      // client_credentials (RFC 6749 §4.4) is a machine user's here, its user id being its client id.
      else
        machines.push({
          sourceId: client.id ?? client.clientId,
          id: client.clientId,
          userName: `service-account-${client.clientId}`,
          name: client.name || client.clientId,
          description: typeof client.description === 'string' && client.description !== '' ? client.description : null,
          accessTokenType: 'jwt',
          secret: client.secret!,
        });
    }
    if (grantTypes.length === 0) {
      if (client.serviceAccountsEnabled === true && !isPublic) continue;
      unmapped.push({ path, reason: 'a client with neither the standard nor the implicit flow signs nobody in here' });
      continue;
    }
    const roles: string[] = [];
    for (const [i, role] of (realm.roles?.client?.[client.clientId] ?? []).entries()) {
      if (ROLE_KEY.test(role.name)) roles.push(role.name);
      else
        unmapped.push({ path: `roles.client.${client.clientId}[${i}]`, reason: 'a role name a project role key cannot hold (letters, digits and _.:- only)' });
    }
    const composites = new Map((realm.roles?.client?.[client.clientId] ?? []).map((role) => [role.name, role.composites?.client?.[client.clientId] ?? []]));
    const realmComposites = new Map((realm.roles?.realm ?? []).map((role) => [role.name, role.composites]));
    const grants = new Map<string, string[]>();
    for (const user of users) {
      const inherited = groupRoles(user.groups ?? []);
      const direct = [...(user.clientRoles?.[client.clientId] ?? []), ...(inherited.client[client.clientId] ?? [])];
      // A realm role (held directly or through a group) may be a composite of this client's roles.
      for (const realmRole of expandRealm([...(user.realmRoles ?? []), ...inherited.realm], realmComposites))
        direct.push(...(realmComposites.get(realmRole)?.client?.[client.clientId] ?? []));
      const held = [...expand(direct, composites)].filter((key) => roles.includes(key)).sort();
      if (held.length > 0) grants.set(user.id, held);
    }
    clients.push({
      sourceId: client.id ?? client.clientId,
      clientId: client.clientId,
      name: client.name || client.clientId,
      secret: isPublic ? null : client.secret!,
      redirectUris,
      postLogoutRedirectUris,
      grantTypes,
      responseTypes,
      devMode,
      backchannelLogoutUri: attributes['backchannel.logout.url'] || null,
      roles,
      grants,
    });
  }
  return { clients, machines, samlApps, unmapped };
}

function expand(names: string[], composites: Map<string, string[]>): Set<string> {
  const seen = new Set<string>();
  const queue = [...names];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    queue.push(...(composites.get(name) ?? []));
  }
  return seen;
}

function expandRealm(names: string[], composites: Map<string, { realm?: string[] } | undefined>): Set<string> {
  return expand(names, new Map([...composites].map(([name, c]) => [name, c?.realm ?? []])));
}
