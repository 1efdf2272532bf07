import { pbkdf2Sync, randomBytes, randomUUID } from 'node:crypto';
import argon2 from 'argon2';
import { newSelfSignedCredentials } from '../../../src/common/crypto/self-signed-credentials.js';

/**
 * A realm export written as Keycloak 24–26 writes it (`kc.sh export --realm`, RealmRepresentation): credentials as
 * Keycloak's providers store them, with `secretData` and `credentialData` as JSON text. Every hash and secret is made
 * here, with Keycloak's own parameters: PBKDF2-SHA256 at 27,500 iterations (a 512-bit key before Keycloak 24, 256
 * bits since), PBKDF2-SHA512 at 210,000, Argon2id at its defaults (version 1.3, 7 MiB, 5 passes, 1 lane, 32 bytes).
 */
export type Hashing = 'pbkdf2-sha256-512bit' | 'pbkdf2-sha256' | 'pbkdf2-sha512' | 'argon2id';

export interface SeedUser {
  username: string;
  password: string;
  hashing: Hashing;
  /** Keycloak's OTP secret text (its HMAC key is the UTF-8 bytes of this text). */
  totpSecret?: string;
  groups?: string[];
  realmRoles?: string[];
  enabled?: boolean;
  requiredActions?: string[];
  attributes?: Record<string, string[]>;
  webauthn?: boolean;
  id?: string;
  /** Roles of the realm's `shop` client mapped to the user. */
  shopRoles?: string[];
  /** The user's identities at the realm's identity providers (alias → the upstream's `sub`). */
  federated?: Record<string, string>;
}

/** The realm's upstream OpenID Provider (`corp`): where it is, and the client Keycloak had there. */
export interface RealmUpstream {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export async function passwordCredential(password: string, hashing: Hashing): Promise<Record<string, unknown>> {
  const salt = randomBytes(16);
  let value: Buffer;
  let credentialData: Record<string, unknown>;
  switch (hashing) {
    case 'pbkdf2-sha256-512bit':
      value = pbkdf2Sync(password, salt, 27500, 64, 'sha256');
      credentialData = { hashIterations: 27500, algorithm: 'pbkdf2-sha256', additionalParameters: {} };
      break;
    case 'pbkdf2-sha256':
      value = pbkdf2Sync(password, salt, 27500, 32, 'sha256');
      credentialData = { hashIterations: 27500, algorithm: 'pbkdf2-sha256', additionalParameters: {} };
      break;
    case 'pbkdf2-sha512':
      value = pbkdf2Sync(password, salt, 210000, 64, 'sha512');
      credentialData = { hashIterations: 210000, algorithm: 'pbkdf2-sha512', additionalParameters: {} };
      break;
    case 'argon2id':
      value = await argon2.hash(password, {
        type: argon2.argon2id,
        version: 0x13,
        memoryCost: 7168,
        timeCost: 5,
        parallelism: 1,
        hashLength: 32,
        salt,
        raw: true,
      });
      credentialData = {
        hashIterations: 5,
        algorithm: 'argon2',
        additionalParameters: { hashLength: ['32'], memory: ['7168'], type: ['id'], version: ['1.3'], parallelism: ['1'] },
      };
      break;
  }
  return {
    id: randomUUID(),
    type: 'password',
    userLabel: 'My password',
    createdDate: 1_700_000_000_000,
    secretData: JSON.stringify({ value: value.toString('base64'), salt: salt.toString('base64'), additionalParameters: {} }),
    credentialData: JSON.stringify(credentialData),
  };
}

export function otpCredential(secret: string): Record<string, unknown> {
  return {
    id: randomUUID(),
    type: 'otp',
    userLabel: 'Phone',
    createdDate: 1_700_000_000_000,
    secretData: JSON.stringify({ value: secret }),
    credentialData: JSON.stringify({ subType: 'totp', digits: 6, counter: 0, period: 30, algorithm: 'HmacSHA1' }),
  };
}

/** A random OTP secret as Keycloak makes one: 20 characters of letters and digits. */
export function keycloakOtpSecret(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(20)].map((b) => alphabet[b % alphabet.length]).join('');
}

export async function keycloakUser(seed: SeedUser, realm: string): Promise<Record<string, unknown>> {
  const credentials: Record<string, unknown>[] = [await passwordCredential(seed.password, seed.hashing)];
  if (seed.totpSecret) credentials.push(otpCredential(seed.totpSecret));
  if (seed.webauthn) {
    credentials.push({
      id: randomUUID(),
      type: 'webauthn',
      userLabel: 'Security key',
      createdDate: 1_700_000_000_000,
      secretData: '{}',
      credentialData: JSON.stringify({ aaguid: '00000000-0000-0000-0000-000000000000', credentialId: randomBytes(16).toString('base64'), counter: 0 }),
    });
  }
  return {
    id: seed.id ?? randomUUID(),
    createdTimestamp: 1_690_000_000_000,
    username: seed.username,
    enabled: seed.enabled ?? true,
    totp: seed.totpSecret !== undefined,
    emailVerified: true,
    firstName: seed.username[0].toUpperCase() + seed.username.slice(1),
    lastName: 'Example',
    email: `${seed.username}@example.com`,
    attributes: seed.attributes ?? {},
    credentials,
    disableableCredentialTypes: [],
    requiredActions: seed.requiredActions ?? [],
    realmRoles: [`default-roles-${realm}`, ...(seed.realmRoles ?? [])],
    clientRoles: { account: ['view-profile', 'manage-account'], ...(seed.shopRoles ? { shop: seed.shopRoles } : {}) },
    notBefore: 0,
    groups: seed.groups ?? [],
    ...(seed.federated
      ? {
          federatedIdentities: Object.entries(seed.federated).map(([identityProvider, userId]) => ({
            identityProvider,
            userId,
            userName: `${seed.username}@upstream.example`,
          })),
        }
      : {}),
  };
}

/** Keycloak's brokering settings every identity provider of an export carries. */
function brokered(alias: string, providerId: string, config: Record<string, string>, displayName?: string): Record<string, unknown> {
  return {
    alias,
    ...(displayName ? { displayName } : {}),
    internalId: randomUUID(),
    providerId,
    enabled: true,
    updateProfileFirstLoginMode: 'on',
    trustEmail: false,
    storeToken: false,
    addReadTokenRoleOnCreate: false,
    authenticateByDefault: false,
    linkOnly: false,
    hideOnLogin: false,
    firstBrokerLoginFlowAlias: 'first broker login',
    config,
  };
}

/**
 * The realm's identity providers: an OpenID Connect one with its secret (as `kc.sh export` writes it), Google with the
 * secret masked (as the admin console's partial export writes it), GitHub (no OpenID Connect) and a SAML one.
 */
function identityProviders(upstream: RealmUpstream | undefined): Record<string, unknown>[] {
  const issuer = upstream?.issuer ?? 'https://sso.corp.example';
  return [
    brokered(
      'corp',
      'oidc',
      {
        validateSignature: 'true',
        tokenUrl: `${issuer}/token`,
        authorizationUrl: `${issuer}/auth`,
        clientAuthMethod: 'client_secret_post',
        jwksUrl: `${issuer}/jwks`,
        syncMode: 'LEGACY',
        clientSecret: upstream?.clientSecret ?? keycloakClientSecret(),
        issuer,
        useJwksUrl: 'true',
        pkceEnabled: 'false',
        clientId: upstream?.clientId ?? 'keycloak-broker',
        defaultScope: 'openid email profile',
        backchannelSupported: 'false',
      },
      'Corp SSO',
    ),
    brokered('google', 'google', { clientId: '1234-abc.apps.googleusercontent.com', clientSecret: '**********', syncMode: 'LEGACY' }),
    brokered('github', 'github', { clientId: 'Iv1.0123456789abcdef', clientSecret: keycloakClientSecret(), syncMode: 'LEGACY' }),
    brokered('partner-saml', 'saml', {
      entityId: 'https://sso.partner.example/realms/x',
      idpEntityId: 'https://idp.partner.example',
      singleSignOnServiceUrl: 'https://idp.partner.example/sso',
      nameIDPolicyFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      principalType: 'SUBJECT',
      syncMode: 'LEGACY',
      postBindingResponse: 'true',
      validateSignature: 'false',
    }),
  ];
}

const BUILT_IN_CLIENTS = ['account', 'account-console', 'admin-cli', 'broker', 'realm-management', 'security-admin-console'];

/** A confidential client's secret as Keycloak generates one (32 characters of letters and digits). */
export function keycloakClientSecret(): string {
  return keycloakOtpSecret() + keycloakOtpSecret().slice(0, 12);
}

function oidcClient(clientId: string, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    id: randomUUID(),
    clientId,
    name: '',
    surrogateAuthRequired: false,
    enabled: true,
    alwaysDisplayInConsole: false,
    clientAuthenticatorType: 'client-secret',
    webOrigins: ['+'],
    notBefore: 0,
    bearerOnly: false,
    consentRequired: false,
    standardFlowEnabled: true,
    implicitFlowEnabled: false,
    directAccessGrantsEnabled: false,
    serviceAccountsEnabled: false,
    publicClient: false,
    frontchannelLogout: true,
    protocol: 'openid-connect',
    attributes: { 'oidc.ciba.grant.enabled': 'false', 'backchannel.logout.session.required': 'true', 'display.on.consent.screen': 'false' },
    authenticationFlowBindingOverrides: {},
    fullScopeAllowed: true,
    nodeReRegistrationTimeout: -1,
    defaultClientScopes: ['web-origins', 'acr', 'profile', 'roles', 'basic', 'email'],
    optionalClientScopes: ['address', 'phone', 'offline_access', 'microprofile-jwt'],
    ...extra,
  };
}

/**
 * A SAML client as Keycloak's admin console makes one for an SP with a signing certificate: the client id is the SP's
 * entity id, the certificate base64 DER without PEM lines, and the attributes Keycloak writes for every SAML client.
 */
function samlClient(spCertificate: string): Record<string, unknown> {
  return {
    id: randomUUID(),
    clientId: 'https://sp.example.com/metadata',
    name: 'Wiki',
    description: '',
    rootUrl: '',
    adminUrl: 'https://sp.example.com/saml',
    baseUrl: '',
    surrogateAuthRequired: false,
    enabled: true,
    alwaysDisplayInConsole: false,
    clientAuthenticatorType: 'client-secret',
    redirectUris: ['https://sp.example.com/*'],
    webOrigins: [],
    notBefore: 0,
    bearerOnly: false,
    consentRequired: false,
    standardFlowEnabled: true,
    implicitFlowEnabled: false,
    directAccessGrantsEnabled: false,
    serviceAccountsEnabled: false,
    publicClient: false,
    frontchannelLogout: true,
    protocol: 'saml',
    attributes: {
      'saml.assertion.signature': 'true',
      'saml.force.post.binding': 'true',
      saml_assertion_consumer_url_post: 'https://sp.example.com/acs',
      'saml.server.signature': 'true',
      'saml.server.signature.keyinfo.ext': 'false',
      'saml.signing.certificate': spCertificate,
      saml_single_logout_service_url_post: 'https://sp.example.com/slo',
      'saml.signature.algorithm': 'RSA_SHA256',
      saml_force_name_id_format: 'false',
      'saml.client.signature': 'true',
      'saml.encrypt': 'false',
      'saml.authnstatement': 'true',
      'display.on.consent.screen': 'false',
      saml_name_id_format: 'email',
      'saml.allow.ecp.flow': 'false',
      saml_signature_canonicalization_method: 'http://www.w3.org/2001/10/xml-exc-c14n#',
      'saml.onetimeuse.condition': 'false',
      'saml.artifact.binding': 'false',
      'saml.server.signature.keyinfo.xmlSigKeyInfoKeyNameTransformer': 'KEY_ID',
    },
    authenticationFlowBindingOverrides: {},
    fullScopeAllowed: true,
    nodeReRegistrationTimeout: -1,
    protocolMappers: [
      {
        id: randomUUID(),
        name: 'X500 email',
        protocol: 'saml',
        protocolMapper: 'saml-user-property-mapper',
        consentRequired: false,
        config: {
          'attribute.nameformat': 'urn:oasis:names:tc:SAML:2.0:attrname-format:uri',
          'user.attribute': 'email',
          'friendly.name': 'email',
          'attribute.name': 'urn:oid:1.2.840.113549.1.9.1',
        },
      },
    ],
    defaultClientScopes: ['saml_organization', 'role_list'],
    optionalClientScopes: [],
  };
}

/** The user Keycloak makes for a client with service accounts enabled (its `sub` in client_credentials tokens). */
function serviceAccountUser(realm: string, clientId: string): Record<string, unknown> {
  return {
    id: randomUUID(),
    createdTimestamp: 1_690_000_000_000,
    username: `service-account-${clientId}`,
    enabled: true,
    totp: false,
    emailVerified: false,
    serviceAccountClientId: clientId,
    credentials: [],
    disableableCredentialTypes: [],
    requiredActions: [],
    realmRoles: [`default-roles-${realm}`],
    clientRoles: { 'realm-management': ['view-users'] },
    notBefore: 0,
    groups: [],
  };
}

/**
 * The realm's own clients (shop: confidential; spa: public; a SAML client; `<realm>-reporting`: a service account),
 * beside Keycloak's built-in ones.
 */
function realmClients(realm: string, shopSecret: string, reportingSecret: string, spCertificate: string): Record<string, unknown>[] {
  return [
    ...BUILT_IN_CLIENTS.map((clientId) =>
      oidcClient(clientId, { name: `\${client_${clientId}}`, publicClient: clientId !== 'broker' && clientId !== 'realm-management' }),
    ),
    oidcClient('shop', {
      name: 'Shop',
      secret: shopSecret,
      redirectUris: ['http://127.0.0.1:65531/cb', 'https://shop.example.com/*'],
      directAccessGrantsEnabled: true,
      attributes: {
        'post.logout.redirect.uris': 'http://127.0.0.1:65531/out',
        'pkce.code.challenge.method': 'S256',
        'backchannel.logout.session.required': 'true',
      },
    }),
    oidcClient('spa', { publicClient: true, redirectUris: ['http://127.0.0.1:65532/cb'], attributes: { 'pkce.code.challenge.method': 'S256' } }),
    samlClient(spCertificate),
    oidcClient(`${realm}-reporting`, {
      name: 'Reporting job',
      secret: reportingSecret,
      redirectUris: [],
      webOrigins: [],
      standardFlowEnabled: false,
      serviceAccountsEnabled: true,
      attributes: {
        'client.secret.creation.time': '1700000000',
        'oauth2.device.authorization.grant.enabled': 'false',
        'backchannel.logout.session.required': 'true',
      },
    }),
  ];
}

/** The realm document: the seed users, nested groups, composite realm roles, and what every export also holds. */
export async function keycloakRealm(
  realm: string,
  users: SeedUser[],
  shopSecret = keycloakClientSecret(),
  reportingSecret = keycloakClientSecret(),
  upstream?: RealmUpstream,
): Promise<Record<string, unknown>> {
  const spCertificate = (await newSelfSignedCredentials('sp.example.com')).certificatePem.replace(/-----[A-Z ]+-----|\s/g, '');
  return {
    id: randomUUID(),
    realm,
    displayName: `${realm} realm`,
    notBefore: 0,
    defaultSignatureAlgorithm: 'RS256',
    revokeRefreshToken: false,
    accessTokenLifespan: 300,
    ssoSessionIdleTimeout: 1800,
    enabled: true,
    sslRequired: 'external',
    registrationAllowed: false,
    loginWithEmailAllowed: true,
    bruteForceProtected: false,
    roles: {
      realm: [
        { id: randomUUID(), name: 'developer', description: 'writes code', composite: false, clientRole: false, containerId: realm, attributes: {} },
        {
          id: randomUUID(),
          name: 'admin',
          composite: true,
          composites: { realm: ['developer'] },
          clientRole: false,
          containerId: realm,
          attributes: {},
        },
        { id: randomUUID(), name: 'offline_access', composite: false, clientRole: false, containerId: realm, attributes: {} },
        { id: randomUUID(), name: 'uma_authorization', composite: false, clientRole: false, containerId: realm, attributes: {} },
        {
          id: randomUUID(),
          name: `default-roles-${realm}`,
          composite: true,
          composites: { realm: ['offline_access', 'uma_authorization'], client: { account: ['view-profile', 'manage-account'] } },
          clientRole: false,
          containerId: realm,
          attributes: {},
        },
      ],
      client: {
        ...Object.fromEntries(BUILT_IN_CLIENTS.map((c) => [c, []])),
        shop: [
          { id: randomUUID(), name: 'viewer', composite: false, clientRole: true, containerId: 'shop', attributes: {} },
          { id: randomUUID(), name: 'editor', composite: false, clientRole: true, containerId: 'shop', attributes: {} },
          {
            id: randomUUID(),
            name: 'manager',
            composite: true,
            composites: { client: { shop: ['editor'] } },
            clientRole: true,
            containerId: 'shop',
            attributes: {},
          },
        ],
      },
    },
    groups: [
      {
        id: randomUUID(),
        name: 'Engineering',
        path: '/Engineering',
        subGroupCount: 1,
        attributes: {},
        realmRoles: ['developer'],
        clientRoles: { shop: ['editor'] },
        subGroups: [
          {
            id: randomUUID(),
            name: 'Backend',
            path: '/Engineering/Backend',
            parentId: 'x',
            subGroupCount: 0,
            attributes: {},
            realmRoles: [],
            clientRoles: {},
            subGroups: [],
          },
        ],
      },
      { id: randomUUID(), name: 'Sales', path: '/Sales', subGroupCount: 0, attributes: {}, realmRoles: [], clientRoles: {}, subGroups: [] },
    ],
    defaultRole: { id: randomUUID(), name: `default-roles-${realm}`, composite: true, clientRole: false, containerId: realm },
    requiredCredentials: ['password'],
    otpPolicyType: 'totp',
    otpPolicyAlgorithm: 'HmacSHA1',
    otpPolicyDigits: 6,
    otpPolicyPeriod: 30,
    users: [...(await Promise.all(users.map((u) => keycloakUser(u, realm)))), serviceAccountUser(realm, `${realm}-reporting`)],
    clients: realmClients(realm, shopSecret, reportingSecret, spCertificate),
    identityProviders: identityProviders(upstream),
    authenticationFlows: [
      {
        id: randomUUID(),
        alias: 'browser',
        description: 'browser based authentication',
        providerId: 'basic-flow',
        topLevel: true,
        builtIn: true,
        authenticationExecutions: [],
      },
      {
        id: randomUUID(),
        alias: 'browser with OTP',
        description: '',
        providerId: 'basic-flow',
        topLevel: true,
        builtIn: false,
        authenticationExecutions: [
          {
            authenticator: 'auth-cookie',
            authenticatorFlow: false,
            requirement: 'ALTERNATIVE',
            priority: 10,
            autheticatorFlow: false,
            userSetupAllowed: false,
          },
          { authenticator: 'auth-otp-form', authenticatorFlow: false, requirement: 'REQUIRED', priority: 20, autheticatorFlow: false, userSetupAllowed: false },
        ],
      },
    ],
    requiredActions: [
      { alias: 'CONFIGURE_TOTP', name: 'Configure OTP', providerId: 'CONFIGURE_TOTP', enabled: true, defaultAction: false, priority: 10, config: {} },
    ],
    browserFlow: 'browser',
    components: {},
    internationalizationEnabled: false,
    keycloakVersion: '26.0.5',
  };
}
