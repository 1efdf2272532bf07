import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { LoginClient, csrfOf } from '../../attack/support/login-client.js';
import type { PageResponse } from '../../attack/support/login-client.js';
import { postForm } from '../../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../../oidc/support/oidc-fixtures.js';
import type { TestService } from '../../support/service.js';

export const RP = 'http://127.0.0.1:65530';

/**
 * A browser over plain HTTP with a cookie jar per host (the service on 127.0.0.1, the upstream on localhost),
 * walking an authorization request through the service's login UI and an upstream identity provider.
 */
export class FederatedBrowser {
  readonly service: LoginClient;
  readonly upstream: LoginClient;
  private verifier = '';
  uid = '';

  constructor(
    private readonly svc: TestService,
    upstreamIssuer: string,
  ) {
    this.service = new LoginClient(svc.url);
    this.upstream = new LoginClient(upstreamIssuer);
  }

  /** Starts the application's authorization request; the response of the login UI's first page. */
  async authorize(app: OidcApp, extra: Record<string, string> = {}): Promise<PageResponse> {
    this.verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(this.verifier).digest('base64url');
    const params = {
      client_id: app.clientId,
      redirect_uri: `${RP}/cb`,
      response_type: 'code',
      scope: 'openid',
      state: 'rp-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    };
    const redirect = await this.service.get(`/oauth/v2/authorize?${new URLSearchParams(params)}`);
    assert.equal(redirect.status, 303, redirect.text.slice(0, 300));
    this.uid = /\/ui\/login\/([^/?]+)/.exec(redirect.location ?? '')![1];
    return this.service.get(redirect.location!);
  }

  /** Clicks the `[data-idp]` button of the login page. */
  choose(page: PageResponse, idpId: string): Promise<PageResponse> {
    assert.match(page.text, new RegExp(`data-idp="${idpId}"`), 'the login page shows the IdP button');
    return this.service.post(`/ui/login/${this.uid}/idp`, { csrf: csrfOf(page.text), idpId });
  }

  /** Types a login name (and a password) into the login page. */
  typeLoginName(page: PageResponse, loginName: string, password = ''): Promise<PageResponse> {
    return this.service.post(`/ui/login/${this.uid}/login`, { csrf: csrfOf(page.text), loginName, password });
  }

  /**
   * From a redirect to the upstream: signs in there as `account` (with a second factor there or not) and follows
   * the redirects back until the service shows a page or sends the browser to the application.
   */
  async signInUpstream(toUpstream: PageResponse, account: string, options: { mfa?: boolean; declineMfaOffer?: boolean } = {}): Promise<PageResponse> {
    assert.equal(toUpstream.status, 303, `to the upstream: ${toUpstream.status} ${toUpstream.text.slice(0, 300)}`);
    let page = await this.walk(toUpstream);
    const uid = /\/interaction\/([^/?"]+)/.exec(page.text)?.[1];
    assert.ok(uid, `the upstream's sign-in page: ${page.status} ${page.text.slice(0, 300)}`);
    page = await this.upstream.post(`/interaction/${uid}/login`, { account, ...(options.mfa ? { mfa: 'yes' } : {}) });
    return this.walk(page, options);
  }

  /**
   * From a redirect to a SAML IdP (SimpleSAMLphp): signs in on its user/password page and takes the
   * self-posting form it answers with (SAMLResponse and RelayState for the service's ACS), without posting it.
   */
  async samlResponseFrom(toUpstream: PageResponse, user: string, password: string): Promise<{ acs: URL; form: Record<string, string> }> {
    assert.equal(toUpstream.status, 303, `to the IdP: ${toUpstream.status} ${toUpstream.text.slice(0, 300)}`);
    const login = await this.walk(toUpstream);
    const authState = /name="AuthState" value="([^"]+)"/.exec(login.text)?.[1];
    assert.ok(
      authState,
      `the IdP's sign-in page: ${login.status} ${login.text
        .replace(/<head>[\s\S]*<\/head>/, '')
        .replace(/\s+/g, ' ')
        .slice(0, 1500)}`,
    );
    const posted = await this.upstream.post('/module.php/core/loginuserpass.php', { username: user, password, AuthState: decodeHtml(authState) });
    return this.samlForm(posted);
  }

  /** The self-posting form of a SAML IdP's page: its target and fields (SAMLResponse or SAMLRequest, RelayState). */
  samlForm(posted: PageResponse): { acs: URL; form: Record<string, string> } {
    const action = /<form[^>]+action="([^"]+)"/.exec(posted.text)?.[1];
    const field = (name: string) => decodeHtml(new RegExp(`name="${name}" value="([^"]*)"`).exec(posted.text)?.[1] ?? '');
    assert.ok(
      action && field('SAMLResponse'),
      `the IdP response form: ${posted.status} ${posted.text
        .replace(/<head>[\s\S]*<\/head>/, '')
        .replace(/\s+/g, ' ')
        .slice(0, 1200)}`,
    );
    return { acs: new URL(decodeHtml(action)), form: { SAMLResponse: field('SAMLResponse'), RelayState: field('RelayState') } };
  }

  /** Posts a SAML response to the service's ACS, as the IdP's page does, and follows on. */
  async postToAcs(acs: URL, form: Record<string, string>): Promise<PageResponse> {
    return this.walk(await this.service.post(acs.pathname, form));
  }

  /**
   * Follows redirects across the two hosts; stops at a page, or at the application's redirect URI. Like a user
   * who clicks "Not now", it declines the offer to enrol a second factor (policy `optional`).
   */
  async walk(from: PageResponse, options: { declineMfaOffer?: boolean } = {}): Promise<PageResponse> {
    let current = from;
    for (let i = 0; i < 12; i++) {
      if (!current.location && current.text.includes('data-mfa-skip') && options.declineMfaOffer !== false) {
        current = await this.service.post(`/ui/login/${this.uid}/enrol/skip`, { csrf: csrfOf(current.text) });
        continue;
      }
      if (!current.location || current.location.startsWith(RP)) break;
      const next = new URL(current.location, this.svc.url);
      // A sign-in this walk did not start (an IdP-initiated one) is known by its login page's path.
      const uid = /^\/ui\/login\/([^/?]+)/.exec(next.pathname)?.[1];
      if (uid && uid !== 'idp' && next.host === new URL(this.svc.url).host) this.uid = uid;
      const upstreamHost = new URL(this.upstream.baseUrl).host;
      current = next.host === upstreamHost ? await this.upstream.get(next.pathname + next.search) : await this.service.get(next.pathname + next.search);
    }
    return current;
  }

  /** The application's side: the code at its redirect URI exchanged for tokens; the ID token's claims. */
  async tokens(app: OidcApp, atRedirectUri: PageResponse): Promise<Record<string, unknown>> {
    assert.ok(
      atRedirectUri.location?.startsWith(RP),
      `at the redirect URI: ${atRedirectUri.status} ${atRedirectUri.location} ${atRedirectUri.text.slice(0, 600)}`,
    );
    const url = new URL(atRedirectUri.location!);
    assert.equal(
      `${url.origin}${url.pathname}`,
      `${RP}/cb`,
      `at the redirect URI: ${atRedirectUri.status} ${atRedirectUri.location} ${atRedirectUri.text.slice(0, 400)}`,
    );
    const code = url.searchParams.get('code');
    assert.ok(code, `a code: ${url.href}`);
    const res = await postForm(
      this.svc,
      '/oauth/v2/token',
      { grant_type: 'authorization_code', code, redirect_uri: `${RP}/cb`, code_verifier: this.verifier },
      { id: app.clientId, secret: app.clientSecret! },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return JSON.parse(Buffer.from(String(res.body.id_token).split('.')[1], 'base64url').toString());
  }
}

/** The entities SimpleSAMLphp's templates write into attribute values. */
function decodeHtml(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#039;|&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
