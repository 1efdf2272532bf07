import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countRows, createCaller, searchEvents, useService } from '../support/fixtures.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { ENTERPRISE, USER_SCHEMA, scimTenant } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { FederatedBrowser } from './support/federated-browser.js';
import { attackerCredentials, first, instant, resign } from './support/saml-forgery.js';
import type { Edit } from './support/saml-forgery.js';
import { simpleSamlPhpMissing, simpleSamlPhpSkipReason, startSimpleSamlPhp } from './support/simplesamlphp.js';
import type { SimpleSamlPhp } from './support/simplesamlphp.js';

const ACR_MFA = 'urn:portcullis:acr:mfa';

/**
 * docs/federation.md, "SAML": an organization's people sign in through Debian's SimpleSAMLphp (started here under PHP's
 * built-in server): SP metadata per IdP, a signed AuthnRequest by HTTP-Redirect, the response by HTTP-POST to the
 * ACS, linked to the SCIM-provisioned user by an attribute, REFEDS MFA counted where trusted; a tampered, replayed,
 * re-targeted, IdP-initiated or DTD-carrying response is refused with a page and an event, nothing created.
 */
describe('SAML sign-in through SimpleSAMLphp', { skip: simpleSamlPhpSkipReason() }, () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let ssp: SimpleSamlPhp;
  let tenant: ScimTenant;
  let app: OidcApp;
  let owner: { userId: string; token: string };
  const idp: Record<string, { id: string; acsUrl: string }> = {};

  const addIdp = async (key: string, settings: Record<string, unknown>, options: { mfa?: boolean; encrypt?: boolean } = {}) => {
    const res = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/idps`, {
      token: owner.token,
      body: {
        type: 'saml',
        name: `Contoso SAML ${key}`,
        metadataUrl: ssp.metadataUrl,
        attributes: { userName: 'uid', email: 'mail', externalId: 'employeeId' },
        ...settings,
      },
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['acsUrl', 'id', 'spEntityId', 'spMetadataUrl']);
    const metadata = await fetch(res.body.spMetadataUrl);
    assert.equal(metadata.status, 200);
    assert.match(metadata.headers.get('content-type') ?? '', /application\/samlmetadata\+xml/);
    const xml = await metadata.text();
    assert.ok(xml.includes(`entityID="${res.body.spEntityId}"`) && xml.includes(`Location="${res.body.acsUrl}"`), xml);
    const certificate = /<(?:\w+:)?X509Certificate[^>]*>([^<]+)</.exec(xml)![1].replace(/\s+/g, '');
    ssp.addServiceProvider({ entityId: res.body.spEntityId, acsUrl: res.body.acsUrl, certificate, mfa: options.mfa, encrypt: options.encrypt });
    idp[key] = { id: res.body.id, acsUrl: res.body.acsUrl };
  };

  before(async () => {
    const missing = simpleSamlPhpMissing();
    assert.equal(missing, undefined, `${missing}: .ci/run installs it`);
    ssp = await startSimpleSamlPhp({
      carol: { password: 'carol-pass', attributes: { uid: ['carol'], mail: ['carol@contoso.example'], employeeId: ['emp-carol'] } },
      dave: { password: 'dave-pass', attributes: { uid: ['dave'], mail: ['dave@contoso.example'], employeeId: ['emp-dave'] } },
    });
    tenant = await scimTenant(svc);
    owner = await createCaller(svc, tenant.orgId, { org: ['ORG_OWNER'] });
    app = await createOidcApp(svc, await createProject(svc, tenant.orgId), { authMethod: 'client_secret_basic' });
    await addIdp('link', { link: { by: 'externalId', from: 'employeeId' } });
    await addIdp('mfa', { link: { by: 'externalId', from: 'employeeId' }, mfa: 'upstream' }, { mfa: true });
    await addIdp('encrypted', { link: { by: 'externalId', from: 'employeeId' } }, { encrypt: true });
    const carol = await tenant.scim('POST', '/Users', {
      body: {
        schemas: [USER_SCHEMA, ENTERPRISE],
        externalId: 'emp-carol',
        userName: 'carol@contoso.example',
        active: true,
        name: { givenName: 'Carol', familyName: 'Shaw' },
        emails: [{ primary: true, type: 'work', value: 'carol@contoso.example' }],
      },
    });
    assert.equal(carol.status, 201, carol.text);
    idp.carol = { id: carol.body.id, acsUrl: '' };
  });

  after(() => ssp?.close());

  const respond = async (key: string, user: string, password: string) => {
    const browser = new FederatedBrowser(svc, ssp.baseUrl);
    const toIdp = await browser.choose(await browser.authorize(app), idp[key].id);
    return { browser, ...(await browser.samlResponseFrom(toIdp, user, password)) };
  };

  it('signs in the SCIM-provisioned user linked by an attribute: a signed AuthnRequest, the response at the ACS, amr fed', async () => {
    const { browser, acs, form } = await respond('link', 'carol', 'carol-pass');
    assert.equal(acs.href, idp.link.acsUrl);
    const claims = await browser.tokens(app, await browser.postToAcs(acs, form));
    assert.equal(claims.sub, idp.carol.id);
    assert.deepEqual(claims.amr, ['fed']);
    const identities = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/users/${idp.carol.id}/identities`, { token: owner.token });
    assert.equal(identities.body.identities.length, 1);
    assert.equal(identities.body.identities[0].idpId, idp.link.id);
    assert.ok(identities.body.identities[0].subject.length > 10, 'the persistent NameID is the subject');
  });

  it('counts REFEDS MFA as the second factor on an IdP trusted for it (policy required)', async () => {
    const policy = (mfa: string) =>
      svc.api('PUT', `/management/v1/orgs/${tenant.orgId}/login-policy`, { token: owner.token, body: { mfa, passkeys: true, allowRegistration: false } });
    assert.equal((await policy('required')).status, 200);
    try {
      const { browser, acs, form } = await respond('mfa', 'carol', 'carol-pass');
      const claims = await browser.tokens(app, await browser.postToAcs(acs, form));
      assert.equal(claims.acr, ACR_MFA);
      assert.deepEqual([...(claims.amr as string[])].sort(), ['fed', 'mfa']);
    } finally {
      await policy('optional');
    }
  });

  it('refuses a replayed response, a response posted to another IdP’s ACS, and one without our RelayState', async () => {
    const { browser, acs, form } = await respond('link', 'carol', 'carol-pass');
    await browser.tokens(app, await browser.postToAcs(acs, form));
    const replay = await browser.service.post(acs.pathname, form);
    assert.equal(replay.status, 400, 'the round trip was answered once');

    const second = await respond('link', 'carol', 'carol-pass');
    const mixedUp = await second.browser.service.post(new URL(idp.mfa.acsUrl).pathname, second.form);
    assert.equal(mixedUp.status, 400, 'the RelayState of one IdP is nothing at another');
    const unsolicited = await second.browser.service.post(second.acs.pathname, { SAMLResponse: second.form.SAMLResponse });
    assert.equal(unsolicited.status, 400, 'IdP-initiated: refused');
    const oldAssertion = await second.browser.service.post(second.acs.pathname, { SAMLResponse: form.SAMLResponse, RelayState: second.form.RelayState });
    assert.equal(oldAssertion.status, 400, 'an earlier response answers another AuthnRequest (InResponseTo)');
    assert.match(oldAssertion.text, /data-error="invalid_response"/);
  });

  it('refuses a tampered response and one carrying a DTD; nothing is created or linked, each is an event', async () => {
    const users = await countRows(svc, 'users');
    const links = await countRows(svc, 'user_identities');
    const failedBefore = (await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: idp.link.id })).length;

    const tampered = await respond('link', 'dave', 'dave-pass');
    const xml = Buffer.from(tampered.form.SAMLResponse, 'base64').toString('utf8');
    assert.ok(xml.includes('emp-dave'));
    const forged = { ...tampered.form, SAMLResponse: Buffer.from(xml.replace('emp-dave', 'emp-carol')).toString('base64') };
    const page = await tampered.browser.service.post(tampered.acs.pathname, forged);
    assert.equal(page.status, 400, page.text.slice(0, 300));
    assert.match(page.text, /data-error="invalid_response"/);

    const withDtd = await respond('link', 'dave', 'dave-pass');
    const dtdXml = Buffer.from(withDtd.form.SAMLResponse, 'base64')
      .toString('utf8')
      .replace(/^(<\?xml[^>]*\?>)?/, '$1<!DOCTYPE r [<!ENTITY x "emp-carol">]>');
    const dtd = await withDtd.browser.service.post(withDtd.acs.pathname, { ...withDtd.form, SAMLResponse: Buffer.from(dtdXml).toString('base64') });
    assert.equal(dtd.status, 400);

    assert.equal(await countRows(svc, 'users'), users);
    assert.equal(await countRows(svc, 'user_identities'), links);
    const failed = await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: idp.link.id });
    assert.equal(failed.length, failedBefore + 2);
    assert.ok(failed.every((e) => e.payload.reason === 'invalid_response' || e.payload.reason === 'no_account'));
    assert.ok(
      failed.every((e) => !JSON.stringify(e.payload).includes('PHN')),
      'no response in an event',
    );
  });

  it('decrypts an encrypted assertion with this SP’s key for the IdP', async () => {
    const { browser, acs, form } = await respond('encrypted', 'carol', 'carol-pass');
    assert.match(Buffer.from(form.SAMLResponse, 'base64').toString('utf8'), /EncryptedAssertion/);
    const claims = await browser.tokens(app, await browser.postToAcs(acs, form));
    assert.equal(claims.sub, idp.carol.id);
  });

  it('acting as the IdP with its own key, one check at a time: the re-signed response signs in; expired, early, another audience, recipient, destination or issuer are refused', async () => {
    const control = await respond('link', 'carol', 'carol-pass');
    const resigned = resign(control.form.SAMLResponse, ssp.signingKeyPem, ssp.signingCertPem);
    const claims = await control.browser.tokens(app, await control.browser.postToAcs(control.acs, { ...control.form, SAMLResponse: resigned }));
    assert.equal(claims.sub, idp.carol.id, 'the forger’s signing is sound: what follows is refused for its one change');

    const setText = (element: Element, value: string) => {
      while (element.firstChild) element.removeChild(element.firstChild);
      element.appendChild(element.ownerDocument!.createTextNode(value));
    };
    const cases: [string, Edit][] = [
      [
        'expired',
        (_doc, a) => {
          first(a, 'Conditions').setAttribute('NotOnOrAfter', instant(-10 * 60_000));
          first(a, 'SubjectConfirmationData').setAttribute('NotOnOrAfter', instant(-10 * 60_000));
        },
      ],
      ['not valid yet', (_doc, a) => first(a, 'Conditions').setAttribute('NotBefore', instant(10 * 60_000))],
      ['for another audience', (_doc, a) => setText(first(a, 'Audience'), 'https://other-sp.example/metadata')],
      ['for another recipient', (_doc, a) => first(a, 'SubjectConfirmationData').setAttribute('Recipient', 'https://other-sp.example/acs')],
      ['to another destination', (doc) => doc.documentElement.setAttribute('Destination', 'https://other-sp.example/acs')],
      [
        'from another issuer',
        (doc, a) => {
          setText(first(a, 'Issuer'), 'https://evil.example/idp');
          const outer = Array.from(doc.documentElement.childNodes).find((n) => (n as Element).localName === 'Issuer') as Element | undefined;
          if (outer) setText(outer, 'https://evil.example/idp');
        },
      ],
    ];
    for (const [what, edit] of cases) {
      const { browser, acs, form } = await respond('link', 'carol', 'carol-pass');
      const page = await browser.service.post(acs.pathname, { ...form, SAMLResponse: resign(form.SAMLResponse, ssp.signingKeyPem, ssp.signingCertPem, edit) });
      assert.equal(page.status, 400, `${what}: ${page.status} ${page.location ?? ''}`);
      assert.match(page.text, /data-error="invalid_response"/, what);
    }
  });

  it('refuses an unsigned response, one re-signed by another key, a wrapped one and an oversized one', async () => {
    const attacker = attackerCredentials();
    const links = await countRows(svc, 'user_identities');
    const post = async (make: (genuine: string) => string) => {
      const { browser, acs, form } = await respond('link', 'dave', 'dave-pass');
      return browser.service.post(acs.pathname, { ...form, SAMLResponse: make(form.SAMLResponse) });
    };
    const toCarol: Edit = (doc) => {
      for (const value of Array.from(doc.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:assertion', 'AttributeValue'))) {
        if (value.textContent === 'emp-dave') value.firstChild!.nodeValue = 'emp-carol';
      }
    };
    const unsigned = await post((genuine) => {
      const xml = Buffer.from(genuine, 'base64')
        .toString('utf8')
        .replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/g, '');
      return Buffer.from(xml.replace('emp-dave', 'emp-carol')).toString('base64');
    });
    assert.equal(unsigned.status, 400, 'unsigned');
    const otherKey = await post((genuine) => resign(genuine, attacker.keyPem, attacker.certPem, toCarol));
    assert.equal(otherKey.status, 400, 're-signed by a key not in the metadata');
    const wrapped = await post((genuine) => {
      // Signature wrapping: a forged copy of the assertion first, the signed original moved behind it.
      const xml = Buffer.from(genuine, 'base64').toString('utf8');
      const original = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(xml)![0];
      const forged = original
        .replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/, '')
        .replace('emp-dave', 'emp-carol')
        .replace(/ID="[^"]+"/, 'ID="_forged"');
      return Buffer.from(xml.replace(original, `${forged}${original}`)).toString('base64');
    });
    assert.equal(wrapped.status, 400, 'wrapped');
    const oversized = await post((genuine) => `${genuine}${'A'.repeat(256 * 1024)}`);
    assert.ok(oversized.status === 400 || oversized.status === 413, `oversized: ${oversized.status}`);
    assert.equal(await countRows(svc, 'user_identities'), links, 'nothing linked');
  });

  it('a test sign-in through SimpleSAMLphp shows what a sign-in would do, changing nothing', async () => {
    const links = await countRows(svc, 'user_identities');
    const started = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/idps/${idp.link.id}/test`, { token: owner.token });
    assert.equal(started.status, 201, started.text);
    const browser = new FederatedBrowser(svc, ssp.baseUrl);
    const { acs, form } = await browser.samlResponseFrom({ status: 303, location: started.body.url, text: '', headers: new Headers() }, 'dave', 'dave-pass');
    const page = await browser.postToAcs(acs, form);
    assert.equal(page.status, 200, page.text.slice(0, 300));
    assert.match(page.text, /data-outcome="refused"[\s\S]*no_account/, 'dave has no account here');
    assert.equal(await countRows(svc, 'user_identities'), links);
  });

  it('the API refuses SAML metadata with a DTD, without an IdP, or given twice, and OIDC fields on a SAML IdP', async () => {
    const create = (body: Record<string, unknown>) =>
      svc.api('POST', `/management/v1/orgs/${tenant.orgId}/idps`, { token: owner.token, body: { type: 'saml', name: 'Bad', ...body } });
    const before = await countRows(svc, 'identity_providers');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /exactly one of metadataXml and metadataUrl/],
      [{ metadataXml: '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>', metadataUrl: ssp.metadataUrl }, /exactly one/],
      [{ metadataXml: '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>' }, /document type declaration/],
      [{ metadataXml: '<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>' }, /exactly one IDPSSODescriptor/],
      [{ metadataUrl: ssp.metadataUrl, issuer: 'https://93.184.215.14/' }, /issuer is not a field of a SAML/],
      [{ metadataUrl: ssp.metadataUrl, nameIdFormat: 'persistent' }, /nameIdFormat/],
    ];
    for (const [body, message] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      assert.match(res.text, message);
    }
    assert.equal(await countRows(svc, 'identity_providers'), before);
    const read = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/idps/${idp.link.id}`, { token: owner.token });
    assert.equal(read.body.entityId, ssp.entityId);
    assert.equal(read.body.signAuthnRequests, true);
    assert.doesNotMatch(read.text, /PRIVATE KEY|sp_private_key|spPrivateKey/);
  });
});
