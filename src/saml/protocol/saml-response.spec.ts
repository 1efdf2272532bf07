import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { newSelfSignedCredentials } from '../../common/crypto/self-signed-credentials.js';
import { children, DS, parseXml, SAML, SAMLP, text } from '../../common/xml/saml-xml.js';
import { ATTRIBUTE_NAME_FORMATS, CLASS_MFA, CLASS_PASSWORD, STATUS } from './saml-names.js';
import { errorResponse, successResponse } from './saml-response.js';
import type { AssertionContent } from './saml-response.js';
import { verifiedRoot } from './xml-signature.js';
import type { SamlSigner } from './xml-signature.js';

const NOW = new Date('2026-01-02T03:04:05.678Z');
const IDP = 'https://idp.example/saml/v2/org/metadata';
const SP = 'https://sp.example';
const ACS = 'https://sp.example/acs';
const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';
const EMAIL = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

function content(overrides: Partial<AssertionContent> = {}): AssertionContent {
  return {
    issuer: IDP,
    audience: SP,
    recipient: ACS,
    inResponseTo: '_request1',
    nameId: { value: 'pairwise-id', format: PERSISTENT, qualified: true },
    sessionIndex: '_session1',
    authnInstant: new Date('2026-01-02T03:00:00Z'),
    authnContextClassRef: CLASS_PASSWORD,
    attributes: [{ name: 'email', nameFormat: ATTRIBUTE_NAME_FORMATS.basic, values: ['a@example.com'] }],
    ...overrides,
  };
}

/** The one child of `parent` named so. */
function only(parent: Element, ns: string, localName: string): Element {
  const found = children(parent, ns, localName);
  assert.equal(found.length, 1, `one ${localName}`);
  return found[0]!;
}

/** The element children of `parent`, as `prefix:localName`. */
function childNames(parent: Element): string[] {
  return Array.from(parent.childNodes)
    .filter((node): node is Element => node.nodeType === 1)
    .map((element) => element.nodeName);
}

describe('SAML responses', () => {
  let signer: SamlSigner;

  before(async () => {
    const { privateKeyPem, certificatePem } = await newSelfSignedCredentials('idp.example');
    signer = { privateKey: createPrivateKey(privateKeyPem), certificatePem };
  });

  async function response(protection: { signAssertion: boolean; signResponse: boolean }, overrides: Partial<AssertionContent> = {}) {
    const xml = await successResponse(content(overrides), { signer, encryptTo: null, ...protection }, NOW);
    const root = parseXml(xml).documentElement;
    return { xml, root, assertion: only(root, SAML, 'Assertion') };
  }

  it('carries Issuer, Destination, Audience, Recipient, InResponseTo, NotOnOrAfter, SessionIndex and the class (SAML Profiles §4.1.4.2)', async () => {
    const { root, assertion } = await response({ signAssertion: true, signResponse: false });
    assert.equal(root.getAttribute('Destination'), ACS);
    assert.equal(root.getAttribute('InResponseTo'), '_request1');
    assert.equal(root.getAttribute('IssueInstant'), '2026-01-02T03:04:05Z');
    assert.equal(text(only(root, SAML, 'Issuer')), IDP);
    assert.equal(only(only(root, SAMLP, 'Status'), SAMLP, 'StatusCode').getAttribute('Value'), STATUS.success);
    assert.equal(text(only(assertion, SAML, 'Issuer')), IDP);
    const subject = only(assertion, SAML, 'Subject');
    const confirmation = only(only(subject, SAML, 'SubjectConfirmation'), SAML, 'SubjectConfirmationData');
    assert.equal(only(subject, SAML, 'SubjectConfirmation').getAttribute('Method'), 'urn:oasis:names:tc:SAML:2.0:cm:bearer');
    assert.equal(confirmation.getAttribute('Recipient'), ACS);
    assert.equal(confirmation.getAttribute('InResponseTo'), '_request1');
    assert.equal(confirmation.getAttribute('NotOnOrAfter'), '2026-01-02T03:09:05Z');
    const conditions = only(assertion, SAML, 'Conditions');
    assert.equal(conditions.getAttribute('NotBefore'), '2026-01-02T03:04:05Z');
    assert.equal(conditions.getAttribute('NotOnOrAfter'), '2026-01-02T03:09:05Z');
    assert.equal(text(only(only(conditions, SAML, 'AudienceRestriction'), SAML, 'Audience')), SP);
    const statement = only(assertion, SAML, 'AuthnStatement');
    assert.equal(statement.getAttribute('SessionIndex'), '_session1');
    assert.equal(statement.getAttribute('AuthnInstant'), '2026-01-02T03:00:00Z');
    assert.equal(text(only(only(statement, SAML, 'AuthnContext'), SAML, 'AuthnContextClassRef')), CLASS_PASSWORD);
    const attribute = only(only(assertion, SAML, 'AttributeStatement'), SAML, 'Attribute');
    assert.deepEqual(
      [attribute.getAttribute('Name'), attribute.getAttribute('NameFormat'), text(only(attribute, SAML, 'AttributeValue'))],
      ['email', ATTRIBUTE_NAME_FORMATS.basic, 'a@example.com'],
    );
  });

  it('leaves InResponseTo out of an IdP-initiated response and names the MFA class after a second factor', async () => {
    const { root, assertion } = await response(
      { signAssertion: false, signResponse: true },
      { inResponseTo: null, authnContextClassRef: CLASS_MFA, attributes: [] },
    );
    assert.equal(root.hasAttribute('InResponseTo'), false);
    const subject = only(assertion, SAML, 'Subject');
    assert.equal(only(only(subject, SAML, 'SubjectConfirmation'), SAML, 'SubjectConfirmationData').hasAttribute('InResponseTo'), false);
    assert.equal(text(only(only(only(assertion, SAML, 'AuthnStatement'), SAML, 'AuthnContext'), SAML, 'AuthnContextClassRef')), CLASS_MFA);
    assert.equal(children(assertion, SAML, 'AttributeStatement').length, 0);
  });

  it('qualifies a pairwise NameID by both entity ids and leaves an e-mail address unqualified (SAML Core §8.3)', async () => {
    const persistent = only(only((await response({ signAssertion: true, signResponse: false })).assertion, SAML, 'Subject'), SAML, 'NameID');
    assert.deepEqual(
      [persistent.getAttribute('Format'), persistent.getAttribute('NameQualifier'), persistent.getAttribute('SPNameQualifier'), text(persistent)],
      [PERSISTENT, IDP, SP, 'pairwise-id'],
    );
    const email = only(
      only(
        (await response({ signAssertion: true, signResponse: false }, { nameId: { value: 'a@example.com', format: EMAIL, qualified: false } })).assertion,
        SAML,
        'Subject',
      ),
      SAML,
      'NameID',
    );
    assert.deepEqual(
      [email.getAttribute('Format'), email.hasAttribute('NameQualifier'), email.hasAttribute('SPNameQualifier'), text(email)],
      [EMAIL, false, false, 'a@example.com'],
    );
  });

  it('places each signature right after its Issuer, and each verifies with the certificate (SAML Core §5.4.1)', async () => {
    const { xml, root, assertion } = await response({ signAssertion: true, signResponse: true });
    assert.deepEqual(childNames(root).slice(0, 2), ['saml:Issuer', 'ds:Signature']);
    assert.deepEqual(childNames(assertion).slice(0, 2), ['saml:Issuer', 'ds:Signature']);
    assert.equal(verifiedRoot(xml, root, signer.certificatePem).getAttribute('ID'), root.getAttribute('ID'));
    const assertionXml = xml.slice(xml.indexOf('<saml:Assertion'), xml.indexOf('</saml:Assertion>') + '</saml:Assertion>'.length);
    const standalone = parseXml(assertionXml).documentElement;
    assert.equal(verifiedRoot(assertionXml, standalone, signer.certificatePem).getAttribute('ID'), assertion.getAttribute('ID'));
  });

  it('signs only what the application asks, and the response when nothing else is signed (SAML Profiles §4.1.3.5)', async () => {
    const assertionOnly = await response({ signAssertion: true, signResponse: false });
    assert.deepEqual([children(assertionOnly.root, DS, 'Signature').length, children(assertionOnly.assertion, DS, 'Signature').length], [0, 1]);
    const responseOnly = await response({ signAssertion: false, signResponse: true });
    assert.deepEqual([children(responseOnly.root, DS, 'Signature').length, children(responseOnly.assertion, DS, 'Signature').length], [1, 0]);
    const neither = await response({ signAssertion: false, signResponse: false });
    assert.deepEqual([children(neither.root, DS, 'Signature').length, children(neither.assertion, DS, 'Signature').length], [1, 0]);
  });

  it('encrypts the assertion to the SP certificate when asked; a signed response is signed around it', async () => {
    const sp = await newSelfSignedCredentials('sp.example');
    const xml = await successResponse(content(), { signer, signAssertion: true, signResponse: true, encryptTo: sp.certificatePem }, NOW);
    const root = parseXml(xml).documentElement;
    assert.equal(children(root, SAML, 'Assertion').length, 0);
    assert.equal(children(root, SAML, 'EncryptedAssertion').length, 1);
    assert.equal(xml.includes('pairwise-id'), false);
    assert.deepEqual(childNames(root).slice(0, 2), ['saml:Issuer', 'ds:Signature']);
    assert.equal(verifiedRoot(xml, root, signer.certificatePem).getAttribute('ID'), root.getAttribute('ID'));
  });

  it('nests a second-level status under Requester or Responder and asserts nothing (SAML Core §3.2.2.2)', () => {
    for (const [status, top] of [
      [STATUS.noPassive, STATUS.responder],
      [STATUS.noAuthnContext, STATUS.responder],
      [STATUS.requestDenied, STATUS.requester],
      [STATUS.invalidNameIdPolicy, STATUS.requester],
    ] as const) {
      const xml = errorResponse(IDP, ACS, '_request1', status, 'why <not>', signer, NOW);
      const root = parseXml(xml).documentElement;
      const outer = only(only(root, SAMLP, 'Status'), SAMLP, 'StatusCode');
      assert.deepEqual([outer.getAttribute('Value'), only(outer, SAMLP, 'StatusCode').getAttribute('Value')], [top, status]);
      assert.equal(text(only(only(root, SAMLP, 'Status'), SAMLP, 'StatusMessage')), 'why <not>');
      assert.equal(children(root, SAML, 'Assertion').length, 0);
      assert.deepEqual([root.getAttribute('Destination'), root.getAttribute('InResponseTo')], [ACS, '_request1']);
      assert.deepEqual(childNames(root).slice(0, 2), ['saml:Issuer', 'ds:Signature']);
      assert.equal(verifiedRoot(xml, root, signer.certificatePem).getAttribute('ID'), root.getAttribute('ID'));
    }
    const requester = only(
      only(parseXml(errorResponse(IDP, ACS, null, STATUS.requester, 'bad', signer, NOW)).documentElement, SAMLP, 'Status'),
      SAMLP,
      'StatusCode',
    );
    assert.deepEqual([requester.getAttribute('Value'), children(requester, SAMLP, 'StatusCode').length], [STATUS.requester, 0]);
  });
});
