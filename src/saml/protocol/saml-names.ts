/** Names SAML 2.0 gives to what the IdP says (SAML Core §3.2.2.2, §7; SAML Bindings §3.4–3.5). */

export const BINDING_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
export const BINDING_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

export const STATUS = {
  success: 'urn:oasis:names:tc:SAML:2.0:status:Success',
  requester: 'urn:oasis:names:tc:SAML:2.0:status:Requester',
  responder: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
  noPassive: 'urn:oasis:names:tc:SAML:2.0:status:NoPassive',
  authnFailed: 'urn:oasis:names:tc:SAML:2.0:status:AuthnFailed',
  requestDenied: 'urn:oasis:names:tc:SAML:2.0:status:RequestDenied',
  invalidNameIdPolicy: 'urn:oasis:names:tc:SAML:2.0:status:InvalidNameIDPolicy',
  noAuthnContext: 'urn:oasis:names:tc:SAML:2.0:status:NoAuthnContext',
  unsupportedBinding: 'urn:oasis:names:tc:SAML:2.0:status:UnsupportedBinding',
} as const;

/** SAML Authentication Context §3.4.18: a password over TLS; REFEDS MFA profile: two factors. */
export const CLASS_PASSWORD = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';
export const CLASS_MFA = 'https://refeds.org/profile/mfa';

export const SUBJECT_CONFIRMATION_BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

export const ATTRIBUTE_NAME_FORMATS = {
  basic: 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic',
  uri: 'urn:oasis:names:tc:SAML:2.0:attrname-format:uri',
  unspecified: 'urn:oasis:names:tc:SAML:2.0:attrname-format:unspecified',
} as const;

/** XML Signature and Encryption algorithms this IdP signs with and accepts (RSA-SHA256 and up; docs/saml.md, "Single sign-on"). */
export const SIGNATURE_ALGORITHMS: Record<string, 'sha256' | 'sha384' | 'sha512'> = {
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256': 'sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384': 'sha384',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512': 'sha512',
};
export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
export const EXCLUSIVE_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
export const ENVELOPED_SIGNATURE = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

/** A response lives 5 minutes (docs/saml.md, "Single sign-on"); a request is taken within 3 minutes of its IssueInstant. */
export const RESPONSE_LIFETIME_MS = 5 * 60_000;
export const REQUEST_WINDOW_MS = 3 * 60_000;

/** SAML's xs:dateTime, in UTC without fractions (SAML Core §1.3.3). */
export function samlInstant(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** An xs:ID: starts with a letter or underscore (SAML Core §1.3.4); 160 random bits. */
export function samlId(random: Buffer): string {
  return `_${random.toString('hex')}`;
}
