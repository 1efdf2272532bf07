import { csrfOf } from '../../attack/support/login-client.js';
import type { LoginClient, PageResponse } from '../../attack/support/login-client.js';
import { PASSWORD } from '../../oidc/support/oidc-fixtures.js';

/**
 * Follows the service's redirects from `first` as a browser would, signing in as `loginName` when the login page
 * asks for a password, until a page answers (at most 15 steps): the auto-posting SAML response, or an error page.
 */
export async function untilAnswered(browser: LoginClient, first: PageResponse, loginName: string): Promise<PageResponse> {
  let current = first;
  for (let i = 0; i < 15 && current.location; i++) {
    const next = new URL(current.location, browser.baseUrl);
    current = await browser.get(next.pathname + next.search);
    const uid = /^\/ui\/login\/([^/?]+)$/.exec(next.pathname)?.[1];
    if (uid && current.status === 200 && current.text.includes('name="password"')) {
      current = await browser.post(`/ui/login/${uid}/login`, { csrf: csrfOf(current.text), loginName, password: PASSWORD });
    }
  }
  return current;
}
