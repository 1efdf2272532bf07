/**
 * An organization's SAML IdP (DESIGN §15): its entity id is the URL of its metadata, as SAML Metadata §4.1 suggests
 * (the well-known location), and its endpoints sit beside it under `/saml/v2/{orgId}`.
 */
export function idpEndpoints(publicUrl: string, orgId: string): { entityId: string; metadataUrl: string; ssoUrl: string; sloUrl: string } {
  const base = `${publicUrl}/saml/v2/${encodeURIComponent(orgId)}`;
  return { entityId: `${base}/metadata`, metadataUrl: `${base}/metadata`, ssoUrl: `${base}/sso`, sloUrl: `${base}/slo` };
}
