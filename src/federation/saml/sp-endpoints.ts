import { LOGIN_IDP_PREFIX } from '../idp-paths.js';

/**
 * This SP's identity for one SAML IdP (docs/federation.md: per IdP, never per organization): its entity id is the URL of
 * its metadata, as SAML Metadata §4.1 suggests (well-known location), the ACS takes HTTP-POST responses, and single
 * logout takes HTTP-Redirect messages.
 */
export function samlEndpoints(publicUrl: string, idpId: string): { entityId: string; acsUrl: string; metadataUrl: string; sloUrl: string } {
  const base = `${publicUrl}${LOGIN_IDP_PREFIX}/${idpId}`;
  return { entityId: `${base}/metadata`, acsUrl: `${base}/acs`, metadataUrl: `${base}/metadata`, sloUrl: `${base}/slo` };
}
