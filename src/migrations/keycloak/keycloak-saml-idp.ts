import type { PlannedSamlIdp, Unmapped } from '../migration-plan.js';

/** Keycloak's SAML identity provider settings this mapping reads, or that the metadata it makes states anyway. */
const READ = new Set([
  'idpEntityId',
  'singleSignOnServiceUrl',
  'singleLogoutServiceUrl',
  'signingCertificate',
  'nameIDPolicyFormat',
  'wantAuthnRequestsSigned',
  'validateSignature',
  'postBindingResponse',
  'postBindingAuthnRequest',
  'postBindingLogout',
  'principalType',
  'entityId',
  'syncMode',
  'guiOrder',
  'hideOnLoginPage',
]);
const HTTP_URL = /^https?:\/\/[^\s"<>]+$/;
const BASE64 = /^[A-Za-z0-9+/]+=*$/;
const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/**
 * A Keycloak `saml` identity provider as an upstream SAML IdP (docs/migrating.md, "What maps to what"): SAML metadata
 * (SAML Metadata §2.4.3) made from its entity id, SSO and logout URLs and signing certificates, which the federation
 * room reads as it reads any IdP's. The AuthnRequest goes by HTTP-Redirect here (docs/federation.md, "SAML"), which
 * a SAML IdP's SingleSignOnService URL takes as it takes POST. An IdP whose responses Keycloak did not check
 * (`validateSignature` off, no certificate) cannot be trusted here and is listed; so is a NameID that is not its
 * subject (`principalType` an attribute), since its people's links are keyed by the NameID.
 */
export function samlIdpOf(idp: Record<string, unknown>, alias: string, path: string, name: string): { idp?: PlannedSamlIdp; unmapped: Unmapped[] } {
  const config = (idp.config ?? {}) as Record<string, string>;
  const entityId = config.idpEntityId ?? '';
  const ssoUrl = config.singleSignOnServiceUrl ?? '';
  const certificates = (config.signingCertificate ?? '')
    .split(',')
    .map((c) => c.replace(/\s+/g, ''))
    .filter((c) => c !== '');
  const refuse = (at: string, reason: string) => ({ unmapped: [{ path: at, reason: `the SAML identity provider ${alias}: ${reason}` }] });
  if (entityId === '' || !HTTP_URL.test(ssoUrl)) return refuse(path, 'no idpEntityId or singleSignOnServiceUrl: add it with its metadata (docs/federation.md)');
  if (config.validateSignature !== 'true' || certificates.length === 0 || !certificates.every((c) => BASE64.test(c)))
    return refuse(
      `${path}.config.signingCertificate`,
      'its responses were not checked against a signing certificate, which every SAML IdP here needs: add it with its metadata (docs/federation.md)',
    );
  if ((config.principalType ?? 'SUBJECT') !== 'SUBJECT')
    return refuse(
      `${path}.config.principalType`,
      'its users were keyed by an attribute, here by the NameID: add it with its metadata; its people link at first sign-in',
    );
  const unmapped: Unmapped[] = [];
  for (const key of Object.keys(config))
    if (!READ.has(key)) unmapped.push({ path: `${path}.config.${key}`, reason: 'an identity provider setting without a counterpart here' });
  const slo = HTTP_URL.test(config.singleLogoutServiceUrl ?? '')
    ? `<md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${xmlText(config.singleLogoutServiceUrl)}"/>`
    : '';
  const keys = certificates
    .map(
      (c) =>
        `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${c}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
    )
    .join('');
  const metadataXml =
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${xmlText(entityId)}">` +
    `<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">${keys}${slo}` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${xmlText(ssoUrl)}"/>` +
    '</md:IDPSSODescriptor></md:EntityDescriptor>';
  return {
    idp: {
      type: 'saml',
      sourceId: alias,
      name,
      metadataXml,
      nameIdFormat: config.nameIDPolicyFormat || 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      signAuthnRequests: config.wantAuthnRequestsSigned === 'true',
    },
    unmapped,
  };
}
