import { xmlEscape as attribute } from '../common/xml/saml-xml.js';
import { idpEndpoints } from '../users/saml-idp-endpoints.js';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const BINDINGS = ['urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST'];

/** The NameID formats an application may choose (docs/saml.md, "NameID"), as SAML Core §8.3 names them. */
export const NAME_ID_FORMATS = {
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  emailAddress: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  unspecified: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
} as const;

/**
 * An organization's IdP metadata (SAML Metadata §2.4.3, IDPSSODescriptor): the signing certificates (the signer's
 * first; during a rotation both), single logout and single sign-on by the HTTP-Redirect and HTTP-POST bindings, and
 * the NameID formats. Elements in the schema's order (KeyDescriptor, SingleLogoutService, NameIDFormat,
 * SingleSignOnService): strict parsers (Lasso, behind mod_auth_mellon) refuse any other. Not signed: service
 * providers take it from an operator or over HTTPS, and its certificates are what they then trust.
 */
export function idpMetadataXml(publicUrl: string, orgId: string, certificates: string[]): string {
  const { entityId, ssoUrl, sloUrl } = idpEndpoints(publicUrl, orgId);
  const keys = certificates.map(
    (certificate) =>
      `    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
  );
  const slo = BINDINGS.map((binding) => `    <md:SingleLogoutService Binding="${binding}" Location="${attribute(sloUrl)}"/>`);
  const formats = Object.values(NAME_ID_FORMATS).map((format) => `    <md:NameIDFormat>${format}</md:NameIDFormat>`);
  const sso = BINDINGS.map((binding) => `    <md:SingleSignOnService Binding="${binding}" Location="${attribute(ssoUrl)}"/>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<md:EntityDescriptor xmlns:md="${MD}" xmlns:ds="${DS}" entityID="${attribute(entityId)}">`,
    `  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="${PROTOCOL}">`,
    ...keys,
    ...slo,
    ...formats,
    ...sso,
    '  </md:IDPSSODescriptor>',
    '</md:EntityDescriptor>',
    '',
  ].join('\n');
}
