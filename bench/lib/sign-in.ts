/**
 * Fixture set-up through the login UI, as a user's browser does it (not what is measured): one sign-in
 * with a password that declines the offer to enrol a second factor.
 * A browser without JavaScript (test/attack/support/login-client.ts) posting the pages' forms.
 */
import { LoginClient, csrfOf } from '../../test/attack/support/login-client.js';
import type { PageResponse } from '../../test/attack/support/login-client.js';

export interface WebClient {
  id: string;
  redirect: string;
}

/** A sign-in that has passed the password: the browser and the page of the step that followed it. */
async function afterPassword(url: string, client: WebClient, loginName: string, password: string): Promise<{ browser: LoginClient; uid: string; page: PageResponse }> {
  const browser = new LoginClient(url);
  browser.declinesMfaOffer = false;
  const { uid, page } = await browser.startLogin({ client_id: client.id, redirect_uri: client.redirect, response_type: 'code', scope: 'openid', state: 'setup' });
  const posted = await browser.post(`/ui/login/${uid}/login`, { csrf: csrfOf(page.text), loginName, password });
  if (posted.status !== 303 || posted.location !== `/ui/login/${uid}`) throw new Error(`${loginName}: the password step answered ${posted.status} ${posted.location ?? posted.text.slice(0, 300)}, not the enrolment offer`);
  return { browser, uid, page: await browser.get(posted.location) };
}

/** Follows a finished step to the client's redirect URI: the sign-in must end with a code. */
async function finish(browser: LoginClient, response: PageResponse, what: string): Promise<void> {
  const last = await browser.follow(response);
  const code = last.location?.startsWith('http') ? new URL(last.location).searchParams.get('code') : null;
  if (!code) throw new Error(`${what}: the sign-in did not end at the redirect URI with a code: ${last.status} ${last.location ?? last.text.slice(0, 300)}`);
}

function offerOf(page: PageResponse, loginName: string): PageResponse {
  if (!page.text.includes('data-mfa-skip')) throw new Error(`${loginName}: no declinable enrolment offer: ${page.text.slice(0, 300)}`);
  return page;
}

/** Signs the user in once and clicks "Not now": the offer is not repeated for 30 days. */
export async function declineOffer(url: string, client: WebClient, loginName: string, password: string): Promise<void> {
  const { browser, uid, page } = await afterPassword(url, client, loginName, password);
  const done = await browser.post(`/ui/login/${uid}/enrol/skip`, { csrf: csrfOf(offerOf(page, loginName).text) });
  await finish(browser, done, `${loginName} declining the offer`);
}
