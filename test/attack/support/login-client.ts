import assert from 'node:assert/strict';

/** A response of the login UI or the provider, read once. */
export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
  location?: string;
}

/**
 * A browser reduced to what the login UI needs: a cookie jar, manual redirects and form posts. It
 * speaks plain HTTP, so tests can look at every status, header and cookie the way an attacker would.
 */
export class LoginClient {
  readonly cookies = new Map<string, string>();
  /** Every Set-Cookie header received, for tests of cookie flags. */
  readonly setCookies: string[] = [];
  /**
   * Like a user who clicks "Not now", the client declines the login UI's offer to enrol a second factor
   * (policy `optional`, a user without factors) after a first factor; tests of enrolment turn it off.
   */
  declinesMfaOffer = true;

  /**
   * `publicUrl`: the service's PUBLIC_URL when it is not the address the client connects to (behind a
   * TLS proxy), so that redirects to it are followed to `baseUrl`.
   */
  constructor(
    readonly baseUrl: string,
    private readonly headers: Record<string, string> = {},
    private readonly publicUrl: string = baseUrl,
  ) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<PageResponse> {
    return this.send('GET', path, undefined, headers);
  }

  async post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<PageResponse> {
    const response = await this.send('POST', path, new URLSearchParams(form).toString(), { 'content-type': 'application/x-www-form-urlencoded', ...headers });
    const step = /^\/ui\/login\/([^/?]+)\/(login|register|select|passkey)(\?.*)?$/.exec(path);
    if (!this.declinesMfaOffer || !step || response.status !== 303 || response.location !== `/ui/login/${step[1]}`) return response;
    const offer = await this.get(response.location);
    if (!offer.text.includes('data-mfa-skip')) return response;
    return this.send('POST', `/ui/login/${step[1]}/enrol/skip`, new URLSearchParams({ csrf: csrfOf(offer.text) }).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
  }

  /** Starts an authorization request and follows it to the login page; returns the page and its uid. */
  async startLogin(params: Record<string, string>): Promise<{ uid: string; page: PageResponse; csrf: string }> {
    const redirect = await this.get(`/oauth/v2/authorize?${new URLSearchParams(params)}`);
    assert.equal(redirect.status, 303, `authorize redirects to the login UI: ${redirect.status} ${redirect.text.slice(0, 300)}`);
    const uid = /\/ui\/login\/([^/?]+)/.exec(redirect.location ?? '')?.[1];
    assert.ok(uid, `login UI location: ${redirect.location}`);
    const page = await this.get(redirect.location!);
    return { uid, page, csrf: csrfOf(page.text) };
  }

  /**
   * Follows redirects and oidc-provider's self-submitting forms (at most 10) from a response, as a
   * browser with JavaScript would; returns the last response, or the one leaving the service (same
   * host and port, or PUBLIC_URL's, count as the service: behind a proxy the scheme is https).
   */
  async follow(response: PageResponse): Promise<PageResponse> {
    let current = response;
    for (let i = 0; i < 10; i++) {
      const form = current.location ? undefined : selfSubmittingForm(current.text);
      if (!current.location && !form) return current;
      const next = new URL(current.location ?? form!.action, this.baseUrl);
      if (next.host !== new URL(this.baseUrl).host && next.host !== new URL(this.publicUrl).host) return current;
      current = form ? await this.post(next.pathname + next.search, form.fields) : await this.get(next.pathname + next.search);
    }
    return current;
  }

  private async send(method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<PageResponse> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(new URL(path, this.baseUrl), {
      method,
      body,
      redirect: 'manual',
      headers: { ...this.headers, ...headers, ...(cookie ? { cookie } : {}) },
    });
    for (const line of res.headers.getSetCookie()) {
      this.setCookies.push(line);
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') ?? undefined };
  }
}

export function csrfOf(html: string): string {
  return /name="csrf" value="([^"]*)"/.exec(html)?.[1] ?? '';
}

/** oidc-provider's pages that submit themselves on load (e.g. ending a session to switch accounts). */
function selfSubmittingForm(html: string): { action: string; fields: Record<string, string> } | undefined {
  if (!/document\.forms\[0\]\.submit\(\)/.test(html)) return undefined;
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) return undefined;
  const fields = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/?>/g)].map((m) => [m[1], m[2]]));
  return { action: action.replace(/&amp;/g, '&'), fields };
}
