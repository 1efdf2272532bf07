import assert from 'node:assert/strict';
import { createSign, randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { createCaller, searchEvents, useService } from '../support/fixtures.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { ENTERPRISE, USER_SCHEMA, scimTenant } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { FederatedBrowser } from './support/federated-browser.js';
import { attackerCredentials, instant } from './support/saml-forgery.js';
import { simpleSamlPhpMissing, simpleSamlPhpSkipReason, startSimpleSamlPhp } from './support/simplesamlphp.js';
import type { SimpleSamlPhp } from './support/simplesamlphp.js';

const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

/**
 * docs/federation.md, "Single logout": a sign-out here of a session that came through SimpleSAMLphp sends it a signed
 * LogoutRequest by HTTP-Redirect and goes on once its signed LogoutResponse is back; SimpleSAMLphp's own logout sends
 * a LogoutRequest that ends the session here and is answered with a signed LogoutResponse. Crafted LogoutRequests
 * (another key, another issuer, unsigned, another destination) are refused and the session is kept.
 */
describe('SAML single logout with SimpleSAMLphp', { skip: simpleSamlPhpSkipReason() }, () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let ssp: SimpleSamlPhp;
  let tenant: ScimTenant;
  let owner: { userId: string; token: string };
  let app: OidcApp;
  let carolId = '';
  let idpId = '';
  let sloUrl = '';

  before(async () => {
    assert.equal(simpleSamlPhpMissing(), undefined, '.ci/run installs SimpleSAMLphp');
    ssp = await startSimpleSamlPhp({ carol: { password: 'carol-pass', attributes: { uid: ['carol'], employeeId: ['emp-carol'] } } });
    tenant = await scimTenant(svc);
    owner = await createCaller(svc, tenant.orgId, { org: ['ORG_OWNER'] });
    app = await createOidcApp(svc, await createProject(svc, tenant.orgId), { authMethod: 'client_secret_basic' });
    const res = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/idps`, {
      token: owner.token,
      body: {
        type: 'saml',
        name: 'Contoso SAML',
        metadataUrl: ssp.metadataUrl,
        attributes: { externalId: 'employeeId' },
        link: { by: 'externalId', from: 'employeeId' },
      },
    });
    assert.equal(res.status, 201, res.text);
    idpId = res.body.id;
    sloUrl = res.body.acsUrl.replace(/\/acs$/, '/slo');
    const xml = await (await fetch(res.body.spMetadataUrl)).text();
    assert.match(xml, new RegExp(`SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${sloUrl}"`));
    const certificate = /<(?:\w+:)?X509Certificate[^>]*>([^<]+)</.exec(xml)![1].replace(/\s+/g, '');
    ssp.addServiceProvider({ entityId: res.body.spEntityId, acsUrl: res.body.acsUrl, certificate, sloUrl });
    const read = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/idps/${idpId}`, { token: owner.token });
    assert.equal(read.body.sloUrl, `${ssp.baseUrl}/saml2/idp/SingleLogoutService.php`, 'read from the metadata');
    const carol = await tenant.scim('POST', '/Users', {
      body: { schemas: [USER_SCHEMA, ENTERPRISE], externalId: 'emp-carol', userName: 'carol@contoso.example', active: true },
    });
    assert.equal(carol.status, 201, carol.text);
    carolId = carol.body.id;
  });

  after(() => ssp?.close());

  /** Carol signs in to the application through SimpleSAMLphp: the browser holds a session here and one there. */
  const signedIn = async () => {
    const browser = new FederatedBrowser(svc, ssp.baseUrl);
    const { acs, form } = await browser.samlResponseFrom(await browser.choose(await browser.authorize(app), idpId), 'carol', 'carol-pass');
    const claims = await browser.tokens(app, await browser.postToAcs(acs, form));
    assert.equal(claims.sub, carolId);
    assert.equal((await browser.service.get('/ui/account')).status, 200, 'a session here');
    return browser;
  };

  /** A LogoutRequest by HTTP-Redirect as the IdP would send it, signed with `keyPem` (or not at all). */
  const logoutRequest = async (edit: { issuer?: string; destination?: string; keyPem?: string | null; issuedMs?: number } = {}) => {
    const identities = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/users/${carolId}/identities`, { token: owner.token });
    const nameId = identities.body.identities[0].subject as string;
    const xml =
      `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ` +
      `ID="_${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${instant(edit.issuedMs ?? 0)}" Destination="${edit.destination ?? sloUrl}">` +
      `<saml:Issuer>${edit.issuer ?? ssp.entityId}</saml:Issuer><saml:NameID Format="${PERSISTENT}">${nameId}</saml:NameID></samlp:LogoutRequest>`;
    const message = `SAMLRequest=${encodeURIComponent(deflateRawSync(Buffer.from(xml)).toString('base64'))}&RelayState=crafted&SigAlg=${encodeURIComponent(RSA_SHA256)}`;
    const key = edit.keyPem === undefined ? ssp.signingKeyPem : edit.keyPem;
    if (key === null) return `${new URL(sloUrl).pathname}?${message}`;
    const signature = createSign('RSA-SHA256').update(message).sign(key, 'base64');
    return `${new URL(sloUrl).pathname}?${message}&Signature=${encodeURIComponent(signature)}`;
  };

  it('a sign-out here sends SimpleSAMLphp a signed LogoutRequest and goes on once its LogoutResponse is back; both sessions end', async () => {
    const browser = await signedIn();
    const confirm = await browser.service.get(`/oidc/v1/end_session?client_id=${encodeURIComponent(app.clientId)}`);
    assert.equal(confirm.status, 200, confirm.text.slice(0, 300));
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.text)![1];
    const signOut = await browser.service.post('/oidc/v1/end_session/confirm', { xsrf, logout: 'yes' });
    assert.equal(signOut.status, 303);
    const toIdp = new URL(signOut.location!);
    assert.equal(`${toIdp.origin}${toIdp.pathname}`, `${ssp.baseUrl}/saml2/idp/SingleLogoutService.php`);
    assert.ok(
      toIdp.searchParams.get('SAMLRequest') && toIdp.searchParams.get('Signature') && toIdp.searchParams.get('RelayState'),
      'signed, with a RelayState',
    );

    const end = await browser.walk(signOut);
    assert.equal(end.status, 200, `${end.status} ${end.location} ${end.text.slice(0, 400)}`);
    assert.match(end.text, /data-logged-out="true"/, 'on to where the sign-out went');
    assert.equal((await browser.service.get('/ui/account')).status, 303, 'no session here');
    const again = await browser.walk(await browser.choose(await browser.authorize(app), idpId));
    assert.match(again.text, /name="AuthState"/, 'SimpleSAMLphp asks for the password again: its session ended too');
  });

  it('a LogoutResponse signed by another key is refused: the sign-out here stands, and the browser hears the IdP’s answer was not verified', async () => {
    const browser = await signedIn();
    const confirm = await browser.service.get(`/oidc/v1/end_session?client_id=${encodeURIComponent(app.clientId)}`);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.text)![1];
    const signOut = await browser.service.post('/oidc/v1/end_session/confirm', { xsrf, logout: 'yes' });
    const sent = new URL(signOut.location!);
    const requestXml = inflateRawSync(Buffer.from(sent.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
    const requestId = /ID="([^"]+)"/.exec(requestXml)![1];
    const xml =
      `<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ` +
      `ID="_${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${instant(0)}" Destination="${sloUrl}" InResponseTo="${requestId}">` +
      `<saml:Issuer>${ssp.entityId}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status></samlp:LogoutResponse>`;
    const message =
      `SAMLResponse=${encodeURIComponent(deflateRawSync(Buffer.from(xml)).toString('base64'))}` +
      `&RelayState=${encodeURIComponent(sent.searchParams.get('RelayState')!)}&SigAlg=${encodeURIComponent(RSA_SHA256)}`;
    const signature = createSign('RSA-SHA256').update(message).sign(attackerCredentials().keyPem, 'base64');
    const page = await browser.service.get(`${new URL(sloUrl).pathname}?${message}&Signature=${encodeURIComponent(signature)}`);
    assert.equal(page.status, 400, `${page.status} ${page.location ?? ''}`);
    assert.match(page.text, /could not be verified/);
    assert.equal((await browser.service.get('/ui/account')).status, 303, 'the session here ended all the same');
  });

  it('SimpleSAMLphp’s own logout sends a LogoutRequest that ends the session here, answered with a signed LogoutResponse', async () => {
    const browser = await signedIn();
    const terminated = async () =>
      (await searchEvents(svc, { event_types: ['session.terminated'] })).filter((e) => e.payload.reason === 'saml_logout' && e.payload.idpId === idpId).length;
    const before = await terminated();
    let start = await browser.upstream.get(`/saml2/idp/SingleLogoutService.php?${new URLSearchParams({ ReturnTo: ssp.metadataUrl })}`);
    // SimpleSAMLphp's own steps (resumelogout.php) until it sends the browser here.
    for (let i = 0; i < 5 && start.location?.startsWith(ssp.baseUrl); i++) {
      const next = new URL(start.location);
      start = await browser.upstream.get(next.pathname + next.search);
    }
    const toUs = new URL(start.location ?? '', ssp.baseUrl);
    assert.equal(`${toUs.origin}${toUs.pathname}`, sloUrl, `${start.status} ${start.location} ${start.text.slice(0, 300)}`);
    const answer = await browser.service.get(toUs.pathname + toUs.search);
    assert.equal(answer.status, 303, answer.text.slice(0, 300));
    const back = new URL(answer.location!);
    assert.equal(`${back.origin}${back.pathname}`, `${ssp.baseUrl}/saml2/idp/SingleLogoutService.php`);
    assert.ok(back.searchParams.get('SAMLResponse') && back.searchParams.get('Signature'), 'a signed LogoutResponse');
    const end = await browser.walk(answer);
    assert.equal(end.status, 200, `SimpleSAMLphp took the answer and went on to ReturnTo: ${end.status} ${end.text.slice(0, 300)}`);
    assert.match(end.text, /EntityDescriptor/);
    assert.equal((await browser.service.get('/ui/account')).status, 303, 'no session here');
    assert.equal(await terminated(), before + 1);
  });

  it('crafted LogoutRequests: another key, another issuer, unsigned or for another destination are refused and the session is kept; the IdP’s own ends it', async () => {
    const browser = await signedIn();
    const attacker = attackerCredentials();
    const cases: [string, Parameters<typeof logoutRequest>[0]][] = [
      ['signed by another key', { keyPem: attacker.keyPem }],
      ['from another issuer', { issuer: 'https://evil.example/idp' }],
      ['unsigned', { keyPem: null }],
      ['for another destination', { destination: 'https://other-sp.example/slo' }],
    ];
    for (const [what, edit] of cases) {
      const page = await browser.service.get(await logoutRequest(edit));
      assert.equal(page.status, 400, `${what}: ${page.status} ${page.location ?? ''}`);
      assert.equal((await browser.service.get('/ui/account')).status, 200, `${what}: the session is kept`);
    }
    const stray = await browser.service.get(`${new URL(sloUrl).pathname}?SAMLResponse=abc&RelayState=nothing&SigAlg=x&Signature=y`);
    assert.equal(stray.status, 400, 'a LogoutResponse no sign-out awaits');

    const genuine = await browser.service.get(await logoutRequest());
    assert.equal(genuine.status, 303, genuine.text.slice(0, 300));
    const back = new URL(genuine.location!);
    assert.equal(back.searchParams.get('RelayState'), 'crafted', 'RelayState returned as sent');
    assert.equal((await browser.service.get('/ui/account')).status, 303, 'the IdP’s own LogoutRequest ended the session');
  });

  it('a LogoutRequest without NotOnOrAfter is used once and only while fresh: a replayed or too old one is refused and the session is kept', async () => {
    const first = await signedIn();
    const fresh = await logoutRequest();
    assert.equal((await first.service.get(fresh)).status, 303, 'a fresh LogoutRequest ends the session');
    assert.equal((await first.service.get('/ui/account')).status, 303);

    const second = await signedIn();
    const replayed = await second.service.get(fresh);
    assert.equal(replayed.status, 400, `the same LogoutRequest again: ${replayed.status} ${replayed.location ?? ''}`);
    assert.match(replayed.text, /could not be verified/);
    assert.equal((await second.service.get('/ui/account')).status, 200, 'a replayed LogoutRequest ends nothing');

    // docs/federation.md, "Single logout": issued at most ten minutes (plus three of clock skew) ago.
    const stale = await second.service.get(await logoutRequest({ issuedMs: -14 * 60 * 1000 }));
    assert.equal(stale.status, 400, `a LogoutRequest issued 14 minutes ago: ${stale.status} ${stale.location ?? ''}`);
    assert.equal((await second.service.get('/ui/account')).status, 200, 'a stale LogoutRequest ends nothing');
    const future = await second.service.get(await logoutRequest({ issuedMs: 5 * 60 * 1000 }));
    assert.equal(future.status, 400, `a LogoutRequest issued 5 minutes from now: ${future.status} ${future.location ?? ''}`);
    assert.equal((await second.service.get('/ui/account')).status, 200, 'a LogoutRequest from the future ends nothing');

    const skewed = await second.service.get(await logoutRequest({ issuedMs: -2 * 60 * 1000 }));
    assert.equal(skewed.status, 303, `a LogoutRequest issued two minutes ago still works: ${skewed.status} ${skewed.text.slice(0, 300)}`);
    assert.equal((await second.service.get('/ui/account')).status, 303, 'and ends the session');
  });
});
