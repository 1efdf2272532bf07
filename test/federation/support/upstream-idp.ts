import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** A person of the upstream: the claims it asserts about them (`sub` is the key). */
export type UpstreamAccounts = Record<string, Record<string, unknown>>;

export interface UpstreamClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: string;
}

export interface UpstreamIdp {
  /** `http://localhost:<port>`: another cookie host than the service's 127.0.0.1, as a real upstream is. */
  issuer: string;
  accounts: UpstreamAccounts;
  /**
   * Registers a client: before the first request only, since the provider reads its static clients once (the
   * callback URL is known only once the IdP exists at the service, which needs this issuer).
   */
  addClient(client: UpstreamClient): void;
  close(): Promise<void>;
}

/**
 * The reference OpenID Provider (panva's oidc-provider, the library no one here wrote the checks of) run as an
 * organization's upstream IdP on a free port. Its sign-in page is the one thing written here: a form naming the
 * account and whether the person passed a second factor there (the ID token's `amr` then says `mfa`).
 */
/**
 * `host`: the issuer's host name. Cookies are shared by every port of a host: a flow that must keep this instance's
 * own session through the round trip (the account page's link) needs the upstream on another host name.
 */
export async function startUpstreamIdp(accounts: UpstreamAccounts, options: { host?: string } = {}): Promise<UpstreamIdp> {
  const clients: UpstreamClient[] = [];
  let provider: Provider | undefined;
  let issuer = '';
  const server: Server = createServer((req, res) => {
    provider ??= referenceProvider(issuer, clients, accounts);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const step = /^\/interaction\/([^/]+)(\/login)?$/.exec(url.pathname);
    if (!step) return provider!.callback()(req, res);
    void (async () => {
      const details = await provider!.interactionDetails(req, res);
      if (!step[2]) {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end(`<!DOCTYPE html><title>Upstream sign-in</title><form method="post" action="/interaction/${details.uid}/login">
<label>Account <input name="account" data-upstream-account></label><label><input type="checkbox" name="mfa" value="yes" data-upstream-mfa> second factor</label>
<button type="submit" data-upstream-submit>Sign in upstream</button></form>`);
      }
      const form = new URLSearchParams(await body(req));
      const accountId = form.get('account') ?? '';
      if (!accounts[accountId])
        return provider!.interactionFinished(req, res, { error: 'access_denied', error_description: 'unknown account' }, { mergeWithLastSubmission: false });
      const grant = new provider!.Grant({ accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      const amr = form.get('mfa') === 'yes' ? ['pwd', 'otp', 'mfa'] : ['pwd'];
      await provider!.interactionFinished(req, res, { login: { accountId, amr }, consent: { grantId } }, { mergeWithLastSubmission: false });
    })().catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://${options.host ?? 'localhost'}:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    accounts,
    addClient: (client) => {
      if (provider) throw new Error('the upstream has served a request: its clients are fixed');
      clients.push({ token_endpoint_auth_method: 'client_secret_basic', ...client });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function referenceProvider(issuer: string, clients: UpstreamClient[], accounts: UpstreamAccounts): Provider {
  return new Provider(issuer, {
    clients: clients.map((c) => ({ grant_types: ['authorization_code'], response_types: ['code'], ...c })),
    findAccount: (_ctx: unknown, sub: string) => (accounts[sub] ? { accountId: sub, claims: () => ({ sub, ...accounts[sub] }) } : undefined),
    claims: {
      openid: ['sub', 'amr'],
      profile: ['preferred_username', 'given_name', 'family_name', 'oid'],
      email: ['email', 'email_verified'],
    },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    cookies: { keys: ['upstream-test-cookie-key'] },
  } as never);
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString()));
    req.on('error', reject);
  });
}
