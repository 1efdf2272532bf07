import type { OperationObject, ParameterObject, ResponseObject, SchemaObject, SecurityRequirementObject } from '@nestjs/swagger';
import type { OpenApiSurface } from '../../common/http/openapi/openapi-document.js';
import { OIDC_ROUTES } from './oidc.routes.js';

/**
 * The OAuth 2.0 / OpenID Connect endpoints, which oidc-provider serves outside Nest
 * (docs/decisions/oidc-before-express.md), described for API explorers and client generators. Paths are
 * OIDC_ROUTES, the ones the provider is configured with; test/platform/openapi.test.ts compares them
 * with the live discovery document. The browser-only sub-paths (an interaction's resume URL, the logout
 * confirmation) are steps of these flows, not endpoints a client calls, and are left out.
 */
const TAG = 'oauth';
const FORM = 'application/x-www-form-urlencoded';

/** RFC 6749 §2.3.1 `client_secret_basic`; the other client authentication methods travel in the body. */
const CLIENT_BASIC = 'clientBasic';
const BEARER = 'bearer';

const CLIENT_AUTH_NOTE =
  'Client authentication (RFC 6749 §2.3): HTTP Basic with client_id and client_secret (`client_secret_basic`), or in the body: ' +
  '`client_secret` (`client_secret_post`), `client_assertion` (`private_key_jwt`, RFC 7523), or only `client_id` for a public client (`none`). ' +
  'Which ones an endpoint accepts is in the discovery document (`*_endpoint_auth_methods_supported`).';

/** Basic, or (the empty requirement) the client authenticates in the body instead. */
const CLIENT_SECURITY: SecurityRequirementObject[] = [{ [CLIENT_BASIC]: [] }, {}];

const str = (description: string, extra: SchemaObject = {}): SchemaObject => ({ type: 'string', description, ...extra });

/** Body fields of the client authentication methods other than Basic. */
const CLIENT_AUTH_FIELDS: Record<string, SchemaObject> = {
  client_id: str('the client; required unless it authenticates with HTTP Basic'),
  client_secret: str('`client_secret_post`'),
  client_assertion_type: str('`private_key_jwt`', { enum: ['urn:ietf:params:oauth:client-assertion-type:jwt-bearer'] }),
  client_assertion: str("`private_key_jwt`: a JWT signed with the client's key (RFC 7523 §2.2)"),
};

/** Authorization request parameters (OIDC Core §3.1.2.1, RFC 7636, RFC 8707, RFC 9126). */
const AUTHORIZATION_PARAMETERS: Record<string, SchemaObject> = {
  client_id: str('the client'),
  response_type: str('see `response_types_supported`', { example: 'code' }),
  redirect_uri: str("one of the client's registered redirect URIs", { format: 'uri' }),
  scope: str('space-separated; `openid` for OpenID Connect (see `scopes_supported`)', { example: 'openid profile email' }),
  state: str('opaque value returned to the client (CSRF protection)'),
  nonce: str('bound into the ID token (OIDC Core §3.1.2.1)'),
  code_challenge: str('PKCE (RFC 7636)'),
  code_challenge_method: str('PKCE method', { enum: ['S256'] }),
  response_mode: str('see `response_modes_supported`; the `.jwt` modes sign the response (JARM)', {
    enum: ['query', 'fragment', 'form_post', 'jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt'],
  }),
  prompt: str('`none`, `login`, `consent`, `select_account`'),
  max_age: { type: 'integer', minimum: 0, description: 'maximum authentication age in seconds' },
  login_hint: str('the user name to prefill'),
  acr_values: str('see `acr_values_supported`'),
  ui_locales: str('preferred languages of the login UI, space-separated', { example: 'de en' }),
  resource: str('RFC 8707 resource indicator'),
  request_uri: str('a `request_uri` from the pushed authorization request endpoint (RFC 9126)'),
  request: str(
    "a request object (JAR, RFC 9101): the parameters as a JWT signed with one of the application's keys; required by applications with `requireSignedRequestObject`",
  ),
};

/** RFC 9126 §2.1: a pushed request carries no request_uri of its own. */
const { request_uri: _requestUri, ...PAR_PARAMETERS } = AUTHORIZATION_PARAMETERS;

const OAUTH_ERROR: SchemaObject = {
  type: 'object',
  required: ['error'],
  properties: {
    error: str('RFC 6749 §5.2 error code', { example: 'invalid_request' }),
    error_description: str('what is wrong, in English'),
  },
};

const TOKEN_RESPONSE: SchemaObject = {
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in'],
  properties: {
    access_token: str("opaque or a JWT (RFC 9068), per the client's access token type"),
    token_type: str('`Bearer`, or `DPoP` for a token bound to the key of the request\'s `DPoP` proof (RFC 9449 §5; docs/oauth-profiles.md, "DPoP")', {
      example: 'Bearer',
    }),
    expires_in: { type: 'integer', description: 'seconds' },
    refresh_token: str('with `offline_access` (authorization code) or on refresh; rotates on every use'),
    id_token: str('OpenID Connect ID token (a JWT)'),
    scope: str('the granted scope, space-separated'),
    issued_token_type: str('token exchange (RFC 8693 §2.2.1)'),
  },
};

const INTROSPECTION_RESPONSE: SchemaObject = {
  type: 'object',
  required: ['active'],
  description: 'RFC 7662 §2.2; only `active: false` for a token that is unknown, expired, revoked, or not for this client to see',
  properties: {
    active: { type: 'boolean' },
    scope: str('space-separated'),
    client_id: str('the client the token was issued to'),
    sub: str('the user'),
    username: str("the user's user name"),
    token_type: str('`Bearer`, `DPoP` (a DPoP-bound token, RFC 9449 §6.2), or `refresh_token`'),
    cnf: {
      type: 'object',
      description: "a DPoP-bound token's key: `jkt`, its JWK SHA-256 thumbprint (RFC 9449 §6.2)",
      properties: { jkt: str('RFC 7638 thumbprint, base64url') },
    },
    exp: { type: 'integer', description: 'seconds since the epoch' },
    iat: { type: 'integer', description: 'seconds since the epoch' },
    aud: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    iss: str('the issuer'),
    jti: str('the token id'),
  },
  additionalProperties: true,
};

const SCHEMAS: Record<string, SchemaObject> = {
  OAuthError: OAUTH_ERROR,
  TokenResponse: TOKEN_RESPONSE,
  IntrospectionResponse: INTROSPECTION_RESPONSE,
  OpenIdProviderMetadata: {
    type: 'object',
    description: 'OpenID Connect Discovery 1.0 §3; every endpoint URL is under PUBLIC_URL',
    required: ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'],
    properties: {
      issuer: str('PUBLIC_URL', { format: 'uri' }),
      authorization_endpoint: str('', { format: 'uri' }),
      pushed_authorization_request_endpoint: str('', { format: 'uri' }),
      device_authorization_endpoint: str('RFC 8628 §4', { format: 'uri' }),
      token_endpoint: str('', { format: 'uri' }),
      introspection_endpoint: str('', { format: 'uri' }),
      revocation_endpoint: str('', { format: 'uri' }),
      userinfo_endpoint: str('', { format: 'uri' }),
      end_session_endpoint: str('', { format: 'uri' }),
      jwks_uri: str('', { format: 'uri' }),
    },
    additionalProperties: true,
  },
  JsonWebKeySet: {
    type: 'object',
    description: 'RFC 7517 §5: the public keys that verify ID tokens and JWT access tokens',
    required: ['keys'],
    properties: {
      keys: {
        type: 'array',
        items: {
          type: 'object',
          required: ['kty', 'kid'],
          properties: { kty: { type: 'string' }, kid: { type: 'string' }, alg: { type: 'string' }, use: { type: 'string' } },
          additionalProperties: true,
        },
      },
    },
  },
  ClientMetadata: {
    type: 'object',
    description: 'RFC 7591 §2 client metadata',
    properties: {
      client_id: str('assigned by the server, `agent-…`'),
      client_name: str('shown on the consent page'),
      redirect_uris: { type: 'array', items: { type: 'string', format: 'uri' } },
      token_endpoint_auth_method: str('', { enum: ['none', 'private_key_jwt'] }),
      grant_types: { type: 'array', items: { type: 'string', enum: ['authorization_code', 'refresh_token'] } },
      response_types: { type: 'array', items: { type: 'string', enum: ['code'] } },
      jwks: { type: 'object', description: 'the public keys of a `private_key_jwt` client' },
      registration_access_token: str('RFC 7592: the bearer token of the registration’s management'),
      registration_client_uri: str('RFC 7592: where the registration is managed', { format: 'uri' }),
    },
    additionalProperties: true,
  },
  UserInfo: {
    type: 'object',
    description: "OIDC Core §5.3.2: the claims of the token's scopes (§5.4)",
    required: ['sub'],
    properties: { sub: str('the user') },
    additionalProperties: true,
  },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function json(description: string, schema: string, headers?: ResponseObject['headers']): ResponseObject {
  return { description, content: { 'application/json': { schema: ref(schema) } }, ...(headers ? { headers } : {}) };
}

const oauthError = (description: string) => json(description, 'OAuthError');
const html = (description: string): ResponseObject => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const redirect = (description: string): ResponseObject => ({
  description,
  headers: { Location: { description: 'where the browser goes next', schema: { type: 'string', format: 'uri' } } },
});

function form(properties: Record<string, SchemaObject>, required: string[] = []): OperationObject['requestBody'] {
  return { required: true, content: { [FORM]: { schema: { type: 'object', properties, ...(required.length ? { required } : {}) } } } };
}

function query(properties: Record<string, SchemaObject>, required: string[] = []): ParameterObject[] {
  return Object.entries(properties).map(([name, schema]) => ({ name, in: 'query', required: required.includes(name), schema }));
}

/** A browser endpoint: GET with a query, and POST with the same parameters as a form (answered 303 to the GET). */
function browserEndpoint(
  summary: string,
  description: string,
  operationId: string,
  parameters: Record<string, SchemaObject>,
  required: string[],
  responses: OperationObject['responses'],
) {
  const get: OperationObject = {
    tags: [TAG],
    summary,
    description,
    operationId: `${operationId}Get`,
    security: [],
    parameters: query(parameters, required),
    responses,
  };
  const post: OperationObject = {
    tags: [TAG],
    summary: `${summary} (form post)`,
    description: `${description}\n\nA form POST is answered with a 303 to the GET of this endpoint carrying the same parameters (src/oidc/provider/extensions/post-to-get.ts).`,
    operationId: `${operationId}Post`,
    security: [],
    requestBody: form(parameters, required),
    responses: {
      '303': redirect('the same request as a GET'),
      '413': oauthError('the form is larger than 64 KiB'),
      '415': oauthError('the body is not application/x-www-form-urlencoded'),
    },
  };
  return { get, post };
}

export function oidcOpenApi(): OpenApiSurface {
  const r = OIDC_ROUTES;
  const noStore = { 'Cache-Control': { description: '`no-store` (RFC 6749 §5.1)', schema: { type: 'string' } } };
  return {
    tags: [{ name: TAG, description: 'OAuth 2.0 and OpenID Connect, served by oidc-provider; errors are RFC 6749 §5.2 `{error, error_description}`' }],
    schemas: SCHEMAS,
    securitySchemes: {
      [CLIENT_BASIC]: { type: 'http', scheme: 'basic', description: `\`client_secret_basic\`. ${CLIENT_AUTH_NOTE}` },
    },
    paths: {
      '/.well-known/openid-configuration': {
        get: {
          tags: [TAG],
          summary: 'OpenID Provider metadata (discovery)',
          description: 'OpenID Connect Discovery 1.0 §4: the issuer, its endpoints and what it supports.',
          operationId: 'openidConfiguration',
          security: [],
          responses: { '200': json('the provider metadata', 'OpenIdProviderMetadata') },
        },
      },
      '/.well-known/oauth-authorization-server': {
        get: {
          tags: [TAG],
          summary: 'Authorization server metadata (RFC 8414)',
          description:
            'RFC 8414 §3: the discovery document as OAuth clients (MCP clients among them) read it, with `code_challenge_methods_supported: ["S256"]`; `client_id_metadata_document_supported` and `registration_endpoint` only when the instance accepts agent clients (docs/agents.md, "Metadata"). For an issuer with a path, also at `/.well-known/oauth-authorization-server/<path>` (RFC 8414 §3.1).',
          operationId: 'oauthAuthorizationServerMetadata',
          security: [],
          responses: { '200': json('the authorization server metadata', 'OpenIdProviderMetadata') },
        },
      },
      [r.authorization]: browserEndpoint(
        'Authorization endpoint (start a login)',
        "OIDC Core §3.1.2, RFC 6749 §4.1.1: the end-user's browser is sent here. The answer is a 303 to the login UI, or back to the `redirect_uri` with a `code` (or an `error`, RFC 6749 §4.1.2.1), or an auto-submitting form for `response_mode=form_post`; with a `.jwt` response mode (JARM) the result comes as one signed `response` parameter. An error that cannot go back to the client (unknown client, unregistered `redirect_uri`) is shown as a page.",
        'authorize',
        AUTHORIZATION_PARAMETERS,
        ['client_id', 'response_type'],
        {
          '200': html('`response_mode=form_post`: a form that posts the result to the redirect_uri'),
          '303': redirect('to the login UI, or to the redirect_uri with the result'),
          '400': html('a request that cannot be answered at the redirect_uri (unknown client, unregistered redirect_uri)'),
        },
      ),
      [r.pushed_authorization_request]: {
        post: {
          tags: [TAG],
          summary: 'Push an authorization request (PAR)',
          description: `RFC 9126: the client posts the authorization request parameters and gets a \`request_uri\` for the authorization endpoint.\n\n${CLIENT_AUTH_NOTE}`,
          operationId: 'pushAuthorizationRequest',
          security: CLIENT_SECURITY,
          requestBody: form({ ...PAR_PARAMETERS, ...CLIENT_AUTH_FIELDS }, ['response_type']),
          responses: {
            '201': {
              description: 'the stored request',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['request_uri', 'expires_in'],
                    properties: { request_uri: { type: 'string' }, expires_in: { type: 'integer' } },
                  },
                },
              },
            },
            '400': oauthError('invalid_request and the other errors of RFC 6749 §4.1.2.1'),
            '401': oauthError('invalid_client: client authentication failed'),
          },
        },
      },
      [r.device_authorization]: {
        post: {
          tags: [TAG],
          summary: 'Device authorization (device flow)',
          description: `RFC 8628 §3.1: a device without a browser (a TV, a CLI) asks for a device code and a user code. The user opens \`verification_uri\` (the login UI's page \`/ui/login/device\`), types the code, confirms and signs in; the device meanwhile polls the token endpoint with \`grant_type=urn:ietf:params:oauth:grant-type:device_code\` every \`interval\` seconds, and is answered \`authorization_pending\`, \`slow_down\` (polled sooner than the interval; it must then wait 5 s longer), \`access_denied\`, \`expired_token\` or the tokens (§3.5). Only applications with that grant type may use it.\n\n\${CLIENT_AUTH_NOTE}`,
          operationId: 'deviceAuthorization',
          security: CLIENT_SECURITY,
          requestBody: form({
            scope: str('space-separated; `openid` for an ID token', { example: 'openid profile' }),
            acr_values: AUTHORIZATION_PARAMETERS.acr_values,
            resource: AUTHORIZATION_PARAMETERS.resource,
            ...CLIENT_AUTH_FIELDS,
          }),
          responses: {
            '200': {
              description: 'RFC 8628 §3.2',
              headers: noStore,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['device_code', 'user_code', 'verification_uri', 'expires_in', 'interval'],
                    properties: {
                      device_code: str('what the device polls with; a secret'),
                      user_code: str('what the user types, eight letters', { example: 'WDJB-MJHT' }),
                      verification_uri: str('the page where the user types it', { format: 'uri' }),
                      verification_uri_complete: str('the same page with the code filled in (for a QR code)', { format: 'uri' }),
                      expires_in: { type: 'integer', description: 'seconds until both codes expire' },
                      interval: { type: 'integer', description: 'seconds the device waits between polls (DEVICE_POLL_INTERVAL_SECONDS)' },
                    },
                  },
                },
              },
            },
            '400': oauthError('unauthorized_client (the application lacks the device grant), invalid_scope, invalid_request (RFC 6749 §5.2)'),
            '401': oauthError('invalid_client: client authentication failed'),
          },
        },
      },
      [r.token]: {
        post: {
          tags: [TAG],
          summary: 'Token endpoint',
          description: `RFC 6749 §3.2: exchanges an authorization code (with its PKCE verifier), a refresh token, client credentials, a JWT bearer assertion (RFC 7523) or a token (RFC 8693, when the token exchange feature is on) for tokens.\n\n${CLIENT_AUTH_NOTE}`,
          operationId: 'token',
          security: CLIENT_SECURITY,
          requestBody: form(
            {
              grant_type: str('see `grant_types_supported`', {
                enum: [
                  'authorization_code',
                  'refresh_token',
                  'client_credentials',
                  'urn:ietf:params:oauth:grant-type:jwt-bearer',
                  'urn:ietf:params:oauth:grant-type:token-exchange',
                  'urn:ietf:params:oauth:grant-type:device_code',
                ],
              }),
              code: str('authorization_code'),
              redirect_uri: str('authorization_code: the redirect_uri of the authorization request'),
              code_verifier: str('authorization_code: the PKCE verifier (RFC 7636 §4.5)'),
              device_code: str('device_code: the device code of the device authorization response (RFC 8628 §3.4)'),
              refresh_token: str('refresh_token'),
              scope: str('refresh_token, client_credentials, jwt-bearer, token-exchange: the scope asked for'),
              assertion: str("jwt-bearer: the JWT signed with the machine user's key (RFC 7523 §2.1), or an application's ID-JAG (docs/agents.md)"),
              subject_token: str('token-exchange (RFC 8693 §2.1)'),
              subject_token_type: str('token-exchange'),
              actor_token: str('token-exchange: impersonation'),
              actor_token_type: str('token-exchange'),
              requested_token_type: str('token-exchange; `urn:ietf:params:oauth:token-type:id-jag` for an ID-JAG (docs/agents.md)'),
              audience: str('token-exchange; for an ID-JAG, the issuer of the external resource'),
              resource: str('RFC 8707 resource indicator'),
              ...CLIENT_AUTH_FIELDS,
            },
            ['grant_type'],
          ),
          responses: {
            '200': json('the tokens', 'TokenResponse', noStore),
            '400': oauthError(
              'invalid_grant, invalid_request, unsupported_grant_type, invalid_scope, … (RFC 6749 §5.2); for device_code also authorization_pending, slow_down, access_denied, expired_token (RFC 8628 §3.5)',
            ),
            '401': oauthError('invalid_client: client authentication failed'),
          },
        },
      },
      [r.introspection]: {
        post: {
          tags: [TAG],
          summary: 'Token introspection',
          description: `RFC 7662: whether a token is active, and what it grants.\n\n${CLIENT_AUTH_NOTE}`,
          operationId: 'introspect',
          security: CLIENT_SECURITY,
          requestBody: form({ token: str('the token'), token_type_hint: str('', { enum: ['access_token', 'refresh_token'] }), ...CLIENT_AUTH_FIELDS }, [
            'token',
          ]),
          responses: {
            '200': json("the token's state", 'IntrospectionResponse'),
            '400': oauthError('invalid_request'),
            '401': oauthError('invalid_client: client authentication failed'),
          },
        },
      },
      [r.revocation]: {
        post: {
          tags: [TAG],
          summary: 'Token revocation',
          description: `RFC 7009: revokes a token of the client (a refresh token revokes its grant). Answers 200 whether or not the token was valid (§2.2).\n\n${CLIENT_AUTH_NOTE}`,
          operationId: 'revoke',
          security: CLIENT_SECURITY,
          requestBody: form({ token: str('the token'), token_type_hint: str('', { enum: ['access_token', 'refresh_token'] }), ...CLIENT_AUTH_FIELDS }, [
            'token',
          ]),
          responses: {
            '200': { description: 'revoked, or was not valid' },
            '400': oauthError('invalid_request, unsupported_token_type'),
            '401': oauthError('invalid_client: client authentication failed'),
          },
        },
      },
      [r.userinfo]: {
        get: userinfo('userinfoGet'),
        post: userinfo('userinfoPost'),
      },
      [r.jwks]: {
        get: {
          tags: [TAG],
          summary: 'JSON Web Key Set',
          description: 'RFC 7517: the public signing keys (`jwks_uri`); a rotated key stays published while tokens it signed may still be valid.',
          operationId: 'jwks',
          security: [],
          responses: {
            '200': { description: 'the key set', content: { 'application/jwk-set+json': { schema: ref('JsonWebKeySet') } } },
          },
        },
      },
      [r.end_session]: browserEndpoint(
        'End session (RP-initiated logout)',
        "OpenID Connect RP-Initiated Logout 1.0 §2: the end-user's browser is sent here; the user confirms the logout on a page, then goes to `post_logout_redirect_uri` (one the client registered) or to a logged-out page.",
        'endSession',
        {
          id_token_hint: str('an ID token the client received'),
          post_logout_redirect_uri: str("one of the client's registered post-logout redirect URIs", { format: 'uri' }),
          state: str('returned with the redirect'),
          client_id: str('the client, when no id_token_hint is sent'),
          logout_hint: str('the user'),
          ui_locales: str('preferred languages of the page'),
        },
        [],
        {
          '200': html('the logout confirmation (a page that submits itself to the confirmation step)'),
          '400': html('the error page, `invalid_request`: an id_token_hint that cannot be decoded, a post_logout_redirect_uri the client did not register'),
        },
      ),
      ...registrationPaths(),
    },
  };
}

const REFUSED_METADATA =
  'invalid_client_metadata (a client secret method, keys or documents to fetch, a grant other than authorization_code and refresh_token), invalid_redirect_uri (neither https nor http on loopback)';

/** RFC 7591 and RFC 7592 for agents (docs/agents.md, "Dynamic registration"); in the metadata only while an organization allows it. */
function registrationPaths(): Record<string, Record<string, OperationObject>> {
  const metadata = {
    required: true,
    content: { 'application/json': { schema: ref('ClientMetadata') } },
  };
  const refusals = { '400': oauthError(REFUSED_METADATA) };
  const clientId: ParameterObject = { name: 'clientId', in: 'path', required: true, schema: { type: 'string' } };
  const managed = (summary: string, operationId: string, extra: Partial<OperationObject> & Pick<OperationObject, 'responses'>): OperationObject => ({
    tags: [TAG],
    summary,
    operationId,
    security: [{ [BEARER]: [] }],
    parameters: [clientId],
    ...extra,
  });
  const unknown = oauthError('invalid_token: not the registration access token of this client, or the client was deleted or lapsed');
  return {
    [OIDC_ROUTES.registration]: {
      post: {
        tags: [TAG],
        summary: 'Dynamic client registration',
        description:
          'RFC 7591 §3: an agent registers itself, with an initial access token of an organization as its bearer token (`…/agent-registration-tokens`), or without one while an organization is `open`. Public (`none`, PKCE S256) or `private_key_jwt` with inline `jwks` only.',
        operationId: 'registerClient',
        security: [{ [BEARER]: [] }, {}],
        requestBody: metadata,
        responses: {
          '201': json('the registration, with `client_id`, `registration_access_token` and `registration_client_uri`', 'ClientMetadata'),
          '400': oauthError(
            `${REFUSED_METADATA}; access_denied: the organization, or the instance for openly registered clients not yet bound, holds as many registered clients as it allows (DYNAMIC_REGISTRATION_MAX_PER_ORG, DYNAMIC_REGISTRATION_MAX_UNBOUND)`,
          ),
          '401': oauthError('invalid_token: an unknown or expired initial access token, its organization is off, or none while no organization is open'),
          '429': oauthError('temporarily_unavailable: too many registrations from this address this minute (with `Retry-After`)'),
        },
      },
    },
    [`${OIDC_ROUTES.registration}/{clientId}`]: {
      get: managed('Read a registration', 'readClientRegistration', {
        description: 'RFC 7592 §2.1, with the registration access token.',
        responses: { '200': json('the registration', 'ClientMetadata'), '401': unknown },
      }),
      put: managed('Update a registration', 'updateClientRegistration', {
        description: 'RFC 7592 §2.2: replaces the metadata (held to the registration rules) and answers a new registration access token.',
        requestBody: metadata,
        responses: { '200': json('the registration', 'ClientMetadata'), ...refusals, '401': unknown },
      }),
      delete: managed('Delete a registration', 'deleteClientRegistration', {
        description: 'RFC 7592 §2.3: the client and everything issued to it go.',
        responses: { '204': { description: 'deleted' }, '401': unknown },
      }),
    },
  };
}

function userinfo(operationId: string): OperationObject {
  return {
    tags: [TAG],
    summary: operationId.endsWith('Post') ? 'UserInfo (POST)' : 'UserInfo',
    description:
      'OIDC Core §5.3: the claims about the user of an access token issued with the `openid` scope, in the `Authorization: Bearer` header; a DPoP-bound token as `Authorization: DPoP` with its `DPoP` proof (RFC 9449 §7).',
    operationId,
    security: [{ [BEARER]: [] }],
    responses: {
      '200': json("the user's claims", 'UserInfo'),
      '401': oauthError(
        'invalid_token: missing, expired or revoked (RFC 6750 §3.1, with a `WWW-Authenticate` header), or a DPoP-bound token without its proof; invalid_dpop_proof, use_dpop_nonce (with a `DPoP-Nonce` header, RFC 9449 §9)',
      ),
      '403': oauthError('insufficient_scope: the token was not issued with `openid`'),
    },
  };
}
