import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { DOMParser } from '@xmldom/xmldom';
import { decrypt } from 'xml-encryption';
import { newSelfSignedCredentials } from '../../src/common/crypto/self-signed-credentials.js';
import { LoginClient } from '../attack/support/login-client.js';
import type { PageResponse } from '../attack/support/login-client.js';
import { createHuman } from '../oidc/support/oidc-fixtures.js';
import { createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { authnRequestXml, postedMessage, redirectQuery, SAML, SAMLP, signedRequest, xmlsecVerify } from './support/saml-messages.js';
import type { AuthnRequestInput, PostedMessage } from './support/saml-messages.js';
import { untilAnswered } from './support/saml-sign-in.js';

const ACS = 'http://127.0.0.1:9/saml/acs';
const PPT = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';

/**
 * Single sign-on of the SAML IdP (docs/saml.md, "Single sign-on") driven over HTTP as a browser and a service provider would: requests by
 * both bindings, the OIDC sign-in in between, the signed response checked field by field and by xmlsec1; then every
 * refusal of the issue's "bad input", each answered by an error page or an error response, with nothing issued.
 */
describe('SAML IdP: single sign-on', () => {
  const svc = useService();
  let orgId: string;
  let owner: { token: string };
  let projectId: string;
  let user: { userId: string; userName: string };
  let loginName: string;
  let sp: { keyPem: string; certPem: string };
  let idp: { entityId: string; ssoUrl: string; initUrl: string };
  let signingCert: string;

  before(async () => {
    const org = await createOrg(svc);
    orgId = org.id;
    owner = await createCaller(svc, orgId, { org: ['ORG_OWNER'] });
    projectId = (await svc.api('POST', `/management/v1/orgs/${orgId}/projects`, { token: owner.token, body: { name: unique('saml') } })).body.id;
    user = await createHuman(svc, orgId);
    loginName = `${user.userName}@${org.primaryDomain}`;
    const credentials = await newSelfSignedCredentials('test SP');
    sp = { keyPem: credentials.privateKeyPem, certPem: credentials.certificatePem };
    const base = `${svc.config.publicUrl}/saml/v2/${orgId}`;
    idp = { entityId: `${base}/metadata`, ssoUrl: `${base}/sso`, initUrl: `${base}/init` };
    const metadata = await (await fetch(`${base}/metadata`)).text();
    signingCert = pem(/<ds:X509Certificate>([^<]+)</.exec(metadata)![1]!);
  });

  async function createSamlApp(fields: Record<string, unknown> = {}): Promise<{ appId: string; entityId: string }> {
    const entityId = `https://${unique('sp')}.example.com/saml`;
    const res = await svc.api('POST', `/management/v1/orgs/${orgId}/projects/${projectId}/apps/saml`, {
      token: owner.token,
      body: { name: 'SP', entityId, acsUrls: [ACS], ...fields },
    });
    assert.equal(res.status, 201, res.text);
    return { appId: res.body.appId, entityId };
  }

  const request = (entityId: string, input: Partial<AuthnRequestInput> = {}) =>
    authnRequestXml({ issuer: entityId, destination: idp.ssoUrl, acsUrl: ACS, ...input });

  async function ssoByRedirect(browser: LoginClient, xml: string, relayState?: string): Promise<PageResponse> {
    const first = await browser.get(`/saml/v2/${orgId}/sso?${redirectQuery(xml, { relayState })}`);
    return first.status === 303 ? untilAnswered(browser, first, loginName) : first;
  }

  function parse(xml: string): Document {
    return new DOMParser().parseFromString(xml, 'text/xml') as unknown as Document;
  }
  const one = (doc: Document | Element, ns: string, name: string) => doc.getElementsByTagNameNS(ns, name)[0] as Element | undefined;
  const issuedEvents = async () => (await searchEvents(svc, { event_types: ['user.saml.response.issued'], aggregate_id: user.userId })).length;
  const samlSessions = async () => Number((await svc.dataSource.query('SELECT COUNT(*) AS n FROM saml_sessions WHERE user_id = ?', [user.userId]))[0].n);

  function statusOf(posted: PostedMessage): string[] {
    const status = one(parse(posted.xml), SAMLP, 'Status')!;
    return Array.from(status.getElementsByTagNameNS(SAMLP, 'StatusCode')).map((code) => code.getAttribute('Value')!);
  }

  it('SP-initiated by HTTP-Redirect: sign-in, then a signed response posted to the ACS URL with every field docs/saml.md names', async () => {
    const app = await createSamlApp({
      attributes: [
        { name: 'mail', from: 'email' },
        { name: 'uid', from: 'userName' },
        { name: 'urn:oid:2.5.4.42', from: 'givenName', nameFormat: 'uri' },
      ],
    });
    const { id, xml } = request(app.entityId);
    const before = await issuedEvents();
    const page = await ssoByRedirect(new LoginClient(svc.url), xml, 'back-to/page?1');
    assert.equal(page.status, 200, page.text.slice(0, 400));
    assert.match(page.text, /data-saml-continue/);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'nonce-[A-Za-z0-9+/=]+'/);
    assert.match(csp, /form-action 'self' http:\/\/127\.0\.0\.1:9/);
    const posted = postedMessage(page.text);
    assert.equal(posted.action, ACS);
    assert.equal(posted.relayState, 'back-to/page?1');
    xmlsecVerify(posted.xml, signingCert, 'urn:oasis:names:tc:SAML:2.0:protocol:Response');
    xmlsecVerify(posted.xml, signingCert, 'urn:oasis:names:tc:SAML:2.0:assertion:Assertion');
    const doc = parse(posted.xml);
    const response = doc.documentElement;
    assert.equal(response.getAttribute('Destination'), ACS);
    assert.equal(response.getAttribute('InResponseTo'), id);
    assert.deepEqual(statusOf(posted), ['urn:oasis:names:tc:SAML:2.0:status:Success']);
    // The signatures sit right after Issuer (SAML Core §2.3.3 and §3.2.2 order them so: Lasso insists).
    assert.equal((response.childNodes[0] as Element).localName, 'Issuer');
    assert.equal((response.childNodes[1] as Element).localName, 'Signature');
    const assertion = one(doc, SAML, 'Assertion')!;
    assert.equal((assertion.getElementsByTagNameNS(SAML, 'Issuer')[0]!.nextSibling as Element).localName, 'Signature');
    assert.equal(one(assertion, SAML, 'Issuer')!.textContent, idp.entityId);
    const nameId = one(assertion, SAML, 'NameID')!;
    // Pairwise per SP (SAML Core §8.3.7): never the user id (test/saml/name-ids.test.ts holds the pairing).
    assert.match(nameId.textContent ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(nameId.textContent, user.userId);
    assert.equal(nameId.getAttribute('Format'), 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent');
    assert.equal(nameId.getAttribute('SPNameQualifier'), app.entityId);
    const confirmation = one(assertion, SAML, 'SubjectConfirmationData')!;
    assert.equal(confirmation.getAttribute('Recipient'), ACS);
    assert.equal(confirmation.getAttribute('InResponseTo'), id);
    const lifetime = Date.parse(confirmation.getAttribute('NotOnOrAfter')!) - Date.now();
    assert.ok(lifetime > 4 * 60_000 && lifetime <= 5 * 60_000, `5 minutes: ${lifetime} ms`);
    assert.equal(one(assertion, SAML, 'Audience')!.textContent, app.entityId);
    assert.equal(one(assertion, SAML, 'AuthnContextClassRef')!.textContent, PPT);
    assert.ok(one(assertion, SAML, 'AuthnStatement')!.getAttribute('SessionIndex'));
    const attributes = Object.fromEntries(
      Array.from(assertion.getElementsByTagNameNS(SAML, 'Attribute')).map((a) => [
        a.getAttribute('Name'),
        [a.getAttribute('NameFormat'), ...Array.from(a.getElementsByTagNameNS(SAML, 'AttributeValue')).map((v) => v.textContent)],
      ]),
    );
    assert.deepEqual(attributes.uid, ['urn:oasis:names:tc:SAML:2.0:attrname-format:basic', loginName]);
    assert.equal(attributes['urn:oid:2.5.4.42']![0], 'urn:oasis:names:tc:SAML:2.0:attrname-format:uri');
    assert.ok(attributes.mail);
    assert.equal(await issuedEvents(), before + 1);
    const [event] = await searchEvents(svc, { event_types: ['user.saml.response.issued'], aggregate_id: user.userId });
    assert.doesNotMatch(JSON.stringify(event), /Assertion|SAMLResponse/);
  });

  it('SP-initiated by HTTP-POST: the request is stored and answered 303 to a GET; a second application signs in on the same session without a password', async () => {
    const app = await createSamlApp();
    const browser = new LoginClient(svc.url);
    const { xml } = request(app.entityId);
    const first = await browser.post(`/saml/v2/${orgId}/sso`, { SAMLRequest: Buffer.from(xml).toString('base64'), RelayState: 'r1' });
    assert.equal(first.status, 303, first.text.slice(0, 300));
    assert.match(first.location!, /\/oauth\/v2\/authorize\?/);
    const page = await untilAnswered(browser, first, loginName);
    assert.equal(postedMessage(page.text).relayState, 'r1');
    const other = await createSamlApp({ nameIdFormat: 'unspecified' });
    const again = await browser.get(`/saml/v2/${orgId}/sso?${redirectQuery(request(other.entityId).xml)}`);
    // One session (docs/saml.md, "Single sign-on"): the authorization goes straight back to the continue URL, no login page.
    let current = again;
    const visited: string[] = [];
    for (let i = 0; i < 6 && current.location; i++) {
      visited.push(new URL(current.location, svc.url).pathname);
      const next = new URL(current.location, svc.url);
      current = await browser.get(next.pathname + next.search);
    }
    assert.ok(!visited.some((path) => path.startsWith('/ui/login/')), visited.join(' → '));
    assert.equal(one(parse(postedMessage(current.text).xml), SAML, 'NameID')!.textContent, loginName);
  });

  it('signed requests: required ones verified by both bindings; an unsigned or wrongly signed one is answered RequestDenied', async () => {
    const app = await createSamlApp({ spCertificate: sp.certPem, requireSignedRequests: true });
    const redirect = request(app.entityId);
    const signedQuery = await new LoginClient(svc.url).get(`/saml/v2/${orgId}/sso?${redirectQuery(redirect.xml, { keyPem: sp.keyPem, relayState: 'x' })}`);
    assert.equal(signedQuery.status, 303, signedQuery.text.slice(0, 300));
    const post = request(app.entityId);
    const signedPost = await new LoginClient(svc.url).post(`/saml/v2/${orgId}/sso`, {
      SAMLRequest: Buffer.from(signedRequest(post.xml, post.id, sp.keyPem, sp.certPem)).toString('base64'),
    });
    assert.equal(signedPost.status, 303, signedPost.text.slice(0, 300));
    const other = await newSelfSignedCredentials('not the SP');
    const refusals = [
      await new LoginClient(svc.url).get(`/saml/v2/${orgId}/sso?${redirectQuery(request(app.entityId).xml)}`),
      await new LoginClient(svc.url).get(`/saml/v2/${orgId}/sso?${redirectQuery(request(app.entityId).xml, { keyPem: other.privateKeyPem })}`),
      await new LoginClient(svc.url).post(`/saml/v2/${orgId}/sso`, { SAMLRequest: Buffer.from(request(app.entityId).xml).toString('base64') }),
      await (async () => {
        const r = request(app.entityId);
        return new LoginClient(svc.url).post(`/saml/v2/${orgId}/sso`, {
          SAMLRequest: Buffer.from(signedRequest(r.xml, r.id, other.privateKeyPem, other.certificatePem)).toString('base64'),
        });
      })(),
    ];
    for (const refused of refusals) {
      assert.equal(refused.status, 200, refused.text.slice(0, 300));
      const posted = postedMessage(refused.text);
      assert.equal(posted.action, ACS);
      assert.deepEqual(statusOf(posted), ['urn:oasis:names:tc:SAML:2.0:status:Requester', 'urn:oasis:names:tc:SAML:2.0:status:RequestDenied']);
      assert.equal(one(parse(posted.xml), SAML, 'Assertion'), undefined);
      xmlsecVerify(posted.xml, signingCert, 'urn:oasis:names:tc:SAML:2.0:protocol:Response');
    }
  });

  it('bad input: DTDs, unknown SPs, unregistered ACS URLs and RelayState over 80 bytes get an error page; replayed, stale and misdirected requests an error response; nothing is issued', async () => {
    const app = await createSamlApp();
    const sessions = await samlSessions();
    const events = await issuedEvents();
    const page = async (query: string, expected: number, error: RegExp) => {
      const res = await new LoginClient(svc.url).get(`/saml/v2/${orgId}/sso?${query}`);
      assert.equal(res.status, expected, res.text.slice(0, 300));
      assert.match(res.text, error);
      assert.doesNotMatch(res.text, /SAMLResponse/);
    };
    await page(
      redirectQuery(request(app.entityId, { prolog: '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>' }).xml),
      400,
      /document type declaration/,
    );
    await page(redirectQuery('<samlp:AuthnRequest'), 400, /well-formed/);
    await page(redirectQuery(request('https://unknown.example.com/sp').xml), 400, /no SAML application/);
    await page(redirectQuery(request(app.entityId, { acsUrl: 'https://evil.example.com/acs' }).xml), 400, /not registered/);
    await page(redirectQuery(request(app.entityId).xml, { relayState: 'r'.repeat(81) }), 400, /RelayState/);
    await page('SAMLRequest=not-deflate', 400, /DEFLATE/);
    const unknownOrg = await new LoginClient(svc.url).get(`/saml/v2/00000000-0000-4000-8000-000000000000/sso?${redirectQuery(request(app.entityId).xml)}`);
    assert.equal(unknownOrg.status, 404);

    const answered = async (xml: string, status: string) => {
      const res = await new LoginClient(svc.url).get(`/saml/v2/${orgId}/sso?${redirectQuery(xml)}`);
      assert.equal(res.status, 200, res.text.slice(0, 300));
      const posted = postedMessage(res.text);
      assert.equal(posted.action, ACS);
      assert.equal(statusOf(posted).at(-1), status);
    };
    const replayed = request(app.entityId);
    assert.equal((await new LoginClient(svc.url).get(`/saml/v2/${orgId}/sso?${redirectQuery(replayed.xml)}`)).status, 303);
    await answered(replayed.xml, 'urn:oasis:names:tc:SAML:2.0:status:RequestDenied');
    await answered(request(app.entityId, { issueInstant: new Date(Date.now() - 4 * 60_000) }).xml, 'urn:oasis:names:tc:SAML:2.0:status:Requester');
    await answered(request(app.entityId, { issueInstant: new Date(Date.now() + 4 * 60_000) }).xml, 'urn:oasis:names:tc:SAML:2.0:status:Requester');
    await answered(request(app.entityId, { destination: `${svc.config.publicUrl}/saml/v2/other/sso` }).xml, 'urn:oasis:names:tc:SAML:2.0:status:Requester');
    await answered(request(app.entityId, { destination: null }).xml, 'urn:oasis:names:tc:SAML:2.0:status:Requester');
    assert.equal(await samlSessions(), sessions);
    assert.equal(await issuedEvents(), events);
  });

  it("the hidden client's code answers only the sign-in it was issued for: another sign-in's state gets an error page, nothing is issued", async () => {
    const app = await createSamlApp();
    const browser = new LoginClient(svc.url);
    await ssoByRedirect(browser, request(app.entityId).xml);
    // A sign-in inside the session, followed up to its return to the continue URL, which is not requested.
    const returnOf = async (): Promise<URLSearchParams> => {
      let current = await browser.get(`/saml/v2/${orgId}/sso?${redirectQuery(request(app.entityId).xml)}`);
      for (let i = 0; i < 10 && current.location; i++) {
        const next = new URL(current.location, svc.url);
        if (next.pathname === `/saml/v2/${orgId}/continue`) return next.searchParams;
        current = await browser.get(next.pathname + next.search);
      }
      assert.fail(`the sign-in did not return to the continue URL (${current.status})`);
    };
    const continueWith = (state: string, code: string) => browser.get(`/saml/v2/${orgId}/continue?${new URLSearchParams({ state, code })}`);
    const first = await returnOf();
    const second = await returnOf();
    const sessions = await samlSessions();
    const events = await issuedEvents();

    const swapped = await continueWith(second.get('state')!, first.get('code')!);
    assert.equal(swapped.status, 400, swapped.text.slice(0, 300));
    assert.match(swapped.text, /not this sign-in/);
    assert.doesNotMatch(swapped.text, /SAMLResponse/);
    assert.equal(await samlSessions(), sessions);

    const own = await continueWith(first.get('state')!, first.get('code')!);
    assert.equal(postedMessage(own.text).action, ACS);
    const replayed = await continueWith((await returnOf()).get('state')!, first.get('code')!);
    assert.equal(replayed.status, 400, replayed.text.slice(0, 300));
    assert.equal(await samlSessions(), sessions + 1);
    assert.equal(await issuedEvents(), events + 1);
  });

  it('a replayed code revokes its grant (RFC 6749 §4.1.2): a code issued from the same grant is refused afterwards, nothing more is issued', async () => {
    const app = await createSamlApp();
    const browser = new LoginClient(svc.url);
    await ssoByRedirect(browser, request(app.entityId).xml);
    const returnOf = async (): Promise<URLSearchParams> => {
      let current = await browser.get(`/saml/v2/${orgId}/sso?${redirectQuery(request(app.entityId).xml)}`);
      for (let i = 0; i < 10 && current.location; i++) {
        const next = new URL(current.location, svc.url);
        if (next.pathname === `/saml/v2/${orgId}/continue`) return next.searchParams;
        current = await browser.get(next.pathname + next.search);
      }
      assert.fail(`the sign-in did not return to the continue URL (${current.status})`);
    };
    const continueWith = (query: URLSearchParams) => browser.get(`/saml/v2/${orgId}/continue?${query}`);
    // Two sign-ins inside one session: the hidden client's codes come from the session's one grant.
    const first = await returnOf();
    const second = await returnOf();
    assert.equal(postedMessage((await continueWith(first)).text).action, ACS);
    const sessions = await samlSessions();
    const events = await issuedEvents();

    const replay = new URLSearchParams({ state: (await returnOf()).get('state')!, code: first.get('code')! });
    const replayed = await continueWith(replay);
    assert.equal(replayed.status, 400, replayed.text.slice(0, 300));

    const sibling = await continueWith(second);
    assert.equal(sibling.status, 400, `the grant's other code still signed in: ${sibling.status} ${sibling.text.slice(0, 300)}`);
    assert.doesNotMatch(sibling.text, /SAMLResponse/);
    assert.equal(await samlSessions(), sessions);
    assert.equal(await issuedEvents(), events);
  });

  it("the organization rule: a user of another organization gets no assertion for this organization's application", async () => {
    const app = await createSamlApp();
    const other = await createOrg(svc);
    const stranger = await createHuman(svc, other.id);
    const browser = new LoginClient(svc.url);
    const current = await untilAnswered(
      browser,
      await browser.get(`/saml/v2/${orgId}/sso?${redirectQuery(request(app.entityId).xml)}`),
      `${stranger.userName}@${other.primaryDomain}`,
    );
    // The login UI refuses the sign-in itself (403, its error page), as for an OIDC application: nothing reaches the SP.
    assert.equal(current.status, 403, current.text.slice(0, 300));
    assert.doesNotMatch(current.text, /SAMLResponse/);
    const rows = await svc.dataSource.query('SELECT COUNT(*) AS n FROM saml_sessions WHERE user_id = ?', [stranger.userId]);
    assert.equal(Number(rows[0].n), 0);
  });

  it('IsPassive without a session is answered NoPassive; ForceAuthn asks for the password again inside a session', async () => {
    const app = await createSamlApp();
    const passive = await ssoByRedirect(new LoginClient(svc.url), request(app.entityId, { isPassive: true }).xml);
    assert.deepEqual(statusOf(postedMessage(passive.text)), ['urn:oasis:names:tc:SAML:2.0:status:Responder', 'urn:oasis:names:tc:SAML:2.0:status:NoPassive']);
    const browser = new LoginClient(svc.url);
    await ssoByRedirect(browser, request(app.entityId).xml);
    let current = await browser.get(`/saml/v2/${orgId}/sso?${redirectQuery(request(app.entityId, { forceAuthn: true }).xml)}`);
    let sawLogin = false;
    for (let i = 0; i < 6 && current.location; i++) {
      const next = new URL(current.location, svc.url);
      current = await browser.get(next.pathname + next.search);
      sawLogin ||= current.text.includes('name="password"');
    }
    assert.ok(sawLogin, 'the login page asks again');
  });

  it('IdP-initiated: an application that allows it gets a response without InResponseTo; another gets a 403 page', async () => {
    const allowed = await createSamlApp({ allowIdpInitiated: true });
    const page = await untilAnswered(
      new LoginClient(svc.url),
      await new LoginClient(svc.url).get(`/saml/v2/${orgId}/init?sp=${encodeURIComponent(allowed.entityId)}`),
      loginName,
    );
    const posted = postedMessage(page.text);
    assert.equal(posted.relayState, undefined);
    assert.equal(parse(posted.xml).documentElement.hasAttribute('InResponseTo'), false);
    assert.equal(one(parse(posted.xml), SAML, 'SubjectConfirmationData')!.hasAttribute('InResponseTo'), false);
    const refused = await createSamlApp();
    const res = await new LoginClient(svc.url).get(`/saml/v2/${orgId}/init?sp=${encodeURIComponent(refused.entityId)}`);
    assert.equal(res.status, 403);
    assert.doesNotMatch(res.text, /SAMLResponse/);
    assert.equal((await new LoginClient(svc.url).get(`/saml/v2/${orgId}/init?sp=nobody`)).status, 404);
  });

  it("IdP-initiated: the response carries the application's idpInitiatedRelayState, and nothing from the request", async () => {
    const landing = 'http://127.0.0.1:9/wiki/start?tab=1';
    const app = await createSamlApp({ allowIdpInitiated: true, idpInitiatedRelayState: landing });
    const browser = new LoginClient(svc.url);
    const start = await browser.get(
      `/saml/v2/${orgId}/init?sp=${encodeURIComponent(app.entityId)}&RelayState=${encodeURIComponent('https://evil.example.com/')}`,
    );
    const posted = postedMessage((await untilAnswered(browser, start, loginName)).text);
    assert.equal(posted.relayState, landing);
    assert.equal(parse(posted.xml).documentElement.hasAttribute('InResponseTo'), false);
  });

  it("encrypted assertions: AES-256-GCM to the SP's certificate, signed inside; the response signed outside", async () => {
    const app = await createSamlApp({ spCertificate: sp.certPem, encryptAssertion: true, nameIdFormat: 'emailAddress' });
    const page = await ssoByRedirect(new LoginClient(svc.url), request(app.entityId).xml);
    const posted = postedMessage(page.text);
    const doc = parse(posted.xml);
    assert.equal(one(doc, SAML, 'Assertion'), undefined);
    const encrypted = one(doc, SAML, 'EncryptedAssertion')!;
    xmlsecVerify(posted.xml, signingCert, 'urn:oasis:names:tc:SAML:2.0:protocol:Response');
    const plain = await new Promise<string>((resolve, reject) =>
      decrypt(encrypted.getElementsByTagNameNS('http://www.w3.org/2001/04/xmlenc#', 'EncryptedData')[0]!.toString(), { key: sp.keyPem }, (error, result) =>
        error ? reject(error) : resolve(result!),
      ),
    );
    xmlsecVerify(plain, signingCert, 'urn:oasis:names:tc:SAML:2.0:assertion:Assertion');
    assert.match(one(parse(plain), SAML, 'NameID')!.textContent ?? '', /@/);
  });
});

function pem(base64: string): string {
  return new X509Certificate(Buffer.from(base64, 'base64')).toString();
}
