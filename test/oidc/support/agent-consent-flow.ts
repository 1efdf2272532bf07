import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { csrfOf } from '../../attack/support/login-client.js';
import type { LoginClient } from '../../attack/support/login-client.js';
import type { TestService } from '../../support/service.js';
import { PASSWORD, postForm } from './oidc-fixtures.js';

export const REDIRECT = 'http://127.0.0.1:65530/cb';

/** An application (with its secret) or an agent client (public). */
type Client = { clientId: string; clientSecret?: string };

export interface Authorization {
  /** The consent page, when one was shown. */
  consent?: string;
  callback: URL;
  verifier: string;
}

/**
 * The code flow as a browser runs it, signing in when asked and answering a consent page with `answer`; returns what
 * reached the redirect URI.
 */
export async function authorize(
  browser: LoginClient,
  client: Client,
  loginName: string,
  scope: string,
  resource: string,
  answer: 'allow' | 'deny',
  prompt?: string,
): Promise<Authorization> {
  const verifier = randomBytes(32).toString('base64url');
  const params = {
    client_id: client.clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope,
    resource,
    state: 'st',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...(prompt ? { prompt } : {}),
  };
  let res = await browser.get(`/oauth/v2/authorize?${new URLSearchParams(params)}`);
  let consent: string | undefined;
  for (let i = 0; i < 12; i++) {
    const location = res.location ?? '';
    if (location.startsWith(REDIRECT)) return { consent, callback: new URL(location), verifier };
    const uid = /^\/ui\/login\/([^/?]+)$/.exec(location)?.[1];
    if (!uid) {
      res = await browser.get(location);
      continue;
    }
    const page = await browser.get(location);
    if (page.text.includes('name="loginName"')) {
      res = await browser.post(`/ui/login/${uid}/login`, { csrf: csrfOf(page.text), loginName, password: PASSWORD });
    } else if (page.text.includes('data-consent-allow')) {
      consent = page.text;
      res = await browser.post(`/ui/login/${uid}/${answer === 'allow' ? 'consent' : 'consent-deny'}`, { csrf: csrfOf(page.text) });
    } else {
      return { consent: page.text, callback: new URL('about:blank'), verifier };
    }
  }
  assert.fail('the flow did not reach the redirect URI');
}

/** Redeems the code as the client: with its secret, else (a public client) by its client_id alone. */
export async function redeem(svc: TestService, client: Client, auth: Authorization) {
  const code = auth.callback.searchParams.get('code');
  assert.ok(code, `a code at the redirect URI: ${auth.callback}`);
  const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: auth.verifier };
  const res = client.clientSecret
    ? await postForm(svc, '/oauth/v2/token', form, { id: client.clientId, secret: client.clientSecret })
    : await postForm(svc, '/oauth/v2/token', { ...form, client_id: client.clientId });
  assert.equal(res.status, 200, res.text);
  return res.body as { access_token: string; refresh_token?: string; scope?: string };
}
