import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, UnsecuredJWT, exportJWK, generateKeyPair } from 'jose';

/** How the forging upstream gets its ID token wrong (one per sign-in); `honest` is the control. */
export type Forgery = 'honest' | 'alg-none' | 'other-key' | 'wrong-iss' | 'wrong-aud' | 'wrong-nonce' | 'expired' | 'future';

export interface ForgingUpstream {
  issuer: string;
  clientId: string;
  forgery: Forgery;
  /** What each call to its token endpoint carried: the Authorization header (Basic credentials decoded: RFC 6749 §2.3.1 form-encodes them) and the form body. */
  tokenRequests: string[];
  close(): Promise<void>;
}

/**
 * An attacker's OpenID Provider: it answers discovery, authorization and the token endpoint as a real one does,
 * but signs each ID token as `forgery` says — unsigned, by a key it does not publish, for another issuer or
 * audience, with another nonce, expired or not yet valid. The service must refuse every one but the honest one.
 */
export async function startForgingUpstream(clientId: string): Promise<ForgingUpstream> {
  const published = await generateKeyPair('RS256');
  const unpublished = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(published.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const nonces = new Map<string, string>();
  const state: ForgingUpstream = { issuer: '', clientId, forgery: 'honest', tokenRequests: [], close: async () => undefined };

  const idToken = async (nonce: string): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    const f = state.forgery;
    const claims = { sub: `forged-${f}`, preferred_username: `forged.${f}.${now}`, nonce: f === 'wrong-nonce' ? 'another-nonce' : nonce };
    if (f === 'alg-none')
      return new UnsecuredJWT(claims)
        .setIssuer(state.issuer)
        .setAudience(clientId)
        .setIssuedAt(now)
        .setExpirationTime(now + 300)
        .encode();
    const iat = f === 'future' ? now + 3600 : f === 'expired' ? now - 7200 : now;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(f === 'wrong-iss' ? 'http://localhost:1/evil' : state.issuer)
      .setAudience(f === 'wrong-aud' ? 'someone-else' : clientId)
      .setIssuedAt(iat)
      .setExpirationTime(f === 'expired' ? now - 3600 : iat + 300)
      .sign(f === 'other-key' ? unpublished.privateKey : published.privateKey);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', state.issuer);
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/.well-known/openid-configuration') {
      return json({
        issuer: state.issuer,
        authorization_endpoint: `${state.issuer}/authorize`,
        token_endpoint: `${state.issuer}/token`,
        jwks_uri: `${state.issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        // It even claims to allow `none`: the service's own allow-list decides.
        id_token_signing_alg_values_supported: ['RS256', 'none'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
    if (url.pathname === '/jwks') return json({ keys: [jwk] });
    if (url.pathname === '/authorize') {
      const code = `code-${Math.random().toString(36).slice(2)}`;
      nonces.set(code, url.searchParams.get('nonce') ?? '');
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      return res.writeHead(303, { location: back.href }).end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        const authorization = req.headers.authorization ?? '';
        const credentials = authorization.startsWith('Basic ') ? decodeURIComponent(Buffer.from(authorization.slice(6), 'base64').toString()) : authorization;
        state.tokenRequests.push(`${credentials} ${body}`);
        const code = new URLSearchParams(body).get('code') ?? '';
        void idToken(nonces.get(code) ?? '').then((id_token) => json({ access_token: 'forged-access-token', token_type: 'Bearer', expires_in: 300, id_token }));
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.issuer = `http://localhost:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
