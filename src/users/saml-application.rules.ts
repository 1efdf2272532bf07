import { X509Certificate } from 'node:crypto';
import { DomainError } from '../common/errors/domain-error.js';
import { MAX_RELAY_STATE_BYTES } from '../common/xml/saml-xml.js';
import type { ErrorDetail } from '../common/errors/domain-error.js';
import type { SamlAttributeMapping, SamlNameIdFormat } from './entities/saml-application.entity.js';
import { spMetadataOf } from './saml-sp-metadata.js';
import { checkEndpointUrl } from './rules/endpoint-url.js';

/** What a SAML application is, as stored (docs/saml.md, "SAML applications"). */
export interface NewSamlApplication {
  name: string;
  entityId: string;
  acsUrls: string[];
  nameIdFormat: SamlNameIdFormat;
  attributes: SamlAttributeMapping[];
  signAssertion: boolean;
  signResponse: boolean;
  encryptAssertion: boolean;
  spCertificate: string | null;
  requireSignedRequests: boolean;
  sloUrl: string | null;
  allowIdpInitiated: boolean;
  idpInitiatedRelayState: string | null;
}

/** A create request: the fields given, and the service provider's metadata for those not given. */
export type SamlApplicationInput = Partial<NewSamlApplication> & { name: string; metadataXml?: string };

export const NAME_ID_FORMATS: SamlNameIdFormat[] = ['persistent', 'emailAddress', 'unspecified', 'transient'];
export const ATTRIBUTE_SOURCES = ['userName', 'email', 'givenName', 'familyName', 'displayName', 'groups', 'roles', 'userId'] as const;
export const ATTRIBUTE_NAME_FORMATS = ['basic', 'uri', 'unspecified'] as const;
export const MAX_ACS_URLS = 20;
export const MAX_ATTRIBUTES = 50;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The application a create request describes: given fields first, then what the SP's metadata says (entity id, ACS
 * URLs of the HTTP-POST binding, single logout URL, certificate, whether it signs its requests or wants signed
 * assertions), then the defaults of docs/saml.md (assertion and response signed, nothing encrypted, no IdP-initiated
 * sign-in). Validated whole; a 400 lists every problem.
 */
export function samlApplicationFrom(input: SamlApplicationInput): NewSamlApplication {
  const metadata = input.metadataXml === undefined ? {} : spMetadataOf(input.metadataXml);
  const app: NewSamlApplication = {
    name: input.name,
    entityId: input.entityId ?? metadata.entityId ?? '',
    acsUrls: input.acsUrls ?? metadata.acsUrls ?? [],
    nameIdFormat: input.nameIdFormat ?? metadata.nameIdFormat ?? 'persistent',
    attributes: input.attributes ?? [],
    signAssertion: input.signAssertion ?? metadata.wantAssertionsSigned ?? true,
    signResponse: input.signResponse ?? true,
    encryptAssertion: input.encryptAssertion ?? false,
    spCertificate: input.spCertificate ?? metadata.certificate ?? null,
    requireSignedRequests: input.requireSignedRequests ?? metadata.authnRequestsSigned ?? false,
    sloUrl: input.sloUrl ?? metadata.sloUrl ?? null,
    allowIdpInitiated: input.allowIdpInitiated ?? false,
    idpInitiatedRelayState: input.idpInitiatedRelayState ?? null,
  };
  return validSamlApplication(app);
}

/** Checks the application as it would be stored; the certificate comes back as PEM whichever form it was given in. */
export function validSamlApplication(app: NewSamlApplication): NewSamlApplication {
  const problems: ErrorDetail[] = [];
  checkEntityId(app.entityId, problems);
  if (app.acsUrls.length === 0) problems.push({ field: 'acsUrls', message: 'at least one AssertionConsumerService URL (HTTP-POST binding) is needed' });
  if (app.acsUrls.length > MAX_ACS_URLS) problems.push({ field: 'acsUrls', message: `at most ${MAX_ACS_URLS} URLs` });
  if (new Set(app.acsUrls).size !== app.acsUrls.length) problems.push({ field: 'acsUrls', message: 'each URL once' });
  app.acsUrls.forEach((url, i) => checkEndpoint(url, `acsUrls.${i}`, problems));
  if (app.sloUrl !== null) checkEndpoint(app.sloUrl, 'sloUrl', problems);
  if (app.idpInitiatedRelayState !== null) checkIdpInitiatedRelayState(app.idpInitiatedRelayState, app.acsUrls, problems);
  checkAttributes(app.attributes, problems);
  let spCertificate = app.spCertificate;
  if (spCertificate !== null) {
    spCertificate = certificatePem(spCertificate);
    if (spCertificate === null) problems.push({ field: 'spCertificate', message: 'not an X.509 certificate (PEM, or base64 DER as metadata carries it)' });
  }
  if (app.spCertificate === null && app.encryptAssertion)
    problems.push({ field: 'encryptAssertion', message: "encrypting assertions needs the service provider's certificate (spCertificate)" });
  if (app.spCertificate === null && app.requireSignedRequests)
    problems.push({ field: 'requireSignedRequests', message: "verifying signed requests needs the service provider's certificate (spCertificate)" });
  if (problems.length > 0) throw DomainError.invalid('the SAML application configuration is invalid', problems);
  return { ...app, spCertificate };
}

function checkEntityId(entityId: string, problems: ErrorDetail[]): void {
  // SAML Core §8.3.6: an entity identifier is a URI of at most 1024 characters; this one is stored in 512.
  if (entityId === '') problems.push({ field: 'entityId', message: "the service provider's entity id is needed (or metadataXml naming it)" });
  else if (entityId.length > 512) problems.push({ field: 'entityId', message: 'at most 512 characters' });
  else if (/[\s\u0000-\u001f\u007f]/.test(entityId) || !isAbsoluteUri(entityId))
    problems.push({ field: 'entityId', message: 'an absolute URI without spaces (a URL or a URN)' });
}

/** Where a response or a logout goes: https, or http to this machine's loopback only (a service provider under development). */
const LOOPBACK_HTTP = { allows: (url: URL) => LOOPBACK.has(url.hostname), refusal: 'https is needed (http only to localhost, 127.0.0.1 or [::1])' };

function checkEndpoint(value: string, field: string, problems: ErrorDetail[]): void {
  if (value.length > 2048) return void problems.push({ field, message: 'at most 2048 characters' });
  checkEndpointUrl(value, field, LOOPBACK_HTTP, problems);
}

/**
 * The RelayState an IdP-initiated response carries: the SP sends the browser there after its ACS (mellon, SimpleSAMLphp
 * do), so anything but the SP's own pages would make it an open redirect (docs/saml.md, "IdP-initiated sign-in"). A URL
 * whose origin is exactly that of one of the ACS URLs, or a path from the root (RFC 3986 §4.2, absolute-path
 * reference): `//host` and `/\host` are read by browsers as another host, so they are not paths here. At most 80
 * bytes (SAML Bindings §3.4.3).
 */
function checkIdpInitiatedRelayState(value: string, acsUrls: string[], problems: ErrorDetail[]): void {
  const field = 'idpInitiatedRelayState';
  if (Buffer.byteLength(value, 'utf8') > MAX_RELAY_STATE_BYTES) return void problems.push({ field, message: `at most ${MAX_RELAY_STATE_BYTES} bytes` });
  if (value.includes('\\') || /[\s\u0000-\u001f\u007f]/.test(value))
    return void problems.push({ field, message: 'no spaces, control characters or backslashes' });
  if (value.startsWith('/')) {
    if (value.startsWith('//')) problems.push({ field, message: 'a path starts with one slash ("//host" names another host)' });
    return;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return void problems.push({ field, message: 'a path starting with "/" or an absolute URL of the service provider' });
  }
  if (url.username || url.password) return void problems.push({ field, message: 'no user information' });
  const origins = new Set(acsUrls.flatMap((acs) => originOf(acs) ?? []));
  if (!origins.has(url.origin)) problems.push({ field, message: 'the URL must have the origin (scheme, host and port) of one of the acsUrls' });
}

function originOf(value: string): string | undefined {
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}

function checkAttributes(attributes: SamlAttributeMapping[], problems: ErrorDetail[]): void {
  if (attributes.length > MAX_ATTRIBUTES) problems.push({ field: 'attributes', message: `at most ${MAX_ATTRIBUTES} attributes` });
  const names = new Set<string>();
  attributes.forEach((attribute, i) => {
    if (attribute.name.length === 0 || attribute.name.length > 256 || /[\u0000-\u001f\u007f]/.test(attribute.name)) {
      problems.push({ field: `attributes.${i}.name`, message: 'a name of 1 to 256 characters, without control characters' });
    }
    if (names.has(attribute.name)) problems.push({ field: `attributes.${i}.name`, message: `"${attribute.name}" is given twice` });
    names.add(attribute.name);
    if (attribute.nameFormat === 'uri' && !isAbsoluteUri(attribute.name))
      problems.push({ field: `attributes.${i}.name`, message: 'a uri name format needs a URI name' });
  });
}

function isAbsoluteUri(value: string): boolean {
  try {
    return new URL(value).protocol.length > 1;
  } catch {
    return false;
  }
}

/** PEM of a certificate given as PEM or as base64 DER; null when it is not one. */
function certificatePem(value: string): string | null {
  const text = value.trim();
  try {
    const der = text.startsWith('-----BEGIN CERTIFICATE-----') ? text : Buffer.from(text.replace(/\s+/g, ''), 'base64');
    return new X509Certificate(der).toString();
  } catch {
    return null;
  }
}
