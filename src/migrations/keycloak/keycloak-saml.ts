import type { PlannedSamlApp, Unmapped } from '../migration-plan.js';
import type { KcClient } from './keycloak-document.js';

/** Keycloak's NameID formats (its `saml_name_id_format` attribute) and what each is here (SAML Core §8.3). */
const NAME_ID_FORMATS: Record<string, PlannedSamlApp['nameIdFormat']> = {
  email: 'emailAddress',
  persistent: 'persistent',
  transient: 'transient',
  unspecified: 'unspecified',
};

/** The client attributes read below; every other `saml…` attribute is listed as unmapped. */
const READ = new Set([
  'saml_name_id_format',
  'saml_assertion_consumer_url_post',
  'saml_single_logout_service_url_post',
  'saml.signing.certificate',
  'saml.encryption.certificate',
  'saml.server.signature',
  'saml.assertion.signature',
  'saml.client.signature',
  'saml.encrypt',
  'saml_idp_initiated_sso_url_name',
  'saml_idp_initiated_sso_relay_state',
]);

/** Attributes whose Keycloak value is also the only behaviour here: listed only when they say something else. */
const SAME_HERE: Record<string, string> = {
  'saml.force.post.binding': 'true',
  'saml.authnstatement': 'true',
  'saml.artifact.binding': 'false',
  saml_force_name_id_format: 'false',
  'saml.onetimeuse.condition': 'false',
  'saml.allow.ecp.flow': 'false',
  'saml.server.signature.keyinfo.ext': 'false',
  // The IdP here signs with RSA-SHA256 and exclusive canonicalization (docs/saml.md).
  'saml.signature.algorithm': 'RSA_SHA256',
  saml_signature_canonicalization_method: 'http://www.w3.org/2001/10/xml-exc-c14n#',
};

/**
 * A Keycloak `saml` client as a SAML application (docs/migrating.md, "SAML clients"): its `clientId` is the SP's
 * entity id; the ACS URL is the POST one Keycloak holds, else its exact redirect URIs (Keycloak checks an
 * AuthnRequest's ACS URL against them); the SP's signing certificate; the NameID format; which parts are signed.
 * What the SAML IdP here cannot carry is listed with its path.
 */
export function planSamlClient(client: KcClient, path: string): { app: PlannedSamlApp | null; unmapped: Unmapped[] } {
  const unmapped: Unmapped[] = [];
  const attributes = client.attributes ?? {};
  const acsPost = attributes.saml_assertion_consumer_url_post;
  const acsUrls: string[] = [];
  if (acsPost) acsUrls.push(acsPost);
  else
    for (const [i, uri] of (client.redirectUris ?? []).entries()) {
      if (uri.includes('*')) unmapped.push({ path: `${path}.redirectUris[${i}]`, reason: `a wildcard ACS URL is not carried: add the exact ones (${uri})` });
      else acsUrls.push(uri);
    }
  if (acsUrls.length === 0) {
    unmapped.push({ path, reason: 'a SAML client without an exact ACS URL (saml_assertion_consumer_url_post or redirectUris) cannot be signed in to' });
    return { app: null, unmapped };
  }
  const format = attributes.saml_name_id_format ?? 'username';
  let nameIdFormat = NAME_ID_FORMATS[format];
  if (nameIdFormat === undefined) {
    nameIdFormat = 'unspecified';
    unmapped.push({
      path: `${path}.attributes.saml_name_id_format`,
      reason: `the ${format} NameID format has no counterpart: the application sends unspecified NameIDs (docs/saml.md)`,
    });
  }
  const signing = nonEmpty(attributes['saml.signing.certificate']);
  const encryption = nonEmpty(attributes['saml.encryption.certificate']);
  const encrypt = attributes['saml.encrypt'] === 'true';
  // One SP certificate here verifies its requests and encrypts to it: a second, different one stays behind.
  if (encryption !== null && signing !== null && encryption !== signing)
    unmapped.push({ path: `${path}.attributes.saml.encryption.certificate`, reason: 'one SP certificate per application here: the signing one is kept' });
  const spCertificate = signing ?? (encrypt ? encryption : null);
  // Keycloak asks for signed AuthnRequests by default; that needs the SP's signing certificate.
  const wantsSigned = attributes['saml.client.signature'] !== 'false';
  if (wantsSigned && signing === null)
    unmapped.push({
      path: `${path}.attributes.saml.client.signature`,
      reason: 'signed AuthnRequests need the SP’s signing certificate, which the export does not hold',
    });
  const relayState = nonEmpty(attributes.saml_idp_initiated_sso_relay_state);
  const allowIdpInitiated = nonEmpty(attributes.saml_idp_initiated_sso_url_name) !== null;
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith('saml') || READ.has(key) || SAME_HERE[key] === value || value === '') continue;
    unmapped.push({ path: `${path}.attributes.${key}`, reason: 'a SAML setting with no counterpart here (docs/saml.md lists what an application holds)' });
  }
  if (Array.isArray(client.protocolMappers) && client.protocolMappers.length > 0)
    unmapped.push({ path: `${path}.protocolMappers`, reason: 'protocol mappers have no counterpart: choose the application’s attributes (docs/saml.md)' });
  return {
    app: {
      sourceId: client.id ?? client.clientId,
      name: client.name || client.clientId,
      entityId: client.clientId,
      acsUrls,
      nameIdFormat,
      signAssertion: attributes['saml.assertion.signature'] === 'true',
      signResponse: attributes['saml.server.signature'] !== 'false',
      encryptAssertion: encrypt && spCertificate !== null,
      spCertificate,
      requireSignedRequests: wantsSigned && signing !== null,
      sloUrl: nonEmpty(attributes.saml_single_logout_service_url_post),
      allowIdpInitiated,
      idpInitiatedRelayState: allowIdpInitiated ? relayState : null,
    },
    unmapped,
  };
}

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}
