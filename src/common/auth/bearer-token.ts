/** What the token is read from: the headers, the parsed body and the query string (Express). */
export interface BearerRequest {
  headers: { authorization?: string };
  body?: unknown;
  url?: string;
  query?: unknown;
}

/**
 * The bearer token of a request exactly as passport-http-bearer 1.0 read it, which the API accepted
 * until issue 22 (RFC 6750 §2): the `Authorization: Bearer <token>` header (scheme case-insensitive),
 * else an `access_token` form or JSON body field, else an `access_token` query parameter. A header
 * that is not two space-separated parts, or a token sent in more than one of these places, is
 * refused (null), as is a request without one (undefined). The value is returned as sent (the query
 * parser may give an array), so the caller checks that it is a string.
 */
export function bearerToken(request: BearerRequest): unknown {
  let token: unknown;
  const header = request.headers.authorization;
  if (header) {
    const parts = header.split(' ');
    if (parts.length !== 2) return null;
    if (/^Bearer$/i.test(parts[0])) token = parts[1];
  }
  const fromBody = field(request.body);
  if (fromBody) {
    if (token) return null;
    token = fromBody;
  }
  // Express parses the query string at every read of `req.query`: a URL without one has nothing to parse.
  const fromQuery = request.url?.includes('?') ? field(request.query) : undefined;
  if (fromQuery) {
    if (token) return null;
    token = fromQuery;
  }
  return token || undefined;
}

function field(container: unknown): unknown {
  return container && typeof container === 'object' ? (container as { access_token?: unknown }).access_token : undefined;
}
