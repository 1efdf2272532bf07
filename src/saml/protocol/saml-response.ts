import { createPublicKey, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type * as XmlEncryption from 'xml-encryption';
import { onFirstUse } from '../../common/modules/on-first-use.js';
import { SAML, SAMLP, xmlEscape as x } from '../../common/xml/saml-xml.js';
import { RESPONSE_LIFETIME_MS, samlId, samlInstant, STATUS, SUBJECT_CONFIRMATION_BEARER } from './saml-names.js';
import { signEnveloped } from './xml-signature.js';
import type { SamlSigner } from './xml-signature.js';

const XS = 'http://www.w3.org/2001/XMLSchema';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

/** An assertion's content (SAML Core §2.3.3): who, for whom, how and until when, and the attributes. */
export interface AssertionContent {
  issuer: string;
  audience: string;
  recipient: string;
  inResponseTo: string | null;
  nameId: { value: string; format: string; qualified: boolean };
  sessionIndex: string;
  authnInstant: Date;
  authnContextClassRef: string;
  attributes: { name: string; nameFormat: string; values: string[] }[];
}

/** How the response is protected (the application's settings, docs/saml.md, "SAML applications"). */
export interface Protection {
  signer: SamlSigner;
  signAssertion: boolean;
  signResponse: boolean;
  /** The SP's certificate (PEM) to encrypt the assertion to, or null. */
  encryptTo: string | null;
}

// Loaded at the first encrypted assertion, not at start-up (src/common/modules/on-first-use.ts).
const xmlEncryption = onFirstUse<typeof XmlEncryption>('xml-encryption');
const encryptXml = (content: string, options: object) =>
  (promisify(xmlEncryption().encrypt) as (content: string, options: object) => Promise<string>)(content, options);

/**
 * A `samlp:Response` with one bearer assertion (SAML Profiles §4.1.4.2): Destination and Recipient the ACS URL,
 * Audience the SP's entity id, InResponseTo the request's ID (none when IdP-initiated), valid 5 minutes. The
 * assertion is signed, then encrypted (AES-256-GCM, RSA-OAEP) when asked, then the response signed; neither signed
 * is never sent — the response is signed then (a bearer assertion must be protected, SAML Profiles §4.1.3.5).
 */
export async function successResponse(content: AssertionContent, protection: Protection, now: Date): Promise<string> {
  const assertionId = samlId(randomBytes(20));
  let assertion = assertionXml(assertionId, content, now);
  if (protection.signAssertion) assertion = signEnveloped(assertion, assertionId, protection.signer);
  if (protection.encryptTo) {
    const encrypted = await encryptXml(assertion, {
      rsa_pub: createPublicKey(protection.encryptTo).export({ type: 'spki', format: 'pem' }),
      pem: protection.encryptTo,
      encryptionAlgorithm: 'http://www.w3.org/2009/xmlenc11#aes256-gcm',
      keyEncryptionAlgorithm: 'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p',
      disallowEncryptionWithInsecureAlgorithm: true,
      warnInsecureAlgorithm: false,
    });
    assertion = `<saml:EncryptedAssertion xmlns:saml="${SAML}">${encrypted}</saml:EncryptedAssertion>`;
  }
  const signResponse = protection.signResponse || !protection.signAssertion;
  return responseXml(
    content.issuer,
    content.recipient,
    content.inResponseTo,
    statusXml(STATUS.success),
    assertion,
    signResponse ? protection.signer : null,
    now,
  );
}

/** A response carrying only an error status (SAML Core §3.2.2.2), signed: the SP learns why, nothing is asserted. */
export function errorResponse(
  issuer: string,
  destination: string,
  inResponseTo: string | null,
  status: string,
  message: string,
  signer: SamlSigner,
  now: Date,
): string {
  const top = status === STATUS.requester || status === STATUS.responder ? status : RESPONDER_CODES.has(status) ? STATUS.responder : STATUS.requester;
  const second = top === status ? '' : `<samlp:StatusCode Value="${x(status)}"/>`;
  const inner = `<samlp:Status><samlp:StatusCode Value="${x(top)}">${second}</samlp:StatusCode><samlp:StatusMessage>${x(message)}</samlp:StatusMessage></samlp:Status>`;
  return responseXml(issuer, destination, inResponseTo, inner, '', signer, now);
}

/** Second-level codes about the IdP's own side (SAML Core §3.2.2.2); the rest are the requester's fault. */
const RESPONDER_CODES = new Set<string>([STATUS.noPassive, STATUS.authnFailed, STATUS.noAuthnContext]);

function responseXml(
  issuer: string,
  destination: string,
  inResponseTo: string | null,
  status: string,
  assertion: string,
  signer: SamlSigner | null,
  now: Date,
): string {
  const id = samlId(randomBytes(20));
  const xml =
    `<samlp:Response xmlns:samlp="${SAMLP}" xmlns:saml="${SAML}" ID="${id}" Version="2.0" IssueInstant="${samlInstant(now)}" Destination="${x(destination)}"${inResponseTo ? ` InResponseTo="${x(inResponseTo)}"` : ''}>` +
    `<saml:Issuer>${x(issuer)}</saml:Issuer>${status}${assertion}</samlp:Response>`;
  return signer ? signEnveloped(xml, id, signer) : xml;
}

function statusXml(code: string): string {
  return `<samlp:Status><samlp:StatusCode Value="${x(code)}"/></samlp:Status>`;
}

/** The assertion, standalone with its own namespace declarations, so that its signature holds wherever it is placed. */
function assertionXml(id: string, c: AssertionContent, now: Date): string {
  const until = samlInstant(new Date(now.getTime() + RESPONSE_LIFETIME_MS));
  const qualifiers = c.nameId.qualified ? ` NameQualifier="${x(c.issuer)}" SPNameQualifier="${x(c.audience)}"` : '';
  const attributes = c.attributes.length === 0 ? '' : `<saml:AttributeStatement>${c.attributes.map(attributeXml).join('')}</saml:AttributeStatement>`;
  return (
    `<saml:Assertion xmlns:saml="${SAML}" xmlns:xs="${XS}" xmlns:xsi="${XSI}" ID="${id}" Version="2.0" IssueInstant="${samlInstant(now)}">` +
    `<saml:Issuer>${x(c.issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${x(c.nameId.format)}"${qualifiers}>${x(c.nameId.value)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="${SUBJECT_CONFIRMATION_BEARER}"><saml:SubjectConfirmationData${c.inResponseTo ? ` InResponseTo="${x(c.inResponseTo)}"` : ''} NotOnOrAfter="${until}" Recipient="${x(c.recipient)}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${samlInstant(now)}" NotOnOrAfter="${until}"><saml:AudienceRestriction><saml:Audience>${x(c.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${samlInstant(c.authnInstant)}" SessionIndex="${x(c.sessionIndex)}"><saml:AuthnContext><saml:AuthnContextClassRef>${x(c.authnContextClassRef)}</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    attributes +
    '</saml:Assertion>'
  );
}

function attributeXml(attribute: AssertionContent['attributes'][number]): string {
  const values = attribute.values.map((value) => `<saml:AttributeValue xsi:type="xs:string">${x(value)}</saml:AttributeValue>`).join('');
  return `<saml:Attribute Name="${x(attribute.name)}" NameFormat="${x(attribute.nameFormat)}">${values}</saml:Attribute>`;
}
