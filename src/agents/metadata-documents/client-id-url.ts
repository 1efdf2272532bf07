/**
 * A `client_id` that is an `https` URL names a client by its Client ID Metadata Document
 * (draft-ietf-oauth-client-id-metadata-document-03; docs/agents.md, "Client ID Metadata Documents"). Every other
 * client id is one this instance registered.
 */
export function isClientIdUrl(clientId: string): boolean {
  return /^https:\/\//i.test(clientId);
}

/**
 * Why this client id URL names no document (undefined: it may): draft-ietf-oauth-client-id-metadata-document-03
 * asks for the `https` scheme and a path, and forbids a fragment, user information and dot segments. A bare host
 * (`https://client.example` or `https://client.example/`) has no path here, so no document is fetched from a
 * host's root. The URL is compared as given, never normalised.
 */
export function clientIdUrlProblem(clientId: string): string | undefined {
  if (clientId.length > 2000) return 'the client_id URL is longer than 2000 characters';
  // Controls, spaces and backslashes would be rewritten by URL parsing: the fetched URL would differ from the id.
  if (/[\u0000-\u0020\u007f\\]/.test(clientId)) return 'the client_id URL contains a space, a control character or a backslash';
  if (clientId.includes('#')) return 'the client_id URL has a fragment';
  const url = URL.parse(clientId);
  if (!url || url.protocol !== 'https:') return 'the client_id is not an https URL';
  if (url.username || url.password || /^https:\/\/[^/?]*@/i.test(clientId)) return 'the client_id URL has user information';
  const rawPath = /^https:\/\/[^/?]*(\/[^?]*)?/i.exec(clientId)?.[1] ?? '';
  if (rawPath === '' || rawPath === '/') return 'the client_id URL has no path';
  if (rawPath.split('/').some((segment) => ['.', '..'].includes(segment.replace(/%2e/gi, '.')))) return 'the client_id URL has a dot segment';
  return undefined;
}
