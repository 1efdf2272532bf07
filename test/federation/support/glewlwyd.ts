import { generateKeyPairSync } from 'node:crypto';
import { GLEWLWYD_ADMIN, glewlwydCall, glewlwydMissing, glewlwydSession, launchGlewlwyd } from '../../../bench/peers/glewlwyd.js';
import { inCi } from '../../support/apache.js';

/** Outside CI, a reason to skip when Debian's glewlwyd is missing (with CI=true the suite fails instead). */
export function glewlwydSkipReason(): string | false {
  const missing = glewlwydMissing();
  if (!missing || inCi()) return false;
  console.log(`# SKIPPED: ${missing}`);
  return missing;
}

export interface GlewlwydUpstream {
  /** The OpenID Connect issuer: `<url>/api/oidc`, where the plugin also serves its discovery document. */
  issuer: string;
  /** A confidential client (its secret a glewlwyd password) allowed the code flow and the given token endpoint methods. */
  addClient(client: { clientId: string; secret: string; redirectUri: string; authMethods: string[] }): Promise<void>;
  addUser(username: string, password: string): Promise<void>;
  /**
   * What glewlwyd's login page does, over its API: signs `username` in, grants the client `openid`, and goes on to the
   * authorization URL with `g_continue`; the answer is glewlwyd's redirect to the client's redirect URI.
   */
  authorize(authorizationUrl: string, clientId: string, username: string, password: string): Promise<{ status: number; location?: string }>;
  stop(): Promise<void>;
}

/**
 * Debian's glewlwyd 2.7 (an OpenID Provider no one here wrote; started as the benchmark's peer is) with an OpenID
 * Connect plugin as an upstream of Portcullis needs it: the issuer its discovery names, RS256, PKCE allowed.
 */
export async function startGlewlwydUpstream(): Promise<GlewlwydUpstream> {
  const running = await launchGlewlwyd('test-glewlwyd-');
  const issuer = `${running.url}/api/oidc`;
  try {
    const admin = await glewlwydSession(running.url, GLEWLWYD_ADMIN.username, GLEWLWYD_ADMIN.password);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const parameters = {
      iss: issuer,
      'jwt-type': 'rsa',
      'jwt-key-size': '256',
      'jwks-private': JSON.stringify({ keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'upstream', alg: 'RS256' }] }),
      'access-token-duration': 3600,
      'refresh-token-duration': 1209600,
      'code-duration': 600,
      'auth-type-code-enabled': true,
      'allowed-scope': ['openid'],
      'pkce-allowed': true,
    };
    await glewlwydCall(running.url, admin, 'POST', '/api/mod/plugin/', {
      module: 'oidc',
      name: 'oidc',
      display_name: 'OpenID Connect',
      enabled: true,
      parameters,
    });
    return {
      issuer,
      addClient: ({ clientId, secret, redirectUri, authMethods }) =>
        glewlwydCall(running.url, admin, 'POST', '/api/client/', {
          client_id: clientId,
          name: clientId,
          confidential: true,
          password: secret,
          enabled: true,
          redirect_uri: [redirectUri],
          authorization_type: ['code'],
          token_endpoint_auth_method: authMethods,
          scope: ['openid'],
        }),
      addUser: (username, password) =>
        glewlwydCall(running.url, admin, 'POST', '/api/user/', { username, password, name: username, enabled: true, scope: ['openid'] }),
      authorize: async (authorizationUrl, clientId, username, password) => {
        const session = await glewlwydSession(running.url, username, password);
        await glewlwydCall(running.url, session, 'PUT', `/api/auth/grant/${encodeURIComponent(clientId)}`, { scope: 'openid' });
        // Without `g_continue` the authorization endpoint always shows the login page first (its login.html adds it).
        const res = await fetch(`${authorizationUrl}&g_continue`, { headers: { cookie: session }, redirect: 'manual' });
        await res.body?.cancel();
        return { status: res.status, location: res.headers.get('location') ?? undefined };
      },
      stop: running.stop,
    };
  } catch (error) {
    await running.stop();
    throw error;
  }
}
