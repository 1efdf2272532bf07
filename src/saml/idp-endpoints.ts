import { hiddenClientReturnUrl } from '../oidc/hidden-client/hidden-client-sign-in.js';

/** An organization's SAML IdP endpoints (docs/saml.md). */
export interface IdpEndpoints {
  entityId: string;
  metadataUrl: string;
  ssoUrl: string;
  sloUrl: string;
  /** IdP-initiated sign-in: `?sp=<entity id>`. */
  initUrl: string;
  /** Where the applications' hidden clients return from the sign-in (not for service providers). */
  continueUrl: string;
}

/**
 * An organization's SAML IdP (docs/saml.md): its entity id is the URL of its metadata, as SAML Metadata §4.1 suggests
 * (the well-known location), and its endpoints sit beside it under `/saml/v2/{orgId}`.
 */
export function idpEndpoints(publicUrl: string, orgId: string): IdpEndpoints {
  const base = `${publicUrl}/saml/v2/${encodeURIComponent(orgId)}`;
  return { entityId: `${base}/metadata`, metadataUrl: `${base}/metadata`, ssoUrl: `${base}/sso`, sloUrl: `${base}/slo`, initUrl: `${base}/init`, continueUrl: hiddenClientReturnUrl(publicUrl, orgId) };
}
