import { children, parseXml, SAML, SAMLP, text, XmlRefused } from '../../common/xml/saml-xml.js';
import type { ReceivedMessage } from './bindings.js';
import { BINDING_POST, CLASS_MFA, REQUEST_WINDOW_MS, STATUS } from './saml-names.js';
import { redirectSignatureHolds, verifiedRoot } from './xml-signature.js';

/** What an AuthnRequest asks (SAML Core §3.4.1), read from its root's own children only. */
export interface AuthnRequestFields {
  id: string;
  issuer: string;
  issueInstant: Date;
  destination: string | null;
  acsUrl: string | null;
  forceAuthn: boolean;
  isPassive: boolean;
  /** `RequestedAuthnContext` names REFEDS MFA: a second factor is required (step-up, docs/saml.md, "Single sign-on"). */
  requiresMfa: boolean;
  nameIdFormat: string | null;
}

/** The service provider an AuthnRequest names, as far as checking the request needs it. */
export interface RequestingSp {
  acsUrls: string[];
  spCertificate: string | null;
  requireSignedRequests: boolean;
}

/**
 * A refusal found after the SP and its ACS URL are known: it is answered with a SAML error response to that ACS
 * (`status`), not an error page (SAML Profiles §4.1.3.5; docs/saml.md, "Single sign-on").
 */
export class AuthnRequestRefused extends XmlRefused {
  constructor(
    message: string,
    readonly status: string,
  ) {
    super(message);
  }
}

/** The request's `Issuer`, parsed as data only (DTDs refused; SAML Core §3.2.1): it names the SP to check it against. */
export function readAuthnRequest(message: ReceivedMessage): { root: Element; fields: AuthnRequestFields } {
  const root = parseXml(message.xml).documentElement;
  if (root.namespaceURI !== SAMLP || root.localName !== 'AuthnRequest') throw new XmlRefused('not a samlp:AuthnRequest');
  return { root, fields: fieldsOf(root) };
}

/**
 * The ACS URL to answer (SAML Profiles §4.1.4.1; docs/saml.md, "Single sign-on"): the request's own, which must be
 * registered for the SP exactly, or when it names
 * none the first registered one. Not registered: an error page, never a response to that URL.
 */
export function registeredAcs(fields: AuthnRequestFields, sp: RequestingSp): string {
  const acsUrl = fields.acsUrl ?? sp.acsUrls[0];
  if (!acsUrl || !sp.acsUrls.includes(acsUrl)) throw new XmlRefused('the AssertionConsumerServiceURL is not registered for this service provider');
  return acsUrl;
}

/**
 * Every other check of docs/saml.md, "Single sign-on", on an AuthnRequest of a known SP, in order: its signature when the SP must sign (by
 * HTTP-Redirect over the query, by HTTP-POST enveloped and covering the root), `Destination` this SSO URL,
 * `IssueInstant` within 3 minutes, the HTTP-POST binding for the response. Returns the fields as signed; the ID's
 * single use is the caller's (a database row). A refusal is answered to `acsUrl` (AuthnRequestRefused).
 */
export function checkAuthnRequest(
  message: ReceivedMessage,
  root: Element,
  sp: RequestingSp,
  ssoUrl: string,
  acsUrl: string,
  now: Date,
): { fields: AuthnRequestFields } {
  let fields = fieldsOf(root);
  const refuse = (why: string, status: string): never => {
    throw new AuthnRequestRefused(why, status);
  };
  if (sp.requireSignedRequests) {
    if (!sp.spCertificate) refuse('the service provider has no certificate to verify its requests with', STATUS.requester);
    if (message.binding === 'redirect') {
      const signature = message.querySignature;
      if (!signature) refuse('the request is not signed', STATUS.requestDenied);
      if (!redirectSignatureHolds(signature!.octets, signature!.sigAlg, signature!.signature, sp.spCertificate!))
        refuse('the signature does not verify', STATUS.requestDenied);
    } else {
      try {
        fields = fieldsOf(verifiedRoot(message.xml, root, sp.spCertificate!));
      } catch (error) {
        refuse((error as Error).message, STATUS.requestDenied);
      }
    }
  }
  if (fields.destination !== ssoUrl) refuse(`Destination must be ${ssoUrl}`, STATUS.requester);
  if (Math.abs(now.getTime() - fields.issueInstant.getTime()) > REQUEST_WINDOW_MS) refuse('IssueInstant is not within 3 minutes of now', STATUS.requester);
  const binding = root.getAttribute('ProtocolBinding');
  if (binding && binding !== BINDING_POST) refuse('responses go by the HTTP-POST binding only', STATUS.unsupportedBinding);
  if (root.hasAttribute('AssertionConsumerServiceIndex') && !fields.acsUrl)
    refuse('AssertionConsumerServiceIndex is not supported; send AssertionConsumerServiceURL', STATUS.requester);
  if (fields.acsUrl !== null && fields.acsUrl !== acsUrl) refuse('the signed request names another AssertionConsumerServiceURL', STATUS.requestDenied);
  return { fields };
}

function fieldsOf(root: Element): AuthnRequestFields {
  const id = root.getAttribute('ID') ?? '';
  if (!/^[A-Za-z_][\w.-]{0,255}$/.test(id)) throw new XmlRefused('the request has no valid ID');
  if (root.getAttribute('Version') !== '2.0') throw new XmlRefused('Version must be 2.0');
  const issuers = children(root, SAML, 'Issuer');
  if (issuers.length !== 1 || text(issuers[0]) === '') throw new XmlRefused('the request names no Issuer');
  const issueInstant = new Date(root.getAttribute('IssueInstant') ?? '');
  if (Number.isNaN(issueInstant.getTime())) throw new XmlRefused('IssueInstant is not a date and time');
  const context = children(root, SAMLP, 'RequestedAuthnContext')[0];
  const classRefs = context ? children(context, SAML, 'AuthnContextClassRef').map((ref) => text(ref)) : [];
  const policy = children(root, SAMLP, 'NameIDPolicy')[0];
  return {
    id,
    issuer: text(issuers[0]),
    issueInstant,
    destination: root.getAttribute('Destination') || null,
    acsUrl: root.getAttribute('AssertionConsumerServiceURL') || null,
    forceAuthn: isTrue(root.getAttribute('ForceAuthn')),
    isPassive: isTrue(root.getAttribute('IsPassive')),
    requiresMfa: classRefs.includes(CLASS_MFA),
    nameIdFormat: policy?.getAttribute('Format') || null,
  };
}

/** xs:boolean (XML Schema Part 2 §3.2.2). */
function isTrue(value: string | null): boolean {
  return value === 'true' || value === '1';
}
