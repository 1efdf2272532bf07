/**
 * The peers of the OIDC benchmark: oidc-provider 9.13.3 as its README configures it, the same routes as
 * Portcullis, static clients, RS256, opaque tokens (and JWT for a resource), and a minimal login
 * interaction that checks a bcrypt hash at the same cost. No audit events, no audience rule.
 * Without a file nothing is persisted (memory adapter): the ceiling the library itself allows on this
 * machine. With one, the same provider stores through the durable SQLite adapter of ./sqlite-adapter.ts:
 * the durable peer, the anchor of the token figures.
 *
 *   node dist/bench/peers/raw-provider.js <port> <bcryptCost> [<sqliteFile>]
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import bcrypt from 'bcrypt';
import Provider from 'oidc-provider';
import { OIDC_ROUTES } from '../../src/oidc/provider/oidc.routes.js';
import { sqliteAdapter } from './sqlite-adapter.js';

const port = Number(process.argv[2]);
const cost = Number(process.argv[3] ?? 10);
const sqliteFile = process.argv[4];
const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };
const passwordHash = bcrypt.hashSync('bench-password', cost);
const RESOURCE = 'urn:bench:api';

const provider = new Provider(issuer, {
  // undefined: oidc-provider's own memory adapter.
  adapter: sqliteFile ? sqliteAdapter(sqliteFile) : undefined,
  jwks: { keys: [jwk] },
  cookies: { keys: ['bench-cookie-key'] },
  clients: [
    { client_id: 'machine', client_secret: 'machine-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [] },
    { client_id: 'machine-jwt', client_secret: 'machine-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [] },
    { client_id: 'api', client_secret: 'api-secret', grant_types: [], redirect_uris: [], response_types: [] },
    {
      client_id: 'web',
      client_secret: 'web-secret',
      redirect_uris: ['http://127.0.0.1:1/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
  ],
  // The same routes as Portcullis, so one load script serves both.
  routes: OIDC_ROUTES,
  // As Portcullis: a refresh token is used once (the refresh scenario chains the rotated ones).
  rotateRefreshToken: true,
  findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub, preferred_username: 'bench@bench.localhost' }) }),
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: (_ctx: unknown, client: { clientId: string }) => (client.clientId.startsWith('machine') ? RESOURCE : undefined),
      getResourceServerInfo: (_ctx: unknown, _resource: string, client: { clientId: string }) => ({
        scope: 'openid',
        audience: RESOURCE,
        accessTokenFormat: client.clientId === 'machine-jwt' ? 'jwt' : 'opaque',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
  loadExistingGrant: async (ctx: any) => {
    const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
    // What was asked for (`openid`, or `openid offline_access` for the refresh scenario's logins).
    grant.addOIDCScope(String(ctx.oidc.params.scope ?? 'openid'));
    await grant.save();
    return grant;
  },
  interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/ui/login/${interaction.uid}` },
});

const callback = provider.callback();
createServer(async (req, res) => {
  const url = req.url ?? '/';
  if (!url.startsWith('/ui/login/')) return callback(req, res);
  try {
    const details = await provider.interactionDetails(req, res);
    // `prompt=consent` (asked for with `offline_access`) is answered at once, as Portcullis's login UI does.
    if (details.prompt.name === 'consent') {
      await provider.interactionFinished(req, res, { consent: {} }, { mergeWithLastSubmission: true });
      return;
    }
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<form method="post" action="/ui/login/${details.uid}"><input name="csrf" value="x"><input name="loginName"><input name="password"><button>go</button></form>`,
      );
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString());
    if (!(await bcrypt.compare(form.get('password') ?? '', passwordHash))) {
      res.writeHead(401).end();
      return;
    }
    await provider.interactionFinished(req, res, { login: { accountId: 'bench-user' } }, { mergeWithLastSubmission: false });
  } catch (error) {
    res.writeHead(400).end(String(error));
  }
}).listen(port, '127.0.0.1');
