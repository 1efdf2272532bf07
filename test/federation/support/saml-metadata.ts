/**
 * A SAML IdP's metadata as an IdP publishes it, for tests that create a SAML IdP without signing in through it: the
 * service stores the certificate at creation and checks it only against responses.
 */
export function idpMetadataXml(entityId = 'https://idp.example/saml', ssoUrl = 'https://idp.example/sso'): string {
  return (
    `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">` +
    '<IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data>' +
    '<ds:X509Certificate>MIIBstored</ds:X509Certificate></ds:X509Data></ds:KeyInfo></KeyDescriptor>' +
    `<SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${ssoUrl}"/></IDPSSODescriptor></EntityDescriptor>`
  );
}
