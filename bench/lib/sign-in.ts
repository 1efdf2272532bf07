/**
 * Fixture set-up through the login UI, as a user's browser does it (not what is measured): one sign-in
 * with a password that declines the offer to enrol a second factor, or that enrols TOTP or a passkey.
 * A browser without JavaScript (test/attack/support/login-client.ts) posting the pages' forms.
 */
import { createHash } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { LoginClient, csrfOf } from '../../test/attack/support/login-client.js';
import type { PageResponse } from '../../test/attack/support/login-client.js';
import type { SoftwareAuthenticator } from './authenticator.js';

export interface WebClient {
  id: string;
  redirect: string;
}

export const TOTP_PERIOD_MS = 30_000;
export const totpStep = (now = Date.now()) => Math.floor(now / TOTP_PERIOD_MS);
/** RFC 6238 as the service uses it: SHA-1, 6 digits, 30-second steps; the code of one given step. */
export const totpCodeAt = (totp: TOTP, step: number) => totp.generate({ timestamp: step * TOTP_PERIOD_MS });
export const totpOf = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_MS / 1000 });

/** A sign-in that has passed the password: the browser and the page of the step that followed it. */
async function afterPassword(
  url: string,
  client: WebClient,
  loginName: string,
  password: string,
): Promise<{ browser: LoginClient; uid: string; page: PageResponse }> {
  const browser = new LoginClient(url);
  browser.declinesMfaOffer = false;
  const { uid, page } = await browser.startLogin({
    client_id: client.id,
    redirect_uri: client.redirect,
    response_type: 'code',
    scope: 'openid',
    state: 'setup',
  });
  const posted = await browser.post(`/ui/login/${uid}/login`, { csrf: csrfOf(page.text), loginName, password });
  if (posted.status !== 303 || posted.location !== `/ui/login/${uid}`)
    throw new Error(`${loginName}: the password step answered ${posted.status} ${posted.location ?? posted.text.slice(0, 300)}, not the enrolment offer`);
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

/** Enrols TOTP through the offer (secret from the page, first code of the current step); the secret and the step used. */
export async function enrolTotp(url: string, client: WebClient, loginName: string, password: string): Promise<{ secret: string; lastStep: number }> {
  const { browser, uid, page } = await afterPassword(url, client, loginName, password);
  const setup = await browser.post(`/ui/login/${uid}/enrol/totp`, { csrf: csrfOf(offerOf(page, loginName).text) });
  const secret = /<code data-totp-secret>([A-Z2-7]+)<\/code>/.exec(setup.text)?.[1];
  const factorId = /name="factorId" value="([^"]+)"/.exec(setup.text)?.[1];
  if (!secret || !factorId) throw new Error(`${loginName}: no TOTP secret on the enrolment page: ${setup.status} ${setup.text.slice(0, 300)}`);
  const step = totpStep();
  const shown = await browser.post(`/ui/login/${uid}/enrol/totp/confirm`, { csrf: csrfOf(setup.text), factorId, code: totpCodeAt(totpOf(secret), step) });
  if (shown.status !== 200 || !shown.text.includes('data-recovery-code'))
    throw new Error(`${loginName}: the first TOTP code was refused: ${shown.status} ${shown.text.slice(0, 300)}`);
  await finish(browser, await browser.post(`/ui/login/${uid}/continue`, { csrf: csrfOf(shown.text) }), `${loginName} enrolling TOTP`);
  return { secret, lastStep: step };
}

/** Registers the authenticator's credential through the offer (`enrol/passkey`, attestation `none`). */
export async function enrolPasskey(url: string, client: WebClient, loginName: string, password: string, authenticator: SoftwareAuthenticator): Promise<void> {
  const { browser, uid, page } = await afterPassword(url, client, loginName, password);
  const options = jsonScript<PublicKeyCredentialCreationOptionsJSON>(offerOf(page, loginName).text, 'passkey-options-register');
  if (!options) throw new Error(`${loginName}: no passkey creation options on the enrolment page`);
  const shown = await browser.post(`/ui/login/${uid}/enrol/passkey`, { csrf: csrfOf(page.text), response: JSON.stringify(authenticator.register(options)) });
  if (shown.status !== 200 || !shown.text.includes('data-recovery-code'))
    throw new Error(`${loginName}: the passkey was not registered: ${shown.status} ${shown.text.slice(0, 300)}`);
  await finish(browser, await browser.post(`/ui/login/${uid}/continue`, { csrf: csrfOf(shown.text) }), `${loginName} registering a passkey`);
}

/**
 * A public client with PKCE S256 (RFC 7636) asking for a resource (RFC 8707): the verifier is the client's own, and
 * the sign-ins and the measured chain reuse it (each code is redeemed once all the same).
 */
export interface PublicClient {
  id: string;
  redirect: string;
  scope: string;
  resource: string;
  verifier: string;
}

export const codeChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * One code-flow sign-in of a public client through the login UI, answering an agent client's consent page with
 * Allow, so later sign-ins find the consent remembered (docs/agents.md, "Consent and connected agents"); `extra`:
 * further authorization parameters (`prompt=consent` for `offline_access`). The token response of the redemption.
 */
export async function publicSignIn(
  url: string,
  client: PublicClient,
  loginName: string,
  password: string,
  extra: Record<string, string> = {},
): Promise<{ access_token: string; refresh_token?: string }> {
  const browser = new LoginClient(url);
  const { uid, csrf } = await browser.startLogin({
    client_id: client.id,
    redirect_uri: client.redirect,
    response_type: 'code',
    scope: client.scope,
    state: 'setup',
    resource: client.resource,
    code_challenge: codeChallenge(client.verifier),
    code_challenge_method: 'S256',
    ...extra,
  });
  let last = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName, password });
  // The consent is a sign-in of its own (oidc-provider's consent prompt): its page has another uid.
  for (let step = 0; step < 10 && last.location && !last.location.startsWith(client.redirect); step++) {
    const page = await browser.get(last.location);
    const consentUid = /^\/ui\/login\/([^/?]+)$/.exec(new URL(last.location, url).pathname)?.[1];
    last = consentUid && page.text.includes('data-consent-allow') ? await browser.post(`/ui/login/${consentUid}/consent`, { csrf: csrfOf(page.text) }) : page;
  }
  const code = last.location?.startsWith(client.redirect) ? new URL(last.location).searchParams.get('code') : null;
  if (!code) throw new Error(`${client.id}: the sign-in did not end at the redirect URI with a code: ${last.status} ${last.location ?? pageText(last.text)}`);
  const res = await fetch(`${url}/oauth/v2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirect,
      code_verifier: client.verifier,
      client_id: client.id,
      resource: client.resource,
    }),
  });
  const tokens = (await res.json()) as { access_token?: string; refresh_token?: string };
  if (res.status !== 200 || !tokens.access_token) throw new Error(`${client.id}: the code redemption answered ${res.status} ${JSON.stringify(tokens)}`);
  return tokens as { access_token: string; refresh_token?: string };
}

/** A page's words without its markup and style, for an error message. */
const pageText = (html: string) =>
  html
    .replace(/<(style|script)[^>]*>[^<]*<\/\1>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 400);

/** The JSON of a page's `<script type="application/json" id="…">` (WebAuthn options). */
export function jsonScript<T>(html: string, id: string): T | undefined {
  const json = new RegExp(`<script type="application/json" id="${id}">([^<]*)</script>`).exec(html)?.[1];
  return json ? (JSON.parse(json) as T) : undefined;
}

/** Runs `work` over `items` with at most `parallel` at once. */
export async function inParallel<T>(items: T[], parallel: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i], i);
      }
    }),
  );
}
