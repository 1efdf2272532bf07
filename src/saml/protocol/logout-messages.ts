import { randomBytes } from 'node:crypto';
import { children, parseXml, SAML, SAMLP, text, XmlRefused, xmlEscape as x } from '../../common/xml/saml-xml.js';
import { deflated } from './bindings.js';
import type { ReceivedMessage } from './bindings.js';
import { REQUEST_WINDOW_MS, RSA_SHA256, samlId, samlInstant, STATUS } from './saml-names.js';
import { redirectSignature, redirectSignatureHolds, verifiedRoot } from './xml-signature.js';
import type { SamlSigner } from './xml-signature.js';

/** A NameID as an assertion carried it, to be named again in a logout (SAML Core §3.7.1). */
export interface LoggedOutName {
  value: string;
  format: string;
  qualified: boolean;
}

/** What a service provider's LogoutRequest names (SAML Core §3.7.1). */
export interface LogoutRequestFields {
  id: string;
  issuer: string;
  nameId: string;
  sessionIndexes: string[];
}

/** The Issuer of a received LogoutRequest (parsed as data only), to find the SP it must be checked against. */
export function readLogoutRequest(message: ReceivedMessage): { root: Element; issuer: string } {
  const root = parseXml(message.xml).documentElement;
  if (root.namespaceURI !== SAMLP || root.localName !== 'LogoutRequest') throw new XmlRefused('not a samlp:LogoutRequest');
  const issuer = text(children(root, SAML, 'Issuer')[0]);
  if (issuer === '') throw new XmlRefused('the request names no Issuer');
  return { root, issuer };
}

/**
 * A LogoutRequest must be signed (SAML Profiles §4.4.4.1: authenticated; by HTTP-Redirect over the query, by HTTP-POST
 * enveloped), addressed to this SLO URL and recent. Returns the fields as signed.
 */
export function checkLogoutRequest(message: ReceivedMessage, root: Element, certificatePem: string | null, sloUrl: string, now: Date): LogoutRequestFields {
  if (!certificatePem) throw new XmlRefused('the service provider has no certificate: its logout requests cannot be verified');
  let signed = root;
  if (message.binding === 'redirect') {
    const signature = message.querySignature;
    if (!signature || !redirectSignatureHolds(signature.octets, signature.sigAlg, signature.signature, certificatePem))
      throw new XmlRefused('the logout request is not signed by the service provider');
  } else {
    signed = verifiedRoot(message.xml, root, certificatePem);
  }
  if (signed.getAttribute('Destination') !== sloUrl) throw new XmlRefused(`Destination must be ${sloUrl}`);
  const issued = Date.parse(signed.getAttribute('IssueInstant') ?? '');
  if (Number.isNaN(issued) || Math.abs(now.getTime() - issued) > REQUEST_WINDOW_MS) throw new XmlRefused('IssueInstant is not within 3 minutes of now');
  const nameId = text(children(signed, SAML, 'NameID')[0]);
  if (nameId === '') throw new XmlRefused('the logout request names no NameID');
  return {
    id: signed.getAttribute('ID') ?? '',
    issuer: text(children(signed, SAML, 'Issuer')[0]),
    nameId,
    sessionIndexes: children(signed, SAMLP, 'SessionIndex').map((index) => text(index)),
  };
}

/** The HTTP-Redirect query of a message this IdP sends (SAML Bindings §3.4.4.1), signed RSA-SHA256. */
export function signedRedirectQuery(name: 'SAMLRequest' | 'SAMLResponse', xml: string, relayState: string | null, signer: SamlSigner): string {
  const pieces = [`${name}=${encodeURIComponent(deflated(xml))}`];
  if (relayState !== null) pieces.push(`RelayState=${encodeURIComponent(relayState)}`);
  pieces.push(`SigAlg=${encodeURIComponent(RSA_SHA256)}`);
  const octets = pieces.join('&');
  return `${octets}&Signature=${encodeURIComponent(redirectSignature(octets, signer))}`;
}

/** The IdP's LogoutRequest to an SP for one assertion it issued (SAML Core §3.7.1): its NameID and SessionIndex. */
export function logoutRequestXml(issuer: string, spEntityId: string, destination: string, name: LoggedOutName, sessionIndex: string, now: Date): string {
  const qualifiers = name.qualified ? ` NameQualifier="${x(issuer)}" SPNameQualifier="${x(spEntityId)}"` : '';
  return (
    `<samlp:LogoutRequest xmlns:samlp="${SAMLP}" xmlns:saml="${SAML}" ID="${samlId(randomBytes(20))}" Version="2.0" IssueInstant="${samlInstant(now)}" Destination="${x(destination)}">` +
    `<saml:Issuer>${x(issuer)}</saml:Issuer><saml:NameID Format="${x(name.format)}"${qualifiers}>${x(name.value)}</saml:NameID>` +
    `<samlp:SessionIndex>${x(sessionIndex)}</samlp:SessionIndex></samlp:LogoutRequest>`
  );
}

/**
 * The answer to an SP's LogoutRequest (SAML Core §3.7.2): Success once the session is ended here; the other SPs of the
 * session are told by the outbox afterwards (saml_sessions), so their answers are not waited for.
 */
export function logoutResponseXml(issuer: string, destination: string, inResponseTo: string, now: Date): string {
  const status = `<samlp:StatusCode Value="${STATUS.success}"/>`;
  return (
    `<samlp:LogoutResponse xmlns:samlp="${SAMLP}" xmlns:saml="${SAML}" ID="${samlId(randomBytes(20))}" Version="2.0" IssueInstant="${samlInstant(now)}" Destination="${x(destination)}" InResponseTo="${x(inResponseTo)}">` +
    `<saml:Issuer>${x(issuer)}</saml:Issuer><samlp:Status>${status}</samlp:Status></samlp:LogoutResponse>`
  );
}
