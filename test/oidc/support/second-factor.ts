import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { LoginClient, csrfOf } from '../../attack/support/login-client.js';
import type { PageResponse } from '../../attack/support/login-client.js';
import type { TestService } from '../../support/service.js';
import { postForm } from './oidc-fixtures.js';
import type { OidcApp } from './oidc-fixtures.js';

export const ACR_MFA = 'urn:portcullis:acr:mfa';
export const ACR_PASSWORD = 'urn:portcullis:acr:pwd';

/** The code an authenticator app shows for `secret`, `steps` periods of 30 s from now (RFC 6238, SHA-1, 6 digits). */
export function totpCode(secret: string, steps = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + steps * 30_000 });
}

export async function setLoginPolicy(
  svc: TestService,
  orgId: string,
  policy: { mfa: 'off' | 'optional' | 'required'; passkeys?: boolean; allowRegistration?: boolean },
): Promise<void> {
  const res = await svc.api('PUT', `/management/v1/orgs/${orgId}/login-policy`, {
    token: svc.adminToken,
    body: { passkeys: true, allowRegistration: true, ...policy },
  });
  assert.equal(res.status, 200, res.text);
}

/**
 * One sign-in of a browser that does not decline the enrolment offer: the authorization request,
 * its login UI pages over plain HTTP, and the code redeemed at the token endpoint.
 */
export class SignInFlow {
  readonly client: LoginClient;
  uid = '';
  private verifier = '';

  constructor(
    private readonly svc: TestService,
    private readonly app: OidcApp,
    private readonly redirectUri: string,
    client?: LoginClient,
  ) {
    this.client = client ?? new LoginClient(svc.url);
    this.client.declinesMfaOffer = false;
  }

  /** Starts an authorization request; returns the first page of the login UI, or the redirect when none is shown. */
  async authorize(extra: Record<string, string> = {}): Promise<PageResponse> {
    this.verifier = randomBytes(32).toString('base64url');
    const params = {
      client_id: this.app.clientId,
      redirect_uri: this.redirectUri,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
      code_challenge: createHash('sha256').update(this.verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...extra,
    };
    const first = await this.client.get(`/oauth/v2/authorize?${new URLSearchParams(params)}`);
    const uid = /\/ui\/login\/([^/?]+)/.exec(first.location ?? '')?.[1];
    if (!uid) return first;
    this.uid = uid;
    return this.client.get(first.location!);
  }

  /** Posts a form of the current page's step (`login`, `code`, `enrol/totp`, …) with its CSRF value. */
  async post(step: string, page: PageResponse, fields: Record<string, string> = {}): Promise<PageResponse> {
    return this.client.post(`/ui/login/${this.uid}/${step}`, { csrf: csrfOf(page.text), ...fields });
  }

  /** The page a step redirected to within the login UI (303 to /ui/login/{uid}). */
  async next(response: PageResponse): Promise<PageResponse> {
    assert.equal(response.status, 303, `a redirect: ${response.status} ${response.text.slice(0, 300)}`);
    assert.equal(response.location, `/ui/login/${this.uid}`, 'to the next step of the login UI');
    return this.client.get(response.location!);
  }

  async password(loginName: string, password: string): Promise<PageResponse> {
    return this.post('login', await this.currentPage(), { loginName, password });
  }

  async currentPage(): Promise<PageResponse> {
    return this.client.get(`/ui/login/${this.uid}`);
  }

  /** Follows a finished step to the redirect URI and redeems the code: the ID token's claims. */
  async tokens(finished: PageResponse): Promise<{ claims: Record<string, unknown>; tokens: Record<string, any> }> {
    assert.equal(finished.status, 303, `the sign-in finished: ${finished.status} ${finished.text.slice(0, 300)}`);
    const last = await this.client.follow(finished);
    return this.redeem(last.location ?? '');
  }

  async redeem(callback: string): Promise<{ claims: Record<string, unknown>; tokens: Record<string, any> }> {
    assert.ok(callback.startsWith(this.redirectUri), `at the redirect URI: ${callback}`);
    const code = new URL(callback).searchParams.get('code');
    assert.ok(code, `a code: ${callback}`);
    const res = await postForm(
      this.svc,
      '/oauth/v2/token',
      { grant_type: 'authorization_code', code, redirect_uri: this.redirectUri, code_verifier: this.verifier },
      { id: this.app.clientId, secret: this.app.clientSecret! },
    );
    assert.equal(res.status, 200, res.text);
    return { claims: decodeJwt(res.body.id_token), tokens: res.body };
  }
}

export function totpSecretOf(page: PageResponse): string {
  const secret = /<code data-totp-secret>([A-Z2-7]+)<\/code>/.exec(page.text)?.[1];
  assert.ok(secret, `a TOTP secret on the page: ${page.text.slice(0, 500)}`);
  return secret;
}

export function recoveryCodesOf(page: PageResponse): string[] {
  return [...page.text.matchAll(/<code data-recovery-code>([^<]+)<\/code>/g)].map((m) => m[1]);
}

export function factorIdOf(page: PageResponse): string {
  return /name="factorId" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
}
