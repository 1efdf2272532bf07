import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countRows, createCaller, searchEvents, useService } from '../support/fixtures.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { ENTERPRISE, USER_SCHEMA, scimTenant } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { FederatedBrowser, RP } from './support/federated-browser.js';
import { first, instant, resign } from './support/saml-forgery.js';
import type { Edit } from './support/saml-forgery.js';
import { simpleSamlPhpMissing, simpleSamlPhpSkipReason, startSimpleSamlPhp } from './support/simplesamlphp.js';
import type { SimpleSamlPhp } from './support/simplesamlphp.js';

const LANDING = `${RP}/home`;

/**
 * docs/federation.md, "IdP-initiated sign-in": SimpleSAMLphp's own IdP-initiated SSO (saml2/idp/SSOService.php?spentityid=…)
 * signs the person in at an IdP with `allowIdpInitiated` and lands on its configured application; at an IdP without
 * it the response is refused with a page and an event. Crafted responses: a replayed one, one that answers a request,
 * an expired one and one for another audience are refused, nothing signed in.
 */
describe('IdP-initiated SAML sign-in through SimpleSAMLphp', { skip: simpleSamlPhpSkipReason() }, () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let ssp: SimpleSamlPhp;
  let tenant: ScimTenant;
  let owner: { userId: string; token: string };
  let carolId = '';
  let shortLived: OidcApp;
  const idp: Record<string, { id: string; spEntityId: string; acsUrl: string }> = {};

  const createIdp = (body: Record<string, unknown>) =>
    svc.api('POST', `/management/v1/orgs/${tenant.orgId}/idps`, {
      token: owner.token,
      body: { type: 'saml', name: 'Contoso SAML', metadataUrl: ssp.metadataUrl, attributes: { externalId: 'employeeId' }, ...body },
    });

  const addIdp = async (key: string, settings: Record<string, unknown>) => {
    const res = await createIdp({ name: `Contoso SAML ${key}`, link: { by: 'externalId', from: 'employeeId' }, ...settings });
    assert.equal(res.status, 201, res.text);
    const xml = await (await fetch(res.body.spMetadataUrl)).text();
    const certificate = /<(?:\w+:)?X509Certificate[^>]*>([^<]+)</.exec(xml)![1].replace(/\s+/g, '');
    ssp.addServiceProvider({ entityId: res.body.spEntityId, acsUrl: res.body.acsUrl, certificate });
    idp[key] = { id: res.body.id, spEntityId: res.body.spEntityId, acsUrl: res.body.acsUrl };
  };

  before(async () => {
    assert.equal(simpleSamlPhpMissing(), undefined, '.ci/run installs SimpleSAMLphp');
    ssp = await startSimpleSamlPhp({
      carol: { password: 'carol-pass', attributes: { uid: ['carol'], employeeId: ['emp-carol'] } },
    });
    tenant = await scimTenant(svc);
    owner = await createCaller(svc, tenant.orgId, { org: ['ORG_OWNER'] });
    // The organization's application, whose redirect URI's origin the landing may name.
    await createOidcApp(svc, await createProject(svc, tenant.orgId), { authMethod: 'client_secret_basic' });
    await addIdp('allowing', { allowIdpInitiated: true, idpInitiatedLanding: LANDING });
    await addIdp('refusing', {});
    // An application removed later: the landing on its origin no longer holds. Every SP is added here, before the tests
    // (SimpleSAMLphp did not find one added in the middle of a test run).
    shortLived = await createOidcApp(svc, await createProject(svc, tenant.orgId), { authMethod: 'client_secret_basic' }, 'http://127.0.0.1:65531');
    await addIdp('landing-gone', { allowIdpInitiated: true, idpInitiatedLanding: 'http://127.0.0.1:65531/home' });
    const carol = await tenant.scim('POST', '/Users', {
      body: { schemas: [USER_SCHEMA, ENTERPRISE], externalId: 'emp-carol', userName: 'carol@contoso.example', active: true },
    });
    assert.equal(carol.status, 201, carol.text);
    carolId = carol.body.id;
  });

  after(() => ssp?.close());

  /** SimpleSAMLphp's IdP-initiated SSO for this IdP's SP: the person signs in there; the form it posts to the ACS. */
  const unsolicited = async (key: string) => {
    const browser = new FederatedBrowser(svc, ssp.baseUrl);
    const start = `${ssp.baseUrl}/saml2/idp/SSOService.php?${new URLSearchParams({ spentityid: idp[key].spEntityId })}`;
    const { acs, form } = await browser.samlResponseFrom({ status: 303, location: start, text: '', headers: new Headers() }, 'carol', 'carol-pass');
    assert.equal(acs.href, idp[key].acsUrl);
    assert.doesNotMatch(Buffer.from(form.SAMLResponse, 'base64').toString('utf8'), /InResponseTo/, 'SimpleSAMLphp answers no request');
    return { browser, acs, form };
  };

  it('the API: allowIdpInitiated defaults to false, needs a landing, and the landing is a path or an application of the organization', async () => {
    const read = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/idps/${idp.refusing.id}`, { token: owner.token });
    assert.equal(read.body.allowIdpInitiated, false);
    assert.equal(read.body.idpInitiatedLanding, null);
    const allowing = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/idps/${idp.allowing.id}`, { token: owner.token });
    assert.equal(allowing.body.allowIdpInitiated, true);
    assert.equal(allowing.body.idpInitiatedLanding, LANDING);

    const before = await countRows(svc, 'identity_providers');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ allowIdpInitiated: true }, /idpInitiatedLanding is required/],
      [{ allowIdpInitiated: true, idpInitiatedLanding: '//evil.example/x' }, /"\/\/host\\" is another host/],
      [{ allowIdpInitiated: true, idpInitiatedLanding: '/\\evil.example' }, /backslash/],
      [{ allowIdpInitiated: true, idpInitiatedLanding: 'https://evil.example/' }, /not the origin of a redirect URI/],
      [{ allowIdpInitiated: true, idpInitiatedLanding: 'javascript:alert(1)' }, /http or https/],
      [{ allowIdpInitiated: 'yes', idpInitiatedLanding: '/ui/account' }, /allowIdpInitiated/],
    ];
    for (const [body, message] of cases) {
      const res = await createIdp(body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.text, /idpInitiatedLanding|allowIdpInitiated/);
      assert.match(res.text, message);
    }
    assert.equal(await countRows(svc, 'identity_providers'), before, 'nothing stored');

    const patch = (body: Record<string, unknown>) =>
      svc.api('PATCH', `/management/v1/orgs/${tenant.orgId}/idps/${idp.refusing.id}`, { token: owner.token, body });
    assert.equal((await patch({ allowIdpInitiated: true })).status, 400, 'no landing yet');
    const changed = await patch({ allowIdpInitiated: true, idpInitiatedLanding: '/ui/account' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.idpInitiatedLanding, '/ui/account');
    const back = await patch({ allowIdpInitiated: false, idpInitiatedLanding: null });
    assert.equal(back.status, 200, back.text);
    assert.equal(back.body.allowIdpInitiated, false);
    const oidc = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/idps`, {
      token: owner.token,
      body: { type: 'oidc', name: 'x', issuer: 'https://93.184.215.14/', clientId: 'c', clientSecret: 's', allowIdpInitiated: true },
    });
    assert.equal(oidc.status, 400);
    assert.match(oidc.text, /allowIdpInitiated is not a field of an OpenID Connect/);
  });

  it('SimpleSAMLphp’s IdP-initiated SSO signs carol in at an IdP that allows it and lands on the configured application', async () => {
    const signIns = async () =>
      (await searchEvents(svc, { event_types: ['user.idp.login.succeeded'], aggregate_id: carolId })).filter((e) => e.payload.idpId === idp.allowing.id).length;
    const succeeded = await signIns();
    const { browser, acs, form } = await unsolicited('allowing');
    const landed = await browser.postToAcs(acs, form);
    assert.equal(landed.location, LANDING, `${landed.status} ${landed.location} ${landed.text.slice(0, 300)}`);
    const account = await browser.service.get('/ui/account');
    assert.equal(account.status, 200, 'the browser has a session');
    assert.match(account.text, /carol@contoso\.example/);
    assert.equal(await signIns(), succeeded + 1);
    const links = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/users/${carolId}/identities`, { token: owner.token });
    assert.ok(links.body.identities.some((i: { idpId: string }) => i.idpId === idp.allowing.id));

    const replay = await browser.service.post(acs.pathname, form);
    assert.equal(replay.status, 400, 'the assertion ID is accepted once');
    assert.match(replay.text, /data-error="invalid_response"/);
  });

  it('an IdP that does not allow it: SimpleSAMLphp’s IdP-initiated response is a page and an event, no session', async () => {
    const failed = (await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: idp.refusing.id })).length;
    const { browser, acs, form } = await unsolicited('refusing');
    const page = await browser.service.post(acs.pathname, form);
    assert.equal(page.status, 400);
    assert.match(page.text, /data-error="idp_initiated"/);
    assert.match(page.text, /may not start a sign-in here/);
    const events = await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: idp.refusing.id });
    assert.equal(events.length, failed + 1);
    assert.equal(events[0].payload.reason, 'idp_initiated');
    const account = await browser.service.get('/ui/account');
    assert.equal(account.status, 303, 'no session: the account page starts a sign-in');
  });

  it('a landing that is no longer an application of the organization (the application removed) refuses the response', async () => {
    const removed = await svc.api('DELETE', `/management/v1/orgs/${tenant.orgId}/projects/${shortLived.projectId}/apps/${shortLived.appId}`, {
      token: svc.adminToken,
    });
    assert.equal(removed.status, 204, removed.text);
    const { browser, acs, form } = await unsolicited('landing-gone');
    const page = await browser.service.post(acs.pathname, form);
    assert.equal(page.status, 400, `${page.status} ${page.location ?? ''}`);
    assert.match(page.text, /data-error="idp_initiated"/);
    assert.equal((await browser.service.get('/ui/account')).status, 303, 'no session');
  });

  it('crafted with the IdP’s own key: every check but InResponseTo holds; a response to a request, expired or for another audience is refused', async () => {
    const craft = async (edit: Edit) => {
      const { browser, acs, form } = await unsolicited('allowing');
      return {
        browser,
        page: await browser.service.post(acs.pathname, { SAMLResponse: resign(form.SAMLResponse, ssp.signingKeyPem, ssp.signingCertPem, edit) }),
      };
    };
    const control = await craft(() => undefined);
    assert.equal(control.page.status, 303, 'the forger’s signing is sound');
    assert.equal((await control.browser.walk(control.page)).location, LANDING);

    const cases: [string, Edit][] = [
      ['answers a request (only in the assertion)', (_doc, a) => first(a, 'SubjectConfirmationData').setAttribute('InResponseTo', '_someone-elses')],
      [
        'expired',
        (_doc, a) => {
          first(a, 'Conditions').setAttribute('NotOnOrAfter', instant(-10 * 60_000));
          first(a, 'SubjectConfirmationData').setAttribute('NotOnOrAfter', instant(-10 * 60_000));
        },
      ],
      [
        'for another audience',
        (_doc, a) => {
          const audience = first(a, 'Audience');
          while (audience.firstChild) audience.removeChild(audience.firstChild);
          audience.appendChild(audience.ownerDocument!.createTextNode('https://other-sp.example/metadata'));
        },
      ],
    ];
    for (const [what, edit] of cases) {
      const { browser, page } = await craft(edit);
      assert.equal(page.status, 400, `${what}: ${page.status} ${page.location ?? ''}`);
      assert.match(page.text, /data-error="invalid_response"/, what);
      assert.equal((await browser.service.get('/ui/account')).status, 303, `${what}: no session`);
    }

    const answering = await craft((doc) => doc.documentElement.setAttribute('InResponseTo', '_someone-elses'));
    assert.equal(answering.page.status, 400, 'a response to a request with no trip of ours: stale, not IdP-initiated');
    assert.match(answering.page.text, /data-error="invalid_request"/);
  });
});
