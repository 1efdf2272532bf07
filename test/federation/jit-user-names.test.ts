import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countRows, createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { HOSTILE_NAMES } from '../support/hostile-user-names.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { FederatedBrowser } from './support/federated-browser.js';
import { simpleSamlPhpSkipReason, startSimpleSamlPhp } from './support/simplesamlphp.js';
import type { SimpleSamlPhp } from './support/simplesamlphp.js';
import { startUpstreamIdp } from './support/upstream-idp.js';
import type { UpstreamIdp } from './support/upstream-idp.js';

const SECRET = 'jit-names-client-secret';

/**
 * docs/federation.md, "Who the upstream identity is": a user created just in time takes the user name rule of every
 * other surface (docs/product-rules.md, "Domain"). An upstream (the reference oidc-provider, SimpleSAMLphp) whose
 * user name claim or attribute breaks it gets the "no account" page and a `user_name_invalid` event; nothing is created.
 */
const refusedAsInvalid = async (svc: ReturnType<typeof useService>, idpId: string) =>
  (await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: idpId })).filter((e) => e.payload.reason === 'user_name_invalid').length;

describe('JIT user names from an upstream OpenID Provider', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let upstream: UpstreamIdp;
  let app: OidcApp;
  let orgId: string;
  let idpId: string;
  const names = Object.entries(HOSTILE_NAMES).map(([kind, hostile]) => ({ kind, subject: unique('sub'), userName: hostile(unique('jit')) }));

  before(async () => {
    upstream = await startUpstreamIdp({
      'upn-sub': { preferred_username: `${unique('upn')}@fabrikam.example`, email: 'upn@fabrikam.example', email_verified: true },
      ...Object.fromEntries(names.map((n) => [n.subject, { preferred_username: n.userName, email: 'hostile@fabrikam.example', email_verified: true }])),
    });
    orgId = (await createOrg(svc)).id;
    const owner = await createCaller(svc, orgId, { org: ['ORG_OWNER'] });
    app = await createOidcApp(svc, await createProject(svc, orgId), { authMethod: 'client_secret_basic' });
    const res = await svc.api('POST', `/management/v1/orgs/${orgId}/idps`, {
      token: owner.token,
      body: { type: 'oidc', name: 'Fabrikam', issuer: upstream.issuer, clientId: 'portcullis-jit-names', clientSecret: SECRET, jit: true },
    });
    assert.equal(res.status, 201, res.text);
    idpId = res.body.id;
    upstream.addClient({ client_id: 'portcullis-jit-names', client_secret: SECRET, redirect_uris: [res.body.callbackUrl] });
  });
  after(() => upstream?.close());

  const signIn = async (subject: string) => {
    const browser = new FederatedBrowser(svc, upstream.issuer);
    return { browser, page: await browser.signInUpstream(await browser.choose(await browser.authorize(app), idpId), subject) };
  };

  it('the control: a preferred_username with an @domain suffix (a UPN) creates the user', async () => {
    const { browser, page } = await signIn('upn-sub');
    const claims = await browser.tokens(app, page);
    const user = await svc.api('GET', `/management/v1/orgs/${orgId}/users/${claims.sub}`, { token: svc.adminToken });
    assert.equal(user.body.userName, upstream.accounts['upn-sub'].preferred_username);
  });

  for (const { kind, subject, userName } of names) {
    it(`refuses a preferred_username with ${kind}: the no-account page, the event, nothing created`, async () => {
      const users = await countRows(svc, 'users');
      const links = await countRows(svc, 'user_identities');
      const refusedBefore = await refusedAsInvalid(svc, idpId);
      const { page } = await signIn(subject);
      assert.equal(page.status, 403, page.text.slice(0, 300));
      assert.match(page.text, /data-error="no_account"/);
      assert.equal(await countRows(svc, 'users'), users);
      assert.equal(await countRows(svc, 'user_identities'), links);
      const [stored] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM users WHERE user_name = ?', [userName]);
      assert.equal(Number(stored.n), 0);
      assert.equal(await refusedAsInvalid(svc, idpId), refusedBefore + 1, 'one user.idp.login.failed event with reason user_name_invalid');
    });
  }
});

/** The same rule for a SAML upstream's `uid` attribute (the names a PHP configuration holds: no control characters). */
describe('JIT user names from an upstream SAML IdP', { skip: simpleSamlPhpSkipReason() }, () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let ssp: SimpleSamlPhp;
  let app: OidcApp;
  let idpId: string;
  const names = ['a zero-width space', 'full-width letters', 'a compatibility ligature'].map((kind, i) => ({
    kind,
    login: `hostile${i}`,
    userName: HOSTILE_NAMES[kind](unique('saml')),
  }));

  before(async () => {
    ssp = await startSimpleSamlPhp(
      Object.fromEntries(names.map((n) => [n.login, { password: 'hostile-pass', attributes: { uid: [n.userName], mail: ['hostile@contoso.example'] } }])),
    );
    const orgId = (await createOrg(svc)).id;
    const owner = await createCaller(svc, orgId, { org: ['ORG_OWNER'] });
    app = await createOidcApp(svc, await createProject(svc, orgId), { authMethod: 'client_secret_basic' });
    const res = await svc.api('POST', `/management/v1/orgs/${orgId}/idps`, {
      token: owner.token,
      body: { type: 'saml', name: 'Contoso SAML', metadataUrl: ssp.metadataUrl, attributes: { userName: 'uid', email: 'mail' }, jit: true },
    });
    assert.equal(res.status, 201, res.text);
    idpId = res.body.id;
    const xml = await (await fetch(res.body.spMetadataUrl)).text();
    const certificate = /<(?:\w+:)?X509Certificate[^>]*>([^<]+)</.exec(xml)![1].replace(/\s+/g, '');
    ssp.addServiceProvider({ entityId: res.body.spEntityId, acsUrl: res.body.acsUrl, certificate });
  });
  after(() => ssp?.close());

  for (const { kind, login, userName } of names) {
    it(`refuses a uid with ${kind}: the no-account page, the event, nothing created`, async () => {
      const users = await countRows(svc, 'users');
      const refusedBefore = await refusedAsInvalid(svc, idpId);
      const browser = new FederatedBrowser(svc, ssp.baseUrl);
      const { acs, form } = await browser.samlResponseFrom(await browser.choose(await browser.authorize(app), idpId), login, 'hostile-pass');
      const page = await browser.postToAcs(acs, form);
      assert.equal(page.status, 403, page.text.slice(0, 300));
      assert.match(page.text, /data-error="no_account"/);
      assert.equal(await countRows(svc, 'users'), users);
      const [stored] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM users WHERE user_name = ?', [userName]);
      assert.equal(Number(stored.n), 0);
      assert.equal(await refusedAsInvalid(svc, idpId), refusedBefore + 1, 'one user.idp.login.failed event with reason user_name_invalid');
    });
  }
});
