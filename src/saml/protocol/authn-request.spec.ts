import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { newSelfSignedCredentials } from '../../common/crypto/self-signed-credentials.js';
import { XmlRefused } from '../../common/xml/saml-xml.js';
import { authnRequestXml, redirectQuery, signedRequest } from '../../../test/saml/support/saml-messages.js';
import { AuthnRequestRefused, checkAuthnRequest, readAuthnRequest, registeredAcs } from './authn-request.js';
import type { RequestingSp } from './authn-request.js';
import { fromPost, fromRedirect, RelayStateTooLong } from './bindings.js';
import type { ReceivedMessage } from './bindings.js';
import { STATUS } from './saml-names.js';

const SSO_URL = 'https://idp.example/saml/v2/org/sso';
const ACS_URL = 'https://sp.example/acs';
const NOW = new Date('2026-01-02T03:04:05Z');
const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

function request(overrides: Partial<Parameters<typeof authnRequestXml>[0]> = {}) {
  return authnRequestXml({ issuer: 'https://sp.example', destination: SSO_URL, acsUrl: ACS_URL, issueInstant: NOW, ...overrides });
}

function byRedirect(xml: string, options: Parameters<typeof redirectQuery>[1] = {}): ReceivedMessage {
  return fromRedirect(redirectQuery(xml, options), 'SAMLRequest');
}

function byPost(xml: string, relayState?: string): ReceivedMessage {
  return fromPost({ SAMLRequest: Buffer.from(xml).toString('base64'), ...(relayState === undefined ? {} : { RelayState: relayState }) }, 'SAMLRequest');
}

function refusal(check: () => unknown): AuthnRequestRefused {
  try {
    check();
  } catch (error) {
    if (error instanceof AuthnRequestRefused) return error;
    throw error;
  }
  assert.fail('the request was accepted');
}

describe('AuthnRequest parsing (SAML Core §3.4.1)', () => {
  const bindings = {
    redirect: (xml: string, relayState: string) => byRedirect(xml, { relayState }),
    post: byPost,
  };
  for (const [binding, receive] of Object.entries(bindings)) {
    it(`reads every field by HTTP-${binding}, RelayState as sent`, () => {
      const { id, xml } = request({ forceAuthn: true, isPassive: true, mfa: true, nameIdFormat: PERSISTENT });
      const message = receive(xml, 'back to /a b');
      assert.equal(message.binding, binding);
      assert.equal(message.relayState, 'back to /a b');
      assert.deepEqual(readAuthnRequest(message).fields, {
        id,
        issuer: 'https://sp.example',
        issueInstant: NOW,
        destination: SSO_URL,
        acsUrl: ACS_URL,
        forceAuthn: true,
        isPassive: true,
        requiresMfa: true,
        nameIdFormat: PERSISTENT,
      });
    });
  }

  it('reads absent optional parts as absent', () => {
    const { xml } = request({ destination: null, acsUrl: null });
    const { fields } = readAuthnRequest(byPost(xml));
    assert.deepEqual(
      {
        destination: fields.destination,
        acsUrl: fields.acsUrl,
        forceAuthn: fields.forceAuthn,
        isPassive: fields.isPassive,
        requiresMfa: fields.requiresMfa,
        nameIdFormat: fields.nameIdFormat,
      },
      { destination: null, acsUrl: null, forceAuthn: false, isPassive: false, requiresMfa: false, nameIdFormat: null },
    );
  });

  it('reads ForceAuthn and IsPassive as xs:boolean (XML Schema Part 2 §3.2.2)', () => {
    const xml = request().xml.replace('Version="2.0"', 'Version="2.0" ForceAuthn="1" IsPassive="0"');
    const { fields } = readAuthnRequest(byPost(xml));
    assert.deepEqual([fields.forceAuthn, fields.isPassive], [true, false]);
  });

  const badDocuments: [string, string, RegExp][] = [
    ['another message', request().xml.replace(/AuthnRequest/g, 'LogoutRequest'), /not a samlp:AuthnRequest/],
    ['a document type declaration', request({ prolog: '<!DOCTYPE x [<!ENTITY e "e">]>' }).xml, /document type declaration/],
    ['XML that is not well-formed', '<samlp:AuthnRequest', /not well-formed/],
    ['an ID that is not an xs:ID', request({ id: '1abc' }).xml, /no valid ID/],
    ['another Version', request().xml.replace('Version="2.0"', 'Version="1.1"'), /Version must be 2.0/],
    ['no Issuer', request().xml.replace(/<saml:Issuer>.*<\/saml:Issuer>/, ''), /names no Issuer/],
    ['an IssueInstant that is no date', request().xml.replace(/IssueInstant="[^"]*"/, 'IssueInstant="yesterday"'), /IssueInstant is not a date/],
  ];
  for (const [what, xml, message] of badDocuments) {
    it(`refuses ${what}`, () => {
      assert.throws(
        () => readAuthnRequest(byPost(xml)),
        (error: unknown) => error instanceof XmlRefused && message.test(error.message),
      );
    });
  }

  it('refuses what the HTTP-Redirect binding cannot carry', () => {
    const query = redirectQuery(request().xml);
    assert.throws(() => fromRedirect(`${query}&${query}`, 'SAMLRequest'), /SAMLRequest given twice/);
    assert.throws(() => fromRedirect('RelayState=x', 'SAMLRequest'), /no SAMLRequest/);
    assert.throws(() => fromRedirect(`SAMLRequest=${encodeURIComponent(Buffer.from(request().xml).toString('base64'))}`, 'SAMLRequest'), /not DEFLATE-encoded/);
    assert.throws(() => fromRedirect('SAMLRequest=%%%', 'SAMLRequest'), XmlRefused);
    assert.throws(() => byRedirect(request().xml, { relayState: 'x'.repeat(81) }), RelayStateTooLong);
  });

  it('refuses what the HTTP-POST binding cannot carry', () => {
    assert.throws(() => fromPost({}, 'SAMLRequest'), /no SAMLRequest/);
    assert.throws(() => fromPost({ SAMLRequest: 'not base64!' }, 'SAMLRequest'), /not base64/);
    assert.throws(
      () => fromPost({ SAMLRequest: Buffer.from(request().xml).toString('base64'), RelayState: ['a', 'b'] }, 'SAMLRequest'),
      /RelayState given twice/,
    );
    assert.throws(() => byPost(request().xml, 'é'.repeat(41)), RelayStateTooLong);
  });
});

describe('registeredAcs', () => {
  const sp: RequestingSp = { acsUrls: [ACS_URL, 'https://sp.example/acs2'], spCertificate: null, requireSignedRequests: false };

  it("answers to the request's own URL when registered, else to the first registered one", () => {
    assert.equal(registeredAcs(readAuthnRequest(byPost(request({ acsUrl: 'https://sp.example/acs2' }).xml)).fields, sp), 'https://sp.example/acs2');
    assert.equal(registeredAcs(readAuthnRequest(byPost(request({ acsUrl: null }).xml)).fields, sp), ACS_URL);
  });

  it('refuses a URL not registered exactly', () => {
    const fields = readAuthnRequest(byPost(request({ acsUrl: `${ACS_URL}/` }).xml)).fields;
    assert.throws(() => registeredAcs(fields, sp), /not registered/);
  });
});

describe('checkAuthnRequest', () => {
  let keyPem: string;
  let certificatePem: string;
  let signingSp: RequestingSp;
  const openSp: RequestingSp = { acsUrls: [ACS_URL], spCertificate: null, requireSignedRequests: false };

  before(async () => {
    ({ privateKeyPem: keyPem, certificatePem } = await newSelfSignedCredentials('sp.example'));
    signingSp = { acsUrls: [ACS_URL], spCertificate: certificatePem, requireSignedRequests: true };
  });

  function check(message: ReceivedMessage, sp: RequestingSp, now = NOW) {
    return checkAuthnRequest(message, readAuthnRequest(message).root, sp, SSO_URL, ACS_URL, now);
  }

  it('accepts a request signed over the query (HTTP-Redirect)', () => {
    const { id, xml } = request({ mfa: true });
    assert.equal(check(byRedirect(xml, { keyPem, relayState: 'r' }), signingSp).fields.id, id);
  });

  it('accepts a request signed inside the XML (HTTP-POST) and reads the signed fields', () => {
    const { id, xml } = request({ mfa: true });
    const { fields } = check(byPost(signedRequest(xml, id, keyPem, certificatePem)), signingSp);
    assert.equal(fields.id, id);
    assert.equal(fields.requiresMfa, true);
  });

  it('refuses an unsigned or altered request when the SP must sign', () => {
    const { id, xml } = request();
    assert.equal(refusal(() => check(byRedirect(xml), signingSp)).status, STATUS.requestDenied);
    assert.equal(refusal(() => check(byPost(xml), signingSp)).status, STATUS.requestDenied);
    const altered = byRedirect(xml, { keyPem, relayState: 'r' });
    altered.querySignature!.octets = altered.querySignature!.octets.replace('RelayState=r', 'RelayState=s');
    assert.match(refusal(() => check(altered, signingSp)).message, /does not verify/);
    const tampered = signedRequest(xml, id, keyPem, certificatePem).replace('https://sp.example/acs"', 'https://sp.example/acs" IsPassive="true"');
    assert.equal(refusal(() => check(byPost(tampered), signingSp)).status, STATUS.requestDenied);
  });

  it('refuses signed requests of an SP without a certificate', () => {
    const { xml } = request();
    assert.equal(refusal(() => check(byRedirect(xml), { ...signingSp, spCertificate: null })).status, STATUS.requester);
  });

  it('refuses another Destination, an IssueInstant off by more than 3 minutes, another binding, an ACS index', () => {
    assert.match(refusal(() => check(byPost(request({ destination: 'https://idp.example/other' }).xml), openSp)).message, /Destination must be/);
    assert.equal(refusal(() => check(byPost(request({ destination: null }).xml), openSp)).status, STATUS.requester);
    const late = new Date(NOW.getTime() + 3 * 60_000 + 1000);
    assert.match(refusal(() => check(byPost(request().xml), openSp, late)).message, /IssueInstant/);
    const artifact = request().xml.replace('bindings:HTTP-POST', 'bindings:HTTP-Artifact');
    assert.equal(refusal(() => check(byPost(artifact), openSp)).status, STATUS.unsupportedBinding);
    const indexed = request({ acsUrl: null }).xml.replace('Version="2.0"', 'Version="2.0" AssertionConsumerServiceIndex="1"');
    assert.match(refusal(() => check(byPost(indexed), openSp)).message, /AssertionConsumerServiceIndex/);
  });
});
