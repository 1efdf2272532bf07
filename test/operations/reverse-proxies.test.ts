import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LoginClient } from '../attack/support/login-client.js';
import { PASSWORD, createHuman, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { unique } from '../support/fixtures.js';
import { freePort, startService } from '../support/service.js';
import type { TestService } from '../support/service.js';
import { throwAwayCa } from '../support/throw-away-ca.js';
import { HAPROXY, NGINX, startHaproxy, startNginx } from './support/reverse-proxy.js';
import type { ProxySite, RunningProxy } from './support/reverse-proxy.js';

const RP = 'http://127.0.0.1:65530';
const PER_IP = 3;

/** GET over TLS, trusting the throw-away CA, with the headers a client (or an attacker) chooses. */
function httpsGet(url: string, ca: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The recipes of docs/operations.md, "Behind a reverse proxy", run as written (deploy/nginx, deploy/haproxy):
 * TLS ends at the proxy, the service on loopback behind it, one proxy at a time on PUBLIC_URL's port.
 */
describe('operations: behind nginx and HAProxy with TLS, as docs/operations.md shows them', () => {
  const missing = [NGINX, HAPROXY].filter((path) => !existsSync(path));
  let svc: TestService;
  let site: ProxySite;
  let ca: string;
  let publicUrl: string;
  let app: OidcApp;
  let loginName: string;
  const tlsCheck = process.env.NODE_TLS_REJECT_UNAUTHORIZED;

  before(async () => {
    if (missing.length) return;
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-proxy-'));
    const pki = throwAwayCa(dir);
    ca = readFileSync(pki.ca, 'utf8');
    const port = await freePort();
    publicUrl = `https://127.0.0.1:${port}`;
    svc = await startService({ PUBLIC_URL: publicUrl, LOGIN_RATE_LIMIT_PER_IP: String(PER_IP), LOGIN_RATE_LIMIT_PER_LOGIN_NAME: '1000' });
    site = { port, upstreamPort: Number(new URL(svc.url).port), cert: pki.cert, key: pki.key, dir };
    const project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
    const user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
    // The login UI's client speaks fetch, which takes no CA of its own: the proxy's certificate is the throw-away CA's.
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  });
  after(async () => {
    if (tlsCheck === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = tlsCheck;
    await svc?.close();
    if (site) rmSync(site.dir, { recursive: true, force: true });
  });

  for (const [name, start] of [
    ['nginx', startNginx],
    ['HAProxy', startHaproxy],
  ] as const) {
    describe(`behind ${name}`, { skip: missing.length ? `${missing.join(', ')} not installed` : false }, () => {
      let proxy: RunningProxy;
      before(async () => {
        // Each proxy starts with no counted failures: the per-IP count of the one before is the same address's.
        await svc.dataSource.query('DELETE FROM login_attempts');
        proxy = await start(site);
      });
      after(() => proxy?.stop());

      it('the discovery document over TLS names PUBLIC_URL, whatever Host, X-Forwarded-Host and -Proto say', async () => {
        const res = await httpsGet(`${publicUrl}/.well-known/openid-configuration`, ca, {
          host: 'evil.example',
          'x-forwarded-host': 'evil.example',
          'x-forwarded-proto': 'http',
          forwarded: 'host=evil.example;proto=http',
        });
        assert.equal(res.status, 200, `${res.body.slice(0, 300)}\n${proxy.log()}`);
        const discovery = JSON.parse(res.body);
        assert.equal(discovery.issuer, publicUrl);
        for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'userinfo_endpoint'])
          assert.ok(discovery[key].startsWith(`${publicUrl}/`), `${key}: ${discovery[key]}`);
        assert.ok(!res.body.includes('evil.example'), 'no forged host in the document');
      });

      it('a sign-in through the proxy gets Secure cookies and redirects to PUBLIC_URL', async () => {
        const client = new LoginClient(publicUrl, { 'x-forwarded-host': 'evil.example' });
        const { uid, csrf } = await client.startLogin({
          client_id: app.clientId,
          redirect_uri: `${RP}/cb`,
          response_type: 'code',
          scope: 'openid',
          state: 'st',
        });
        const done = await client.follow(await client.post(`/ui/login/${uid}/login`, { csrf, loginName, password: PASSWORD }));
        assert.equal(new URL(done.location ?? '', publicUrl).origin, RP, `${done.status} ${done.text.slice(0, 300)}`);
        assert.ok(client.setCookies.length > 0 && client.setCookies.every((cookie) => /;\s*secure/i.test(cookie)), client.setCookies.join('\n'));
      });

      it("the per-IP limit counts the proxy's address: a forged X-Forwarded-For opens no new allowance", async () => {
        const statuses: number[] = [];
        for (let i = 0; i < PER_IP; i++) {
          const client = new LoginClient(publicUrl, { 'x-forwarded-for': `203.0.113.${i + 1}` });
          const { uid, csrf } = await client.startLogin({
            client_id: app.clientId,
            redirect_uri: `${RP}/cb`,
            response_type: 'code',
            scope: 'openid',
            state: 'st',
          });
          statuses.push((await client.post(`/ui/login/${uid}/login`, { csrf, loginName: unique('nobody'), password: 'wrong' })).status);
        }
        assert.deepEqual(statuses, Array(PER_IP).fill(401));
        const other = new LoginClient(publicUrl, { 'x-forwarded-for': '198.51.100.7' });
        const { uid, csrf } = await other.startLogin({
          client_id: app.clientId,
          redirect_uri: `${RP}/cb`,
          response_type: 'code',
          scope: 'openid',
          state: 'st',
        });
        const refused = await other.post(`/ui/login/${uid}/login`, { csrf, loginName, password: PASSWORD });
        assert.equal(refused.status, 429, 'every client behind the proxy shares its address, whatever X-Forwarded-For it sends');
      });
    });
  }
});

/** POST a JSON body over TLS from a loopback address of the client's own (each "client" its own address). */
function httpsPostFrom(localAddress: string, url: string, ca: string, headers: Record<string, string>, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca, localAddress, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/**
 * With TRUSTED_PROXIES naming the proxy (docs/operations.md, "Behind a reverse proxy"), each client behind it is
 * counted by its own address, read from the X-Forwarded-For the recipe's proxy appends, and a forged header opens no
 * new allowance. The per-address limit of dynamic registration (RFC 7591) shows it: it counts before anything else.
 */
describe('operations: TRUSTED_PROXIES names the proxy, and each client behind it is counted by its own address', () => {
  const missing = [NGINX, HAPROXY].filter((path) => !existsSync(path));
  const PER_MINUTE = 2;
  let svc: TestService;
  let site: ProxySite;
  let ca: string;
  let publicUrl: string;

  before(async () => {
    if (missing.length) return;
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-trusted-proxy-'));
    const pki = throwAwayCa(dir);
    ca = readFileSync(pki.ca, 'utf8');
    const port = await freePort();
    publicUrl = `https://127.0.0.1:${port}`;
    svc = await startService({ PUBLIC_URL: publicUrl, TRUSTED_PROXIES: '127.0.0.1', DYNAMIC_REGISTRATION_RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) });
    site = { port, upstreamPort: Number(new URL(svc.url).port), cert: pki.cert, key: pki.key, dir };
  });
  after(async () => {
    await svc?.close();
    if (site) rmSync(site.dir, { recursive: true, force: true });
  });

  let round = 0;
  for (const [name, start] of [
    ['nginx', startNginx],
    ['HAProxy', startHaproxy],
  ] as const) {
    it(`behind ${name}: a client's own allowance, a forged X-Forwarded-For still counted under the client's address`, {
      skip: missing.length ? `${missing.join(', ')} not installed` : false,
    }, async () => {
      const proxy = await start(site);
      try {
        round++;
        const register = (from: string, headers: Record<string, string> = {}) =>
          httpsPostFrom(from, `${publicUrl}/oauth/v2/register`, ca, headers, { redirect_uris: ['http://127.0.0.1/cb'], client_name: 'probe' });
        // Addresses of this round only: the limit's window is a minute, longer than the test.
        const first = `127.0.${round}.10`;
        const second = `127.0.${round}.11`;
        const used: number[] = [];
        for (let i = 0; i < PER_MINUTE; i++) used.push(await register(first));
        // No organization is open to anonymous registration: refused, but counted first.
        assert.deepEqual(used, Array(PER_MINUTE).fill(401), proxy.log());
        assert.equal(await register(first), 429, 'the first client has used its allowance');
        assert.equal(await register(first, { 'x-forwarded-for': '203.0.113.77' }), 429, 'a forged X-Forwarded-For is left of the address the proxy appends');
        assert.equal(await register(second), 401, 'another client behind the same proxy has an allowance of its own');
      } finally {
        await proxy.stop();
      }
    });
  }
});
