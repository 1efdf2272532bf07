import { createPublicKey } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apacheServerBasics } from '../../support/apache.js';

/** The modules the test server loads from Debian's apache2 and libapache2-mod-auth-openidc (prefork: mod_cgi needs a non-threaded MPM). */
export const APACHE_MODULE_FILES: Record<string, string> = {
  mpm_prefork_module: 'mod_mpm_prefork.so',
  authn_core_module: 'mod_authn_core.so',
  authz_core_module: 'mod_authz_core.so',
  authz_user_module: 'mod_authz_user.so',
  alias_module: 'mod_alias.so',
  cgi_module: 'mod_cgi.so',
  auth_openidc_module: 'mod_auth_openidc.so',
};

/** How one virtual host (one relying party, one port) authenticates at Portcullis's token endpoint. */
export type ClientAuth =
  | {
      method: 'client_secret_basic' | 'client_secret_post';
      clientId: string;
      clientSecret: string;
      /** The host's own OIDCScope, e.g. with `groups roles` for an app that reads them; else the server's. */
      scope?: string;
    }
  | { method: 'private_key_jwt'; clientId: string; keyId: string; privateKeyPem: string; requestObject?: boolean };

/**
 * mod_auth_openidc's request object (OIDCRequestObject): every parameter of the authorization request copied into a
 * JWT signed with the client's key (`iss`, `aud`, no `exp`), sent by value in `request` (RFC 9101 §5.1).
 */
const REQUEST_OBJECT = JSON.stringify({
  copy_from_request: [
    'response_type',
    'scope',
    'client_id',
    'state',
    'redirect_uri',
    'nonce',
    'code_challenge',
    'code_challenge_method',
    'prompt',
    'response_mode',
  ],
  crypto: { sign_alg: 'RS256' },
  request_object_type: 'request',
});

export interface VirtualHostInput {
  port: number;
  auth: ClientAuth;
}

export interface ApacheConfigInput {
  dir: string;
  issuer: string;
  hosts: VirtualHostInput[];
  passphrase: string;
}

/** The application's pages: the claims it received, and where a logged-out user lands. */
export const CLAIMS_PATH = '/protected/claims';
export const REDIRECT_PATH = '/protected/redirect_uri';
export const SILENT_PATH = '/protected/silent';
export const LOGGED_OUT_PATH = '/loggedout.html';

/**
 * Writes httpd.conf, the claims CGI, the logged-out page and the key files into `dir`, and returns the
 * configuration file's path. Everything the server writes (pid, error log, mutexes) stays in `dir`.
 */
export function writeApacheConfig(input: ApacheConfigInput): string {
  const { dir } = input;
  // Apache started as root serves as www-data, which must read the CGI and the pages.
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'htdocs'), { mode: 0o755 });
  mkdirSync(join(dir, 'cgi'), { mode: 0o755 });
  writeFileSync(join(dir, 'htdocs', 'loggedout.html'), '<!DOCTYPE html><title>logged out</title><p id="logged-out">logged out of the app</p>\n', {
    mode: 0o644,
  });
  // The application: the claims mod_auth_openidc hands over as environment variables, one per line.
  writeFileSync(
    join(dir, 'cgi', 'claims'),
    "#!/bin/sh\nprintf 'Content-Type: text/plain\\r\\n\\r\\n'\n/usr/bin/env | /usr/bin/grep -E '^(OIDC_CLAIM_|REMOTE_USER=)' | /usr/bin/sort\n",
    { mode: 0o755 },
  );
  const path = join(dir, 'httpd.conf');
  // It holds the client secrets and the passphrase: only the starting user (root, or the one running the tests) reads it.
  writeFileSync(path, [serverSection(input), ...input.hosts.map((host) => virtualHost(input, host))].join('\n'), { mode: 0o600 });
  return path;
}

function serverSection({ dir, issuer, hosts, passphrase }: ApacheConfigInput): string {
  return `${apacheServerBasics(dir, APACHE_MODULE_FILES)}${hosts.map((host) => `Listen 127.0.0.1:${host.port}`).join('\n')}
DocumentRoot "${dir}/htdocs"
<Directory "${dir}/htdocs">
  Require all granted
</Directory>
<Files "loggedout.html">
  ForceType text/html
</Files>
ScriptAlias ${CLAIMS_PATH} "${dir}/cgi/claims"

OIDCProviderMetadataURL ${issuer}/.well-known/openid-configuration
OIDCCryptoPassphrase ${passphrase}
OIDCScope "openid email profile phone offline_access"
OIDCPKCEMethod S256
OIDCRemoteUserClaim preferred_username
OIDCPassClaimsAs environment
OIDCInfoHook iat access_token access_token_expires id_token userinfo refresh_token
`;
}

function virtualHost({ dir }: ApacheConfigInput, { port, auth }: VirtualHostInput): string {
  const origin = `http://127.0.0.1:${port}`;
  return `<VirtualHost 127.0.0.1:${port}>
  OIDCClientID ${auth.clientId}
${clientAuthentication(dir, port, auth)}${'scope' in auth && auth.scope ? `\n  OIDCScope "${auth.scope}"` : ''}
  OIDCRedirectURI ${origin}${REDIRECT_PATH}
  OIDCDefaultLoggedOutURL ${origin}${LOGGED_OUT_PATH}
  <Location /protected>
    AuthType openid-connect
    Require valid-user
  </Location>
  # A page signing in silently (OIDC Core §3.1.2.1 prompt=none), whose error redirect carries iss.
  <Location ${SILENT_PATH}>
    OIDCPathAuthRequestParams prompt=none
  </Location>
  # mod_auth_openidc 2.4.12 takes an error redirect carrying iss (RFC 9207) for a third-party-initiated
  # login; with a default URL that starts a new, interactive sign-in instead of showing an error page.
  OIDCDefaultURL ${origin}${CLAIMS_PATH}
</VirtualHost>
`;
}

function clientAuthentication(dir: string, port: number, auth: ClientAuth): string {
  if (auth.method !== 'private_key_jwt') return `  OIDCClientSecret ${auth.clientSecret}\n  OIDCProviderTokenEndpointAuth ${auth.method}`;
  const privateKeyFile = join(dir, `app-key-${port}.pem`);
  const publicKeyFile = join(dir, `app-key-${port}.pub.pem`);
  writeFileSync(privateKeyFile, auth.privateKeyPem, { mode: 0o600 });
  writeFileSync(publicKeyFile, createPublicKey(auth.privateKeyPem).export({ type: 'spki', format: 'pem' }), { mode: 0o644 });
  // mod_auth_openidc 2.4.12 crashes at start-up with private_key_jwt unless a public key is configured as
  // well; `kid#file` puts the key id Portcullis issued into the client assertion's header.
  return `  OIDCPublicKeyFiles ${auth.keyId}#${publicKeyFile}
  OIDCPrivateKeyFiles ${auth.keyId}#${privateKeyFile}
  OIDCProviderTokenEndpointAuth private_key_jwt${auth.requestObject ? `\n  OIDCRequestObject '${REQUEST_OBJECT}'` : ''}`;
}
