import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeProtectedHeader } from 'jose';
import { createClient } from '../support/http.js';
import type { ServiceProcess } from '../support/process.js';
import { freePort } from '../support/service.js';
import type { TestService } from '../support/service.js';
import { PATCH_OP, scimTenant } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { PASSWORD, createApiApp, createHuman, createMachine, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { CookieJar } from './cookie-jar.js';
import type { Hop } from './cookie-jar.js';
import { eventually, processSetup, remoteService } from './faults.helpers.js';
import type { ProcessSetup } from './faults.helpers.js';

const REDIRECT = 'http://127.0.0.1:65530/cb';

/**
 * Two service processes on different ports over one database (same DATA_DIR material and
 * PUBLIC_URL, as behind a load balancer without sticky sessions). Whatever one does, the other honours:
 * a login goes on across them, tokens introspect on either, and a revocation, a key rotation and a
 * deactivation done through one take effect on the other within seconds.
 */
describe('faults: two service processes over one database', () => {
  let setup: ProcessSetup;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let remote: TestService;
  let tenant: ScimTenant;
  let web: OidcApp;
  let api: OidcApp;
  let user: { userId: string; loginName: string };

  before(async () => {
    const portA = await freePort();
    setup = await processSetup({ PUBLIC_URL: `http://127.0.0.1:${portA}` });
    a = await setup.spawn({}, { port: portA });
    b = await setup.spawn();
    remote = remoteService(a.url, setup.adminToken());
    tenant = await scimTenant(remote);
    const project = await createProject(remote, tenant.orgId);
    web = await createOidcApp(remote, project, { authMethod: 'client_secret_basic' });
    api = await createApiApp(remote, project);
    const human = await createHuman(remote, tenant.orgId);
    const domain = (await remote.api('GET', '/admin/v1/orgs', { token: remote.adminToken })).body.orgs.find(
      (o: { id: string }) => o.id === tenant.orgId,
    ).primaryDomain;
    user = { userId: human.userId, loginName: `${human.userName}@${domain}` };
  });
  after(() => setup?.cleanup());

  const basic = (app: { clientId: string; clientSecret?: string }) =>
    `Basic ${Buffer.from(`${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret!)}`).toString('base64')}`;

  async function form(service: ServiceProcess, path: string, fields: Record<string, string>, client: { clientId: string; clientSecret?: string }) {
    return createClient(service.url)('POST', path, {
      rawBody: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client) },
    });
  }

  const introspect = async (service: ServiceProcess, token: string) => {
    const res = await form(service, '/oauth/v2/introspect', { token }, api);
    assert.equal(res.status, 200, res.text);
    return res.body as { active: boolean };
  };

  const authorizeUrl = (extra: Record<string, string> = {}) =>
    `/oauth/v2/authorize?${new URLSearchParams({ client_id: web.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 'two', ...extra })}`;

  /** Follows redirects, alternating between the processes, until the relying party's redirect URI is reached. */
  async function untilCallback(jar: CookieJar, first: Hop, services: ServiceProcess[]): Promise<URL> {
    let hop = first;
    for (let i = 0; i < 10; i++) {
      assert.ok(hop.status >= 300 && hop.status < 400 && hop.location, `expected a redirect, got ${hop.status} ${hop.text.slice(0, 300)}`);
      if (hop.location.startsWith(REDIRECT)) return new URL(hop.location);
      hop = await jar.get(services[i % services.length].url, hop.location);
    }
    assert.fail('no callback after 10 redirects');
  }

  async function redeem(service: ServiceProcess, callback: URL) {
    const code = callback.searchParams.get('code');
    assert.ok(code, `callback without a code: ${callback}`);
    const res = await form(service, '/oauth/v2/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, web);
    assert.equal(res.status, 200, res.text);
    return res.body as { access_token: string; id_token: string };
  }

  it('a login started on one process continues on the other, and its session is known to both', async () => {
    const jar = new CookieJar();
    const started = await jar.get(a.url, authorizeUrl());
    assert.equal(started.status, 303, started.text.slice(0, 300));
    const page = await jar.get(a.url, started.location!);
    assert.equal(page.status, 200, page.text.slice(0, 300));
    const action = /action="([^"]+)"/.exec(page.text)?.[1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
    assert.ok(action && csrf, 'the login page has a form with a CSRF token');
    // The password is submitted to the other process, which resumes the interaction A started.
    const submitted = await jar.login(b.url, action.replaceAll('&amp;', '&'), { csrf, loginName: user.loginName, password: PASSWORD });
    const callback = await untilCallback(jar, submitted, [b, a]);
    const tokens = await redeem(b, callback);
    assert.equal((await introspect(a, tokens.access_token)).active, true, 'a token B issued introspects on A');

    // Single sign-on: the session cookie A and B set works on either process without a new login.
    for (const service of [a, b]) {
      const silent = await jar.get(service.url, authorizeUrl({ prompt: 'none' }));
      const again = await untilCallback(jar, silent, [service]);
      assert.equal(again.searchParams.get('error'), null, `prompt=none on ${service.url}: ${again}`);
      await redeem(service === a ? b : a, again);
    }
  });

  it('a token issued by one introspects on the other; revoked through one, it is inactive on the other within seconds', async () => {
    const machine = await createMachine(remote, tenant.orgId);
    const issued = await form(
      a,
      '/oauth/v2/token',
      { grant_type: 'client_credentials', scope: `urn:portcullis:iam:org:project:id:${web.projectId}:aud` },
      machine,
    );
    assert.equal(issued.status, 200, issued.text);
    const token: string = issued.body.access_token;
    assert.equal((await introspect(b, token)).active, true);
    const revoked = await form(a, '/oauth/v2/revoke', { token }, machine);
    assert.equal(revoked.status, 200, revoked.text);
    await eventually('the revoked token is inactive on B', async () => ((await introspect(b, token)).active === false ? true : undefined), 10_000);
  });

  it('a key rotation through one process: the other signs with the new key within seconds and publishes both', async (t) => {
    const machine = await createMachine(remote, tenant.orgId, 'jwt');
    const jwtFrom = async (service: ServiceProcess) => {
      const res = await form(service, '/oauth/v2/token', { grant_type: 'client_credentials' }, machine);
      assert.equal(res.status, 200, res.text);
      return res.body.access_token as string;
    };
    const oldKid = decodeProtectedHeader(await jwtFrom(b)).kid;
    const rotated = await remote.api('POST', '/admin/v1/keys/rotate', { token: remote.adminToken, body: {} });
    assert.equal(rotated.status, 200, rotated.text);
    const newKid: string = rotated.body.activeKeyId;
    assert.notEqual(newKid, oldKid);
    const waited = Date.now();
    await eventually('B signs with the rotated key', async () => (decodeProtectedHeader(await jwtFrom(b)).kid === newKid ? true : undefined), 20_000, 250);
    const jwks = (await (await fetch(`${b.url}/oauth/v2/keys`)).json()) as { keys: { kid: string }[] };
    assert.deepEqual(
      [oldKid, newKid].filter((kid) => !jwks.keys.some((k) => k.kid === kid)),
      [],
      'B publishes the old and the new key',
    );
    t.diagnostic(`B signed with the rotated key ${Date.now() - waited} ms after the rotation`);
  });

  it('a user deactivated through one process can no longer use the other', async (t) => {
    const jar = new CookieJar();
    const started = await jar.get(b.url, authorizeUrl());
    const page = await jar.get(b.url, started.location!);
    const action = /action="([^"]+)"/.exec(page.text)![1].replaceAll('&amp;', '&');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1];
    const tokens = await redeem(b, await untilCallback(jar, await jar.login(b.url, action, { csrf, loginName: user.loginName, password: PASSWORD }), [b]));
    assert.equal((await introspect(b, tokens.access_token)).active, true);

    const deactivated = await tenant.scim('PATCH', `/Users/${user.userId}`, {
      body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] },
    });
    assert.ok([200, 204].includes(deactivated.status), deactivated.text);
    await eventually(
      "the deactivated user's token is inactive on B",
      async () => ((await introspect(b, tokens.access_token)).active === false ? true : undefined),
      10_000,
    );
    const userinfo = await fetch(`${b.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(userinfo.status, 401, 'userinfo on B refuses the deactivated user');
    const silent = await jar.get(b.url, authorizeUrl({ prompt: 'none' }));
    // A session naming a deactivated user is no session (this answered 500 until found here).
    const callback = await untilCallback(jar, silent, [b]);
    assert.equal(callback.searchParams.get('error'), 'login_required', 'B answers the silent login with login_required');
  });
});
