import type { ErrorDetail } from '../../common/errors/domain-error.js';

/** When plain http may be used for an endpoint, and what the refusal says otherwise. */
export interface HttpRule {
  allows(url: URL): boolean;
  refusal: string;
}

/**
 * A URL this instance sends a browser or a request to (a SAML ACS or SLO URL, a back-channel logout URI): absolute
 * http(s), never user information, a fragment, spaces, control characters or a backslash, which make a URL read one
 * way and mean another; https unless `http` allows it. At most one problem is added for `field`.
 */
export function checkEndpointUrl(value: string, field: string, http: HttpRule, problems: ErrorDetail[]): void {
  if (value.includes('\\') || /[\s\u0000-\u001f\u007f]/.test(value))
    return void problems.push({ field, message: 'no spaces, control characters or backslashes' });
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return void problems.push({ field, message: `"${value}" is not an absolute URL` });
  }
  if (url.username || url.password || value.includes('#')) return void problems.push({ field, message: 'no user information and no fragment' });
  if (url.protocol === 'http:' && !http.allows(url)) problems.push({ field, message: http.refusal });
  else if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push({ field, message: 'an https URL' });
}
