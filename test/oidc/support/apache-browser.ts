import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { submitLogin } from './browser.js';
import { CLAIMS_PATH, LOGGED_OUT_PATH, REDIRECT_PATH } from './apache-config.js';

/** What mod_auth_openidc's info hook (`<redirect_uri>?info=json`) tells about the session. */
export interface SessionInfo {
  access_token: string;
  access_token_expires?: number;
  refresh_token?: string;
  id_token: Record<string, unknown>;
  userinfo: Record<string, unknown>;
}

/**
 * Opens the protected page as a user would: mod_auth_openidc sends the browser to Portcullis, the login
 * UI's form is filled in, and the code flow ends on the page. Returns the variables the application saw.
 */
export async function signInThroughApache(
  page: Page,
  origin: string,
  loginName: string,
  password: string,
  options: { declineMfaOffer?: boolean } = {},
): Promise<Record<string, string>> {
  await page.goto(`${origin}${CLAIMS_PATH}`);
  await page.waitForSelector('input[name="password"]');
  await submitLogin(page, loginName, password, options);
  await page.waitForURL(`${origin}${CLAIMS_PATH}`);
  return appVariables(page);
}

/** The `NAME=value` lines the claims CGI printed. */
export async function appVariables(page: Page): Promise<Record<string, string>> {
  const text = (await page.textContent('body')) ?? '';
  const variables: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z0-9_]+)=(.*)$/.exec(line);
    if (match) variables[match[1]] = match[2];
  }
  return variables;
}

/**
 * The session as mod_auth_openidc holds it, read with the browser's session cookie. With `refresh`,
 * `access_token_refresh_interval=0` makes it redeem its refresh token first (mod_auth_openidc 2.4 info hook).
 */
export async function sessionInfo(page: Page, origin: string, options: { refresh?: boolean } = {}): Promise<SessionInfo> {
  const query = options.refresh ? 'info=json&access_token_refresh_interval=0' : 'info=json';
  const res = await page.context().request.get(`${origin}${REDIRECT_PATH}?${query}`, { maxRedirects: 0 });
  assert.equal(res.status(), 200, `info hook: ${res.status()} ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as SessionInfo;
}

/**
 * The relying party's logout: mod_auth_openidc ends its session and sends the browser to Portcullis's
 * end-session endpoint, whose confirmation is accepted, and Portcullis sends it back to the app.
 */
export async function logOutThroughApache(page: Page, origin: string): Promise<void> {
  const loggedOut = `${origin}${LOGGED_OUT_PATH}`;
  await page.goto(`${origin}${REDIRECT_PATH}?logout=${encodeURIComponent(loggedOut)}`);
  await page.click('button[name="logout"]');
  await page.waitForURL((url) => url.href.startsWith(loggedOut));
}
