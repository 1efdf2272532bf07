import assert from 'node:assert/strict';
import type { LoginClient } from '../../attack/support/login-client.js';

/** RP-initiated logout, confirmed on the logout page (`logout=yes`), or only this client's (`false`). */
export async function logOut(browser: LoginClient, clientId: string, everywhere = true): Promise<void> {
  const page = await browser.get(`/oidc/v1/end_session?client_id=${clientId}`);
  assert.equal(page.status, 200, page.text.slice(0, 300));
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.text)?.[1];
  assert.ok(xsrf, 'the logout form');
  const done = await browser.post('/oidc/v1/end_session/confirm', everywhere ? { xsrf, logout: 'yes' } : { xsrf });
  assert.equal(done.status, 303, done.text.slice(0, 300));
}
