/**
 * Where an IdP-initiated SAML sign-in lands (docs/federation.md, "IdP-initiated sign-in"): a path of this instance,
 * or an application of the IdP's organization. The landing is configured, never read from the response's
 * RelayState: what the IdP (or whoever posts to the ACS) sends must not choose where a signed-in browser goes
 * (an open redirect, SAML Profiles §4.1.3.1 leaves RelayState's meaning to the SP).
 *
 * - a path: one leading `/` followed by neither `/` nor `\` (browsers read `//host` and `/\host` as another
 *   host), no backslash, white space or control character;
 * - or an absolute `http`/`https` URL without credentials whose origin (RFC 6454) is exactly the origin of a
 *   redirect URI of one of the organization's OIDC applications.
 */
export function landingProblem(landing: string, applicationOrigins: readonly string[]): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\s\\\x00-\x1f\x7f]/.test(landing)) return 'idpInitiatedLanding may not contain white space, control characters or a backslash';
  if (landing.startsWith('/')) {
    if (landing.startsWith('//')) return 'idpInitiatedLanding: a path starts with one "/" ("//host" is another host)';
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(landing);
  } catch {
    return 'idpInitiatedLanding must be a path starting with "/" or an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'idpInitiatedLanding must be an http or https URL';
  if (url.username || url.password) return 'idpInitiatedLanding may not carry credentials';
  if (!applicationOrigins.includes(url.origin))
    return `idpInitiatedLanding: ${url.origin} is not the origin of a redirect URI of an OIDC application of this organization`;
  return undefined;
}

/** The landing as the browser is sent to it: a path on this instance, or the application's URL as it is. */
export function landingLocation(landing: string, publicUrl: string): string {
  return landing.startsWith('/') ? `${publicUrl}${landing}` : landing;
}
