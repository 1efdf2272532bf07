import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import type { CryptoKey, JWK } from 'jose';

/** One stream-creation request a receiver made. */
export interface StreamRequest {
  authorization: string;
  body: Record<string, any>;
}

/** One token request a receiver made (RFC 6749 §4.4). */
export interface TokenRequest {
  authorization: string;
  form: Record<string, string>;
}

/**
 * A Shared Signals transmitter written from the specifications with jose, independent of Portcullis: it publishes
 * its configuration (SSF 1.0 §7.1) and key set, issues a token of scope `ssf.manage` by client credentials to the
 * client it was started for (RFC 6749 §4.4, HTTP Basic), takes stream creations with such a token only (keeping the push
 * endpoint and authorization header the receiver gave), and signs whatever SET a test asks for — well-formed or not.
 */
export class SetTransmitter {
  readonly streams: StreamRequest[] = [];
  readonly tokenRequests: TokenRequest[] = [];
  private readonly issued = new Set<string>();
  private constructor(
    readonly issuer: string,
    readonly audience: string,
    private readonly key: CryptoKey,
    private readonly close_: () => Promise<void>,
  ) {}

  /** `audience` is the receiver's client id here, and `secret` its client secret. */
  static async start(audience: string, secret: string): Promise<SetTransmitter> {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'ES256', use: 'sig' };
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let self: SetTransmitter | undefined;
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = new URL(req.url ?? '/', issuer).pathname;
        const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (req.method === 'GET' && path === '/.well-known/ssf-configuration')
          return json(200, {
            spec_version: '1_0',
            issuer,
            jwks_uri: `${issuer}/jwks`,
            delivery_methods_supported: ['urn:ietf:rfc:8935'],
            configuration_endpoint: `${issuer}/streams`,
          });
        if (req.method === 'GET' && path === '/.well-known/openid-configuration')
          return json(200, { issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks` });
        if (req.method === 'GET' && path === '/jwks') return json(200, { keys: [jwk] });
        const authorization = String(req.headers.authorization ?? '');
        if (req.method === 'POST' && path === '/token') {
          const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
          self!.tokenRequests.push({ authorization, form });
          const basic = `Basic ${Buffer.from(`${encodeURIComponent(audience)}:${encodeURIComponent(secret)}`).toString('base64')}`;
          if (authorization !== basic) return json(401, { error: 'invalid_client' });
          if (form.grant_type !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' });
          if (form.scope !== 'ssf.manage') return json(400, { error: 'invalid_scope' });
          const token = `tx-token-${randomBytes(16).toString('hex')}`;
          self!.issued.add(token);
          return json(200, { access_token: token, token_type: 'Bearer', expires_in: 300, scope: 'ssf.manage' });
        }
        if (req.method === 'POST' && path === '/streams') {
          if (!self!.issued.has(authorization.replace(/^Bearer /, ''))) return json(401, { error: 'invalid_token' });
          self!.streams.push({ authorization: String(req.headers.authorization ?? ''), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          return json(201, { stream_id: `stream-${self!.streams.length}`, iss: issuer, aud: audience });
        }
        res.writeHead(404).end();
      });
    });
    self = new SetTransmitter(issuer, audience, privateKey, async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    return self;
  }

  /** A SET (RFC 8417) signed with this transmitter's key; `claims` override any member. */
  async set(event: string, sub: string, claims: Record<string, unknown> = {}): Promise<string> {
    const base = {
      iss: this.issuer,
      aud: this.audience,
      iat: Math.floor(Date.now() / 1000),
      jti: `jti-${Math.random().toString(36).slice(2)}`,
      sub_id: { format: 'iss_sub', iss: this.issuer, sub },
      events: { [event]: { event_timestamp: Math.floor(Date.now() / 1000) } },
    };
    return new SignJWT({ ...base, ...claims }).setProtectedHeader({ alg: 'ES256', kid: 'test-key', typ: 'secevent+jwt' }).sign(this.key);
  }

  /** The same claims with `alg: none` (RFC 7519 §6): an unsigned SET. */
  unsigned(claims: Record<string, unknown>): string {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${part({ alg: 'none', typ: 'secevent+jwt' })}.${part(claims)}.`;
  }

  close(): Promise<void> {
    return this.close_();
  }
}
