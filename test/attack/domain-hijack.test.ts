import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCaller, createOrg, unique, useService } from '../support/fixtures.js';
import { createProject, PASSWORD } from '../oidc/support/oidc-fixtures.js';
import { startUpstreamIdp } from '../federation/support/upstream-idp.js';
import type { UpstreamIdp } from '../federation/support/upstream-idp.js';
import { LoginClient } from './support/login-client.js';

const RP = 'http://127.0.0.1:65530';

/**
 * Home-realm discovery across organizations (docs/federation.md, "Organization domains"). The attack: an
 * ORG_OWNER of organization B names organization A's primary domain, or the instance owner's
 * `default.localhost`, as a domain of B's IdP; A's people and the instance owner, typing their login names at a
 * first-party application (the console, /ui/account), were sent to B's upstream with `login_hint`, where a
 * look-alike password page waits. An IdP may claim only verified domains of its own organization, and a domain
 * never leads away from the organization that owns it.
 */
describe('an organization cannot claim another organization’s login domain', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let upstream: UpstreamIdp;
  let orgA: { id: string; primaryDomain: string };
  let orgB: { id: string; primaryDomain: string };
  let ownerB: { userId: string; token: string };
  let firstParty: string;

  before(async () => {
    upstream = await startUpstreamIdp({});
    orgA = await createOrg(svc);
    orgB = await createOrg(svc);
    ownerB = await createCaller(svc, orgB.id, { org: ['ORG_OWNER'] });
    // A first-party application (apiAccess), as the console and the account page are: it serves every organization.
    const project = await createProject(svc, orgA.id);
    const app = await svc.api('POST', `/management/v1/orgs/${orgA.id}/projects/${project.projectId}/apps/oidc`, {
      token: svc.adminToken,
      body: {
        name: 'first-party',
        redirectUris: [`${RP}/cb`],
        responseTypes: ['code'],
        grantTypes: ['authorization_code'],
        authMethod: 'none',
        devMode: true,
        apiAccess: true,
      },
    });
    assert.equal(app.status, 201, app.text);
    firstParty = app.body.clientId;
  });

  after(() => upstream?.close());

  const idpOfB = (domains: string[], clientId = unique('b-client')) => ({
    type: 'oidc',
    name: unique('look-alike'),
    issuer: upstream.issuer,
    clientId,
    clientSecret: 'b-secret',
    domains,
  });

  /** Types a login name at the first-party application's login page; the answer of the login form. */
  const typeAtFirstParty = async (loginName: string) => {
    const browser = new LoginClient(svc.url);
    const { uid, csrf } = await browser.startLogin({
      client_id: firstParty,
      redirect_uri: `${RP}/cb`,
      response_type: 'code',
      scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    return browser.post(`/ui/login/${uid}/login`, { csrf, loginName, password: '' });
  };

  const sentUpstream = (res: { status: number; location?: string }) => res.status === 303 && (res.location ?? '').startsWith(upstream.issuer);

  it('an IdP of B naming A’s primary domain or default.localhost is refused with 400 naming domains; nothing is stored', async () => {
    const idps = await svc.dataSource.query('SELECT COUNT(*) AS n FROM identity_providers WHERE org_id = ?', [orgB.id]);
    for (const domain of [orgA.primaryDomain, `default.${svc.config.instanceDomain}`, 'never-verified.example']) {
      const res = await svc.api('POST', `/management/v1/orgs/${orgB.id}/idps`, { token: ownerB.token, body: idpOfB([domain]) });
      assert.equal(res.status, 400, `${domain}: ${res.status} ${res.text}`);
      assert.equal(res.body.details?.[0]?.field, 'domains', res.text);
    }
    assert.deepEqual(await svc.dataSource.query('SELECT COUNT(*) AS n FROM identity_providers WHERE org_id = ?', [orgB.id]), idps);
    assert.deepEqual(
      await svc.dataSource.query('SELECT domain FROM idp_domains WHERE domain IN (?, ?)', [orgA.primaryDomain, `default.${svc.config.instanceDomain}`]),
      [],
    );
  });

  it('nor by PATCH: B’s IdP keeps its domains', async () => {
    const created = await svc.api('POST', `/management/v1/orgs/${orgB.id}/idps`, { token: ownerB.token, body: idpOfB([]) });
    assert.equal(created.status, 201, created.text);
    const res = await svc.api('PATCH', `/management/v1/orgs/${orgB.id}/idps/${created.body.id}`, {
      token: ownerB.token,
      body: { domains: [orgA.primaryDomain] },
    });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(await svc.dataSource.query('SELECT domain FROM idp_domains WHERE idp_id = ?', [created.body.id]), []);
  });

  it('a claim on A’s or the instance owner’s domain that reached the database anyway leads nowhere: the login names stay here', async () => {
    // As a database written before domains were verified might hold it.
    const created = await svc.api('POST', `/management/v1/orgs/${orgB.id}/idps`, { token: ownerB.token, body: idpOfB([], 'b-legacy') });
    assert.equal(created.status, 201, created.text);
    upstream.addClient({ client_id: 'b-legacy', client_secret: 'b-secret', redirect_uris: [created.body.callbackUrl] });
    const admin = `admin@default.${svc.config.instanceDomain}`;
    const personOfA = await svc.api('POST', `/management/v1/orgs/${orgA.id}/users/human`, {
      token: svc.adminToken,
      body: {
        userName: unique('ann'),
        profile: { firstName: 'Ann', lastName: 'A' },
        email: { email: `${unique('ann')}@example.com`, isEmailVerified: true },
        password: PASSWORD,
      },
    });
    assert.equal(personOfA.status, 201, personOfA.text);
    for (const domain of [orgA.primaryDomain, `default.${svc.config.instanceDomain}`]) {
      await svc.dataSource.query('DELETE FROM idp_domains WHERE domain = ?', [domain]);
      await svc.dataSource.query('INSERT INTO idp_domains (domain, idp_id) VALUES (?, ?)', [domain, created.body.id]);
    }
    for (const loginName of [admin, `${personOfA.body.userName ?? 'x'}@${orgA.primaryDomain}`, `nobody@${orgA.primaryDomain}`]) {
      const res = await typeAtFirstParty(loginName);
      assert.ok(!sentUpstream(res), `${loginName} was sent to B's upstream: ${res.status} ${res.location}`);
      assert.notEqual(res.status, 303, `${loginName}: the password step answers here: ${res.status} ${res.location}`);
    }
  });

  it('a verified domain of B leads to B’s IdP, but never a login name of a user of A', async () => {
    const domain = `${unique('b-corp')}.example`;
    const added = await svc.api('POST', `/management/v1/orgs/${orgB.id}/domains`, { token: ownerB.token, body: { domain } });
    assert.equal(added.status, 201, added.text);
    // The instance owner vouches for it (this instance's DNS knows no such name).
    assert.equal((await svc.api('POST', `/management/v1/orgs/${orgB.id}/domains/${domain}/verify`, { token: svc.adminToken, body: {} })).status, 200);
    const created = await svc.api('POST', `/management/v1/orgs/${orgB.id}/idps`, { token: ownerB.token, body: idpOfB([domain], 'b-verified') });
    assert.equal(created.status, 201, created.text);
    upstream.addClient({ client_id: 'b-verified', client_secret: 'b-secret', redirect_uris: [created.body.callbackUrl] });
    // A person of A whose user name is an address at B's domain (user names may contain `@`).
    const carol = `carol@${domain}`;
    const human = await svc.api('POST', `/management/v1/orgs/${orgA.id}/users/human`, {
      token: svc.adminToken,
      body: {
        userName: carol,
        profile: { firstName: 'Carol', lastName: 'A' },
        email: { email: `${unique('carol')}@example.com`, isEmailVerified: true },
        password: PASSWORD,
      },
    });
    assert.equal(human.status, 201, human.text);
    const stays = await typeAtFirstParty(carol);
    assert.ok(!sentUpstream(stays), `A's user was sent to B's upstream: ${stays.status} ${stays.location}`);
    const goes = await typeAtFirstParty(`dave@${domain}`);
    assert.ok(sentUpstream(goes), `a name of B's verified domain goes to B's IdP: ${goes.status} ${goes.location}`);
    assert.equal(new URL(goes.location!).searchParams.get('login_hint'), `dave@${domain}`);
  });
});
