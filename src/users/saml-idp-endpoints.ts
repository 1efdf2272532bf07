/** An organization's SAML IdP endpoints (docs/saml.md, "Metadata" and "Single sign-on"). */
export interface IdpEndpoints {
  entityId: string;
  metadataUrl: string;
  ssoUrl: string;
  sloUrl: string;
  /** IdP-initiated sign-in: `?sp=<entity id>`. */
  initUrl: string;
  /**
   * Where the applications' hidden clients return from the sign-in (not for service providers): their one
   * redirect URI, where the SAML module takes the code itself (docs/saml.md, "SAML applications").
   */
  continueUrl: string;
}

/**
 * An organization's SAML IdP: its entity id is the URL of its metadata, as SAML Metadata §4.1 suggests (the
 * well-known location), and its endpoints sit beside it under `/saml/v2/{orgId}`. Kept in the domain because the
 * admin API tells them to operators, the SAML module answers at them and the OIDC module registers the hidden
 * clients' redirect URI.
 */
export function idpEndpoints(publicUrl: string, orgId: string): IdpEndpoints {
  const base = `${publicUrl}/saml/v2/${encodeURIComponent(orgId)}`;
  return {
    entityId: `${base}/metadata`,
    metadataUrl: `${base}/metadata`,
    ssoUrl: `${base}/sso`,
    sloUrl: `${base}/slo`,
    initUrl: `${base}/init`,
    continueUrl: `${base}/continue`,
  };
}
