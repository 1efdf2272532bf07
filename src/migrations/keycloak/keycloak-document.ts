import { flag, list, object, text, texts } from '../document-checks.js';
import { DocumentFault, MAX_USERS_PER_REQUEST } from '../migration-plan.js';

/**
 * The parts of Keycloak's `RealmRepresentation` (kc.sh export, the admin console's realm export) that are read,
 * checked whole before anything is written: a field of the wrong type anywhere is a DocumentFault naming its path.
 */
export interface KcCredential {
  type?: string;
  secretData?: string;
  credentialData?: string;
}

export interface KcUser {
  id: string;
  username: string;
  enabled?: boolean;
  createdTimestamp?: number;
  firstName?: string;
  lastName?: string;
  email?: string;
  emailVerified?: boolean;
  attributes?: Record<string, string[]>;
  credentials?: KcCredential[];
  requiredActions?: string[];
  realmRoles?: string[];
  clientRoles?: Record<string, string[]>;
  groups?: string[];
  federatedIdentities?: unknown[];
  serviceAccountClientId?: string;
  [key: string]: unknown;
}

export interface KcGroup {
  id?: string;
  name: string;
  path?: string;
  realmRoles?: string[];
  clientRoles?: Record<string, string[]>;
  subGroups?: KcGroup[];
  [key: string]: unknown;
}

export interface KcRole {
  id?: string;
  name: string;
  composite?: boolean;
  composites?: { realm?: string[]; client?: Record<string, string[]> };
  [key: string]: unknown;
}

export interface KcClient {
  id?: string;
  clientId: string;
  name?: string;
  protocol?: string;
  publicClient?: boolean;
  bearerOnly?: boolean;
  secret?: string;
  clientAuthenticatorType?: string;
  redirectUris?: string[];
  standardFlowEnabled?: boolean;
  implicitFlowEnabled?: boolean;
  directAccessGrantsEnabled?: boolean;
  serviceAccountsEnabled?: boolean;
  attributes?: Record<string, string>;
  [key: string]: unknown;
}

export interface KcRealm {
  id?: string;
  realm: string;
  displayName?: string;
  clients?: KcClient[];
  users?: KcUser[];
  groups?: KcGroup[];
  roles?: { realm?: KcRole[]; client?: Record<string, KcRole[]> };
  [key: string]: unknown;
}

export function checkRealm(document: unknown): KcRealm {
  const realm = object(document, 'document');
  text(realm.realm, 'document.realm', true);
  text(realm.id, 'document.id');
  text(realm.displayName, 'document.displayName');
  const users = list(realm.users, 'document.users');
  if (users.length > MAX_USERS_PER_REQUEST)
    throw new DocumentFault(
      'document.users',
      `holds ${users.length} users, more than ${MAX_USERS_PER_REQUEST} per request: send them in parts (portcullis import keycloak does)`,
    );
  users.forEach((user, i) => checkUser(user, `document.users[${i}]`));
  list(realm.groups, 'document.groups').forEach((group, i) => checkGroup(group, `document.groups[${i}]`));
  list(realm.clients, 'document.clients').forEach((client, i) => checkClient(client, `document.clients[${i}]`));
  list(realm.identityProviders, 'document.identityProviders').forEach((idp, i) => checkIdp(idp, `document.identityProviders[${i}]`));
  if (realm.roles !== undefined) {
    const roles = object(realm.roles, 'document.roles');
    list(roles.realm, 'document.roles.realm').forEach((role, i) => checkRole(role, `document.roles.realm[${i}]`));
    if (roles.client !== undefined) {
      for (const [clientId, clientRoles] of Object.entries(object(roles.client, 'document.roles.client'))) {
        list(clientRoles, `document.roles.client.${clientId}`).forEach((role, i) => checkRole(role, `document.roles.client.${clientId}[${i}]`));
      }
    }
  }
  return realm as KcRealm;
}

function checkUser(value: unknown, path: string): void {
  const user = object(value, path);
  text(user.id, `${path}.id`, true);
  text(user.username, `${path}.username`, true);
  for (const name of ['firstName', 'lastName', 'email', 'serviceAccountClientId']) text(user[name], `${path}.${name}`);
  for (const name of ['enabled', 'emailVerified']) flag(user[name], `${path}.${name}`);
  if (user.createdTimestamp !== undefined && !Number.isSafeInteger(user.createdTimestamp))
    throw new DocumentFault(`${path}.createdTimestamp`, 'must be an integer (epoch milliseconds)');
  if (user.attributes !== undefined) {
    for (const [name, values] of Object.entries(object(user.attributes, `${path}.attributes`))) texts(values, `${path}.attributes.${name}`);
  }
  list(user.credentials, `${path}.credentials`).forEach((credential, i) => {
    const c = object(credential, `${path}.credentials[${i}]`);
    for (const name of ['type', 'secretData', 'credentialData']) text(c[name], `${path}.credentials[${i}].${name}`);
  });
  for (const name of ['requiredActions', 'realmRoles', 'groups']) texts(user[name], `${path}.${name}`);
  if (user.clientRoles !== undefined) {
    for (const [clientId, roles] of Object.entries(object(user.clientRoles, `${path}.clientRoles`))) texts(roles, `${path}.clientRoles.${clientId}`);
  }
  list(user.federatedIdentities, `${path}.federatedIdentities`).forEach((identity, i) => {
    const at = `${path}.federatedIdentities[${i}]`;
    const link = object(identity, at);
    text(link.identityProvider, `${at}.identityProvider`, true);
    text(link.userId, `${at}.userId`, true);
    text(link.userName, `${at}.userName`);
  });
}

function checkIdp(value: unknown, path: string): void {
  const idp = object(value, path);
  text(idp.alias, `${path}.alias`, true);
  text(idp.providerId, `${path}.providerId`, true);
  text(idp.displayName, `${path}.displayName`);
  if (idp.config !== undefined) {
    for (const [name, setting] of Object.entries(object(idp.config, `${path}.config`))) text(setting, `${path}.config.${name}`);
  }
}

function checkClient(value: unknown, path: string): void {
  const client = object(value, path);
  text(client.clientId, `${path}.clientId`, true);
  for (const name of ['id', 'name', 'protocol', 'secret', 'clientAuthenticatorType']) text(client[name], `${path}.${name}`);
  for (const name of ['publicClient', 'bearerOnly', 'standardFlowEnabled', 'implicitFlowEnabled', 'directAccessGrantsEnabled', 'serviceAccountsEnabled']) {
    flag(client[name], `${path}.${name}`);
  }
  texts(client.redirectUris, `${path}.redirectUris`);
  if (client.attributes !== undefined) {
    for (const [name, attribute] of Object.entries(object(client.attributes, `${path}.attributes`))) text(attribute, `${path}.attributes.${name}`);
  }
}

function checkGroup(value: unknown, path: string): void {
  const group = object(value, path);
  text(group.name, `${path}.name`, true);
  text(group.id, `${path}.id`);
  text(group.path, `${path}.path`);
  texts(group.realmRoles, `${path}.realmRoles`);
  if (group.clientRoles !== undefined) {
    for (const [clientId, roles] of Object.entries(object(group.clientRoles, `${path}.clientRoles`))) texts(roles, `${path}.clientRoles.${clientId}`);
  }
  list(group.subGroups, `${path}.subGroups`).forEach((sub, i) => checkGroup(sub, `${path}.subGroups[${i}]`));
}

function checkRole(value: unknown, path: string): void {
  const role = object(value, path);
  text(role.name, `${path}.name`, true);
  flag(role.composite, `${path}.composite`);
  if (role.composites !== undefined) {
    const composites = object(role.composites, `${path}.composites`);
    texts(composites.realm, `${path}.composites.realm`);
    if (composites.client !== undefined) {
      for (const [clientId, roles] of Object.entries(object(composites.client, `${path}.composites.client`)))
        texts(roles, `${path}.composites.client.${clientId}`);
    }
  }
}
