import { invalid } from '../idp-settings.js';
import { DS, elements, MD, parseXml, text, XmlRefused } from '../../common/xml/saml-xml.js';

const HTTP_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** What this SP needs of an IdP's metadata (SAML Metadata §2.4.3). */
export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  /** Base64 DER of each signing certificate. */
  certificates: string[];
  /** The SingleLogoutService of the HTTP-Redirect binding (SAML Metadata §2.2.2), and its ResponseLocation if another. */
  sloUrl?: string;
  sloResponseUrl?: string;
}

/**
 * Reads an IdP's SAML metadata: its entity id, the SingleSignOnService of the HTTP-Redirect binding (the
 * AuthnRequest's binding: docs/federation.md) and its signing certificates (KeyDescriptor without `use` or `use="signing"`).
 * A document with several IdPs, none, or without a certificate is refused with a 400 naming what is missing.
 */
export function idpMetadataOf(xml: string): IdpMetadata {
  let doc: Document;
  try {
    doc = parseXml(xml);
  } catch (error) {
    throw invalid('metadataXml', `metadata: ${error instanceof XmlRefused ? error.message : 'not XML'}`);
  }
  const idps = elements(doc, MD, 'IDPSSODescriptor');
  if (idps.length !== 1) throw invalid('metadataXml', `metadata: exactly one IDPSSODescriptor is needed, found ${idps.length}`);
  const descriptor = idps[0];
  const entity = descriptor.parentNode as Element | null;
  const entityId = entity?.getAttribute('entityID') ?? '';
  if (!entityId) throw invalid('metadataXml', 'metadata: the EntityDescriptor has no entityID');
  const sso = elements(descriptor, MD, 'SingleSignOnService').find((e) => e.getAttribute('Binding') === HTTP_REDIRECT);
  const ssoUrl = sso?.getAttribute('Location') ?? '';
  if (!/^https?:\/\//.test(ssoUrl)) throw invalid('metadataXml', 'metadata: no SingleSignOnService with the HTTP-Redirect binding');
  const certificates = elements(descriptor, MD, 'KeyDescriptor')
    .filter((k) => !k.getAttribute('use') || k.getAttribute('use') === 'signing')
    .flatMap((k) => elements(k, DS, 'X509Certificate').map((c) => text(c).replace(/\s+/g, '')))
    .filter((c) => /^[A-Za-z0-9+/]+=*$/.test(c));
  if (certificates.length === 0) throw invalid('metadataXml', 'metadata: no signing certificate (KeyDescriptor use="signing")');
  const slo = elements(descriptor, MD, 'SingleLogoutService').find((e) => e.getAttribute('Binding') === HTTP_REDIRECT);
  const sloUrl = slo?.getAttribute('Location') ?? '';
  const sloResponseUrl = slo?.getAttribute('ResponseLocation') ?? '';
  return {
    entityId,
    ssoUrl,
    certificates: [...new Set(certificates)],
    ...(/^https?:\/\//.test(sloUrl) ? { sloUrl, ...(/^https?:\/\//.test(sloResponseUrl) ? { sloResponseUrl } : {}) } : {}),
  };
}

/** A base64 DER certificate as PEM. */
export function pemOf(certificate: string): string {
  return `-----BEGIN CERTIFICATE-----\n${certificate.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
}
