/** What one hop of a manually driven browser flow returned. */
export interface Hop {
  status: number;
  location?: string;
  text: string;
}

/**
 * A minimal browser for login flows driven over plain HTTP (like bench/oidc/login-chain.ts): keeps the
 * cookies responses set (name=value; cookies are not scoped by port, as in a browser) and sends each
 * request to the service process the test chooses, whatever host the previous redirect named.
 */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  async get(base: string, url: string): Promise<Hop> {
    return this.send(base, url, { method: 'GET' });
  }

  async postForm(base: string, url: string, form: Record<string, string>): Promise<Hop> {
    return this.send(base, url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  }

  /**
   * Posts the login form; a user without a second factor is then offered to enrol one (policy `optional`,
   * docs/product-rules.md, "Multi-factor sign-in") and, like a user clicking "Not now", declines.
   */
  async login(base: string, action: string, form: Record<string, string>): Promise<Hop> {
    const hop = await this.postForm(base, action, form);
    const uidPage = action.replace(/\/login$/, '');
    if (hop.location !== uidPage) return hop;
    const offer = await this.get(base, uidPage);
    if (!offer.text.includes('data-mfa-skip')) return hop;
    return this.postForm(base, `${uidPage}/enrol/skip`, { csrf: form.csrf ?? '' });
  }

  private async send(base: string, url: string, init: { method: string; headers?: Record<string, string>; body?: string }): Promise<Hop> {
    const target = new URL(url, base);
    const onService = new URL(target.pathname + target.search, base);
    const headers = { ...init.headers, ...(this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}) };
    const res = await fetch(onService, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1)];
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, location: res.headers.get('location') ?? undefined, text: await res.text() };
  }
}
