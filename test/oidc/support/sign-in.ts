import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { csrfOf, LoginClient } from '../../attack/support/login-client.js';
import type { TestService } from '../../support/service.js';
import { PASSWORD, postForm } from './oidc-fixtures.js';

export interface UserTokens {
  access_token: string;
  id_token?: string;
  refresh_token?: string;
  scope?: string;
  [name: string]: unknown;
}

export interface SignInOptions {
  clientId: string;
  /** Absent for a public client (PKCE only). */
  clientSecret?: string;
  /** Client authentication as form fields at the token endpoint instead (e.g. a private_key_jwt assertion). */
  clientAuth?: Record<string, string>;
  redirectUri: string;
  loginName: string;
  password: string;
  scope?: string;
  /** Extra authorization request parameters (e.g. `resource`). */
  extra?: Record<string, string>;
  /** A browser that already has a session (its cookies are reused). */
  browser?: LoginClient;
  /**
   * Answers an agent client's consent page (docs/agents.md, "Consent and connected agents") as a person does, by
   * posting its Allow form; without it a consent page ends the flow with no code.
   */
  consent?: 'allow';
}

/**
 * The authorization code flow with PKCE as a browser and a relying party run it, over plain HTTP: the
 * login UI's form is posted, the code exchanged at the token endpoint. Returns the token response, or
 * the error the authorization or token endpoint answered.
 */
export async function signIn(
  svc: TestService,
  options: SignInOptions,
): Promise<{ tokens?: UserTokens; error?: string; browser: LoginClient; consentShown: boolean; consentPage?: string }> {
  const browser = options.browser ?? new LoginClient(svc.url);
  const verifier = randomBytes(32).toString('base64url');
  const params = {
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    response_type: 'code',
    scope: options.scope ?? 'openid',
    state: 'st',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...options.extra,
  };
  const first = await browser.get(`/oauth/v2/authorize?${new URLSearchParams(params)}`);
  let callback = first.location ?? '';
  let consentShown = false;
  let consentPage: string | undefined;
  if (callback.includes('/ui/login/')) {
    const uid = /\/ui\/login\/([^/?]+)/.exec(callback)![1];
    const page = await browser.get(callback);
    const csrf = /name="csrf" value="([^"]*)"/.exec(page.text)?.[1] ?? '';
    const posted = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName: options.loginName, password: options.password });
    assert.equal(posted.status, 303, `login accepted: ${posted.status} ${posted.text.slice(0, 300)}`);
    ({ location: callback, consentShown, consentPage } = await untilRedirectUri(browser, posted.location ?? '', options));
  }
  const url = new URL(callback, svc.url);
  const error = url.searchParams.get('error');
  if (error) return { error, browser, consentShown, consentPage };
  const code = url.searchParams.get('code');
  assert.ok(code, `a code at the redirect URI: ${callback}`);
  const form: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: options.redirectUri, code_verifier: verifier };
  if (!options.clientSecret) Object.assign(form, { client_id: options.clientId }, options.clientAuth);
  const res = await postForm(svc, '/oauth/v2/token', form, options.clientSecret ? { id: options.clientId, secret: options.clientSecret } : undefined);
  if (res.status !== 200) return { error: res.body?.error ?? String(res.status), browser, consentShown, consentPage };
  return { tokens: res.body, browser, consentShown, consentPage };
}

/**
 * Follows the service's redirects (at most 10) until one leads to the redirect URI, which is not followed; a consent
 * page is answered Allow when `consent` says so, and returned (the last one shown).
 */
async function untilRedirectUri(
  browser: LoginClient,
  location: string,
  options: Pick<SignInOptions, 'redirectUri' | 'consent'>,
): Promise<{ location: string; consentShown: boolean; consentPage?: string }> {
  let consentShown = false;
  let consentPage: string | undefined;
  for (let i = 0; i < 10 && location && !location.startsWith(options.redirectUri); i++) {
    const next = await browser.get(location);
    const uid = /^\/ui\/login\/([^/?]+)$/.exec(new URL(location, 'http://service.invalid').pathname)?.[1];
    if (uid && next.text.includes('data-consent-allow')) {
      consentShown = true;
      consentPage = next.text;
      if (options.consent !== 'allow') return { location, consentShown, consentPage };
      const allowed = await browser.post(`/ui/login/${uid}/consent`, { csrf: csrfOf(next.text) });
      assert.equal(allowed.status, 303, `consent accepted: ${allowed.status} ${allowed.text.slice(0, 300)}`);
      location = allowed.location ?? '';
      continue;
    }
    location = next.location ?? '';
  }
  return { location, consentShown, consentPage };
}

/**
 * openid-client's code flow with PKCE and nonce, the login UI driven over HTTP as a browser would (a browser with a
 * session signs in without the form): returns the checked token response and the browser.
 */
export async function openidClientSignIn(
  svc: TestService,
  config: oidc.Configuration,
  options: { redirectUri: string; loginName: string; scope?: string; browser?: LoginClient },
): Promise<{ browser: LoginClient; tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers }> {
  const browser = options.browser ?? new LoginClient(svc.url);
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: options.redirectUri,
    scope: options.scope ?? 'openid',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  let res = await browser.get(`${url.pathname}${url.search}`);
  const uid = /\/ui\/login\/([^/?]+)$/.exec(res.location ?? '')?.[1];
  if (uid) {
    const page = await browser.get(res.location!);
    res = /name="loginName"/.test(page.text)
      ? await browser.post(`/ui/login/${uid}/login`, { csrf: csrfOf(page.text), loginName: options.loginName, password: PASSWORD })
      : page;
  }
  res = await browser.follow(res);
  assert.ok(res.location?.startsWith(options.redirectUri), `back at the client: ${res.status} ${res.location}`);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(res.location!), {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  return { browser, tokens };
}
