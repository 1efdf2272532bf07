import { DomainError } from '../common/errors/domain-error.js';
import { DS, elements, MD, parseXml, text, XmlRefused } from '../common/xml/saml-xml.js';
import type { SamlNameIdFormat } from './entities/saml-application.entity.js';

const HTTP_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const HTTP_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const FORMATS: Record<string, SamlNameIdFormat> = {
  'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent': 'persistent',
  'urn:oasis:names:tc:SAML:2.0:nameid-format:transient': 'transient',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress': 'emailAddress',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified': 'unspecified',
};

/** What a SAML application takes from its service provider's metadata. */
export interface SpMetadata {
  entityId?: string;
  acsUrls?: string[];
  sloUrl?: string;
  /** Base64 DER of the signing certificate (KeyDescriptor `use="signing"` or without `use`). */
  certificate?: string;
  nameIdFormat?: SamlNameIdFormat;
  authnRequestsSigned?: boolean;
  wantAssertionsSigned?: boolean;
}

/**
 * Reads a service provider's metadata (SAML Metadata §2.4.4, SPSSODescriptor), parsed as data only (no DTD, no
 * entities): its entity id, its AssertionConsumerService URLs of the HTTP-POST binding — the one this IdP answers by
 * (docs/saml.md) — default first, then by `index`; its SingleLogoutService (HTTP-Redirect preferred); its certificate;
 * its first NameID format this IdP offers; and whether it signs requests or wants signed assertions. A document with
 * no SP, or several, is a 400 naming what is wrong.
 */
export function spMetadataOf(xml: string): SpMetadata {
  let doc: Document;
  try {
    doc = parseXml(xml);
  } catch (error) {
    if (error instanceof XmlRefused) throw invalid(`metadataXml is refused: ${error.message}`);
    throw error;
  }
  const entities = elements(doc, MD, 'EntityDescriptor').filter((e) => elements(e, MD, 'SPSSODescriptor').length > 0);
  if (entities.length !== 1)
    throw invalid(`metadataXml must describe exactly one service provider (an EntityDescriptor with an SPSSODescriptor); it describes ${entities.length}`);
  const entity = entities[0]!;
  const [sp] = elements(entity, MD, 'SPSSODescriptor');
  const acs = elements(sp!, MD, 'AssertionConsumerService')
    .filter((e) => e.getAttribute('Binding') === HTTP_POST)
    .sort(
      (a, b) =>
        Number(b.getAttribute('isDefault') === 'true') - Number(a.getAttribute('isDefault') === 'true') ||
        Number(a.getAttribute('index') ?? 0) - Number(b.getAttribute('index') ?? 0),
    )
    .map((e) => e.getAttribute('Location') ?? '');
  const slo = elements(sp!, MD, 'SingleLogoutService').sort(
    (a, b) => Number(b.getAttribute('Binding') === HTTP_REDIRECT) - Number(a.getAttribute('Binding') === HTTP_REDIRECT),
  )[0];
  const key = elements(sp!, MD, 'KeyDescriptor').find((k) => (k.getAttribute('use') ?? 'signing') === 'signing') ?? elements(sp!, MD, 'KeyDescriptor')[0];
  const certificate = key ? text(elements(key, DS, 'X509Certificate')[0]) : '';
  const format = elements(sp!, MD, 'NameIDFormat')
    .map((e) => FORMATS[text(e)])
    .find((f) => f !== undefined);
  return {
    entityId: entity.getAttribute('entityID') ?? undefined,
    ...(acs.length > 0 ? { acsUrls: acs } : {}),
    ...(slo?.getAttribute('Location') ? { sloUrl: slo.getAttribute('Location')! } : {}),
    ...(certificate ? { certificate } : {}),
    ...(format ? { nameIdFormat: format } : {}),
    ...(sp!.hasAttribute('AuthnRequestsSigned') ? { authnRequestsSigned: sp!.getAttribute('AuthnRequestsSigned') === 'true' } : {}),
    ...(sp!.hasAttribute('WantAssertionsSigned') ? { wantAssertionsSigned: sp!.getAttribute('WantAssertionsSigned') === 'true' } : {}),
  };
}

function invalid(message: string): DomainError {
  return DomainError.invalid(message, [{ field: 'metadataXml', message }]);
}
