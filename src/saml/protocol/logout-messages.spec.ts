import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { newSelfSignedCredentials } from '../../common/crypto/self-signed-credentials.js';
import { children, parseXml, SAML, SAMLP, text, XmlRefused } from '../../common/xml/saml-xml.js';
import { signedRequest } from '../../../test/saml/support/saml-messages.js';
import { fromPost, fromRedirect } from './bindings.js';
import { checkLogoutRequest, logoutRequestXml, logoutResponseXml, readLogoutRequest, signedRedirectQuery } from './logout-messages.js';
import { STATUS } from './saml-names.js';
import { redirectSignatureHolds } from './xml-signature.js';
import type { SamlSigner } from './xml-signature.js';

const NOW = new Date('2026-01-02T03:04:05Z');
const IDP = 'https://idp.example/saml/v2/org/metadata';
const SLO_URL = 'https://idp.example/saml/v2/org/slo';
const SP = 'https://sp.example';
const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

/** A service provider's LogoutRequest (SAML Core §3.7.1), as mellon sends one. */
function spLogoutRequest(overrides: { id?: string; destination?: string; issueInstant?: Date; nameId?: string; issuer?: string } = {}): {
  id: string;
  xml: string;
} {
  const id = overrides.id ?? '_logout1';
  const issuer = overrides.issuer === undefined ? `<saml:Issuer>${SP}</saml:Issuer>` : overrides.issuer;
  const xml =
    `<samlp:LogoutRequest xmlns:samlp="${SAMLP}" xmlns:saml="${SAML}" ID="${id}" Version="2.0" IssueInstant="${(overrides.issueInstant ?? NOW).toISOString()}" Destination="${overrides.destination ?? SLO_URL}">` +
    `${issuer}<saml:NameID Format="${PERSISTENT}">${overrides.nameId ?? 'pairwise-id'}</saml:NameID>` +
    '<samlp:SessionIndex>_s1</samlp:SessionIndex><samlp:SessionIndex>_s2</samlp:SessionIndex></samlp:LogoutRequest>';
  return { id, xml };
}

describe('logout messages', () => {
  let sp: SamlSigner;
  let spKeyPem: string;
  let idp: SamlSigner;

  before(async () => {
    const spCredentials = await newSelfSignedCredentials('sp.example');
    spKeyPem = spCredentials.privateKeyPem;
    sp = { privateKey: createPrivateKey(spKeyPem), certificatePem: spCredentials.certificatePem };
    const idpCredentials = await newSelfSignedCredentials('idp.example');
    idp = { privateKey: createPrivateKey(idpCredentials.privateKeyPem), certificatePem: idpCredentials.certificatePem };
  });

  /** The request as HTTP-Redirect delivers it, signed over the query by the SP. */
  function redirected(xml: string, relayState: string | null = 'r') {
    return fromRedirect(signedRedirectQuery('SAMLRequest', xml, relayState, sp), 'SAMLRequest');
  }

  function check(message: ReturnType<typeof redirected>, certificatePem: string | null = sp.certificatePem, now = NOW) {
    return checkLogoutRequest(message, readLogoutRequest(message).root, certificatePem, SLO_URL, now);
  }

  it('reads a signed LogoutRequest by HTTP-Redirect: its ID, Issuer, NameID and every SessionIndex', () => {
    const message = redirected(spLogoutRequest().xml);
    assert.equal(readLogoutRequest(message).issuer, SP);
    assert.equal(message.relayState, 'r');
    assert.deepEqual(check(message), { id: '_logout1', issuer: SP, nameId: 'pairwise-id', sessionIndexes: ['_s1', '_s2'] });
  });

  it('reads a LogoutRequest signed inside the XML by HTTP-POST', () => {
    const { id, xml } = spLogoutRequest();
    const message = fromPost({ SAMLRequest: Buffer.from(signedRequest(xml, id, spKeyPem, sp.certificatePem)).toString('base64') }, 'SAMLRequest');
    assert.deepEqual(check(message), { id, issuer: SP, nameId: 'pairwise-id', sessionIndexes: ['_s1', '_s2'] });
  });

  it('refuses another message, no Issuer, and anything unsigned, signed by another key or for an SP without a certificate', () => {
    assert.throws(() => readLogoutRequest(redirected(spLogoutRequest().xml.replace(/LogoutRequest/g, 'AuthnRequest'))), /not a samlp:LogoutRequest/);
    assert.throws(() => readLogoutRequest(redirected(spLogoutRequest({ issuer: '' }).xml)), /names no Issuer/);
    const unsigned = fromRedirect(signedRedirectQuery('SAMLRequest', spLogoutRequest().xml, null, sp).replace(/&SigAlg=.*$/, ''), 'SAMLRequest');
    assert.throws(() => check(unsigned), /not signed by the service provider/);
    assert.throws(() => check(redirected(spLogoutRequest().xml), idp.certificatePem), /not signed by the service provider/);
    assert.throws(() => check(redirected(spLogoutRequest().xml), null), /no certificate/);
    const posted = fromPost({ SAMLRequest: Buffer.from(spLogoutRequest().xml).toString('base64') }, 'SAMLRequest');
    assert.throws(() => check(posted), /not signed/);
  });

  it('refuses another Destination, an IssueInstant off by more than 3 minutes and no NameID', () => {
    assert.throws(() => check(redirected(spLogoutRequest({ destination: 'https://idp.example/other' }).xml)), /Destination must be/);
    assert.throws(() => check(redirected(spLogoutRequest().xml), sp.certificatePem, new Date(NOW.getTime() - 3 * 60_000 - 1000)), /IssueInstant/);
    assert.throws(
      () => check(redirected(spLogoutRequest({ nameId: '' }).xml)),
      (error: unknown) => error instanceof XmlRefused && /no NameID/.test(error.message),
    );
  });

  it("sends the IdP's LogoutRequest with the assertion's NameID, qualifiers and SessionIndex, signed over the query", () => {
    const xml = logoutRequestXml(IDP, SP, 'https://sp.example/slo', { value: 'pairwise-id', format: PERSISTENT, qualified: true }, '_s1', NOW);
    const root = parseXml(xml).documentElement;
    assert.deepEqual(
      [root.localName, root.getAttribute('Destination'), root.getAttribute('IssueInstant'), root.getAttribute('Version')],
      ['LogoutRequest', 'https://sp.example/slo', '2026-01-02T03:04:05Z', '2.0'],
    );
    assert.equal(text(children(root, SAML, 'Issuer')[0]), IDP);
    const nameId = children(root, SAML, 'NameID')[0]!;
    assert.deepEqual(
      [text(nameId), nameId.getAttribute('Format'), nameId.getAttribute('NameQualifier'), nameId.getAttribute('SPNameQualifier')],
      ['pairwise-id', PERSISTENT, IDP, SP],
    );
    assert.deepEqual(
      children(root, SAMLP, 'SessionIndex').map((index) => text(index)),
      ['_s1'],
    );
    const unqualified = children(
      parseXml(logoutRequestXml(IDP, SP, 'https://sp.example/slo', { value: 'a@example.com', format: PERSISTENT, qualified: false }, '_s1', NOW))
        .documentElement,
      SAML,
      'NameID',
    )[0]!;
    assert.equal(unqualified.hasAttribute('NameQualifier'), false);

    const received = fromRedirect(signedRedirectQuery('SAMLRequest', xml, null, idp), 'SAMLRequest');
    assert.equal(received.xml, xml);
    assert.equal(
      redirectSignatureHolds(received.querySignature!.octets, received.querySignature!.sigAlg, received.querySignature!.signature, idp.certificatePem),
      true,
    );
    assert.equal(
      redirectSignatureHolds(received.querySignature!.octets, received.querySignature!.sigAlg, received.querySignature!.signature, sp.certificatePem),
      false,
    );
  });

  it('answers an SP logout with Success InResponseTo its ID (SAML Core §3.7.2)', () => {
    const root = parseXml(logoutResponseXml(IDP, 'https://sp.example/slo', '_logout1', NOW)).documentElement;
    assert.deepEqual(
      [root.localName, root.getAttribute('Destination'), root.getAttribute('InResponseTo')],
      ['LogoutResponse', 'https://sp.example/slo', '_logout1'],
    );
    assert.equal(text(children(root, SAML, 'Issuer')[0]), IDP);
    const status = children(children(root, SAMLP, 'Status')[0]!, SAMLP, 'StatusCode')[0]!;
    assert.equal(status.getAttribute('Value'), STATUS.success);
  });
});
